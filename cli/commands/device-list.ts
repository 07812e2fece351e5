// `edgeshifu device list`: the EdgeDevices with protocol, address, node, phase and conditions.
import { stringOption, type CommandSpec } from '../args.ts';
import { crdMissing, paths } from '../cluster.ts';
import type { CliContext } from '../context.ts';
import { deviceRow, renderDevices, sortRows, type EdgeDevice } from '../format/devices.ts';

export const spec: CommandSpec = {
  name: 'device list',
  summary: 'list the EdgeDevices with their protocol, node, phase and conditions',
  positionals: [],
  options: {
    namespace: { type: 'string', short: 'n', value: 'namespace', description: 'only this namespace (default: every namespace)' },
  },
  outputs: ['text', 'json'],
  examples: ['edgeshifu device list', 'edgeshifu device list -n devices -o json'],
};

export async function run(ctx: CliContext): Promise<number> {
  const namespace = stringOption(ctx.invocation, 'namespace');
  const devices = await ctx.cluster().list<EdgeDevice>(paths.edgeDevices(namespace), 'list EdgeDevices').catch((err: unknown) => {
    throw crdMissing(err, 'EdgeDevice') ?? err;
  });
  const rows = sortRows(devices.map(deviceRow));
  ctx.print(ctx.invocation.output === 'json' ? JSON.stringify(rows, null, 2) : renderDevices(rows, ctx.now()));
  return 0;
}
