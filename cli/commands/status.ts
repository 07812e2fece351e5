// `edgeshifu status`: the controller (reachable? ready? leading?), the nodes, the devices with
// their phases and conditions, and the federation peers, read in parallel. It prints what it could
// read and exits 1 when some part could not be read.
import type { V1Lease, V1Node } from '@kubernetes/client-node';
import type { CommandSpec } from '../args.ts';
import { crdMissing, paths, type ClusterAccess } from '../cluster.ts';
import { CONTROLLER_SERVICE } from '../connection.ts';
import type { CliContext } from '../context.ts';
import { deviceRow, sortRows, type EdgeDevice } from '../format/devices.ts';
import { controllerReport, nodeRows, peerRow, renderStatus, type ControllerFacts, type EdgeNode, type Federation, type StatusReport } from '../format/status.ts';
import type { ControllerAccess } from '../controller-access.ts';
import { errorMessage } from '../../shared/errors.ts';

export const spec: CommandSpec = {
  name: 'status',
  summary: 'the controller, the nodes, the devices with their phases, and the federation peers',
  details: ['Exits 1 when the API server or the controller cannot be read (what could be read is still printed).'],
  positionals: [],
  options: {},
  outputs: ['text', 'json'],
  examples: ['edgeshifu status', 'edgeshifu status -o json | jq .devices'],
};

function message(err: unknown): string {
  return errorMessage(err);
}

async function controllerFacts(controller: ControllerAccess, cluster: ClusterAccess | undefined): Promise<ControllerFacts> {
  const lease = cluster === undefined ? undefined
    : await cluster.find<V1Lease>(paths.lease(CONTROLLER_SERVICE.namespace, CONTROLLER_SERVICE.service), 'read the controller\'s Lease').catch(() => undefined);
  try {
    const [readyz, metrics] = await Promise.all([controller.get('/readyz'), controller.get('/metrics')]);
    return { where: controller.where, readyz, metrics: metrics.status === 200 ? metrics.body : undefined, lease };
  } catch (err) {
    return { where: controller.where, lease, error: message(err) };
  }
}

interface ClusterFacts {
  readonly nodes: V1Node[];
  readonly edgeNodes: EdgeNode[];
  readonly devices: EdgeDevice[];
  readonly federations: Federation[];
}

async function clusterFacts(cluster: ClusterAccess, problems: string[]): Promise<ClusterFacts> {
  const read = async <T>(kind: string, path: string, custom: boolean): Promise<T[]> => {
    try {
      return await cluster.list<T>(path, `list ${kind}s`);
    } catch (err) {
      problems.push(message((custom ? crdMissing(err, kind) : undefined) ?? err));
      return [];
    }
  };
  const [nodes, edgeNodes, devices, federations] = await Promise.all([
    read<V1Node>('Node', paths.nodes(), false),
    read<EdgeNode>('EdgeNode', paths.edgeNodes(), true),
    read<EdgeDevice>('EdgeDevice', paths.edgeDevices(), true),
    read<Federation>('Federation', paths.federations(), true),
  ]);
  return { nodes, edgeNodes, devices, federations };
}

export async function gatherStatus(ctx: CliContext): Promise<StatusReport> {
  const cluster = ctx.cluster();
  const problems: string[] = [];
  const reachable = await cluster.get('/version', 'read the API server version').then(() => true, (err: unknown) => { problems.push(message(err)); return false; });
  const [facts, controller] = await Promise.all([
    reachable ? clusterFacts(cluster, problems) : Promise.resolve({ nodes: [], edgeNodes: [], devices: [], federations: [] }),
    controllerFacts(ctx.controller(), reachable ? cluster : undefined),
  ]);
  const now = ctx.now();
  return {
    kubernetes: { server: cluster.server, kubeconfig: cluster.kubeconfig.path, context: cluster.context, reachable },
    controller: controllerReport(controller, now),
    nodes: nodeRows(facts.nodes, facts.edgeNodes, now),
    devices: sortRows(facts.devices.map(deviceRow)),
    federation: sortRows(facts.federations.map(peerRow)),
    problems,
  };
}

export async function run(ctx: CliContext): Promise<number> {
  const report = await gatherStatus(ctx);
  ctx.print(ctx.invocation.output === 'json' ? JSON.stringify(report, null, 2) : renderStatus(report, ctx.now()));
  return report.problems.length === 0 && report.controller.reachable ? 0 : 1;
}
