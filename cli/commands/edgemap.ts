// `edgeshifu edgemap`: the topology the controller keeps (its GET /edgemap and /edgemap.dot, see
// edgemap/http/router.ts), as text, JSON or Graphviz DOT.
import { EdgeshifuError } from '../../shared/errors.ts';
import type { EdgeMapSnapshot } from '../../edgemap/snapshot.ts';
import type { CommandSpec } from '../args.ts';
import type { CliContext } from '../context.ts';
import type { ControllerAccess, HttpReply } from '../controller-access.ts';
import { renderEdgeMap } from '../format/edgemap.ts';

export const spec: CommandSpec = {
  name: 'edgemap',
  summary: 'print the edgeMap: nodes, the devices placed on them, remote clusters and links',
  details: ['Read from the controller (--controller, the local stack\'s, or through the API server\'s service proxy).'],
  positionals: [],
  options: {},
  outputs: ['text', 'json', 'dot'],
  examples: ['edgeshifu edgemap', 'edgeshifu edgemap -o dot | dot -Tsvg > edgemap.svg', 'edgeshifu edgemap -o json | jq \'.vertices[] | select(.kind == "edgeDevice")\''],
};

function expectOk(reply: HttpReply, controller: ControllerAccess, path: string): string {
  if (reply.status !== 200) {
    throw new EdgeshifuError('unavailable', `the controller at ${controller.where} answered ${path} with HTTP ${String(reply.status)}: ${reply.body.slice(0, 300)}`);
  }
  return reply.body;
}

/** The snapshot, or an error saying the answer was not one. */
export function parseSnapshot(body: string, where: string): EdgeMapSnapshot {
  let parsed: Partial<EdgeMapSnapshot> | undefined;
  try {
    parsed = JSON.parse(body) as Partial<EdgeMapSnapshot>;
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || !Array.isArray(parsed.vertices) || !Array.isArray(parsed.links) || typeof parsed.seq !== 'number') {
    throw new EdgeshifuError('invalid', `${where} did not answer /edgemap with an edgeMap snapshot (is --controller the edgeshifu controller?): ${body.slice(0, 200)}`);
  }
  return parsed as EdgeMapSnapshot;
}

export async function run(ctx: CliContext): Promise<number> {
  const controller = ctx.controller();
  const output = ctx.invocation.output;
  if (output === 'dot') {
    ctx.print(expectOk(await controller.get('/edgemap.dot'), controller, '/edgemap.dot'));
    return 0;
  }
  const snapshot = parseSnapshot(expectOk(await controller.get('/edgemap'), controller, '/edgemap'), controller.where);
  ctx.print(output === 'json' ? JSON.stringify(snapshot, null, 2) : renderEdgeMap(snapshot));
  return 0;
}
