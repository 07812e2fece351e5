// `edgeshifu device rm`: deletes an EdgeDevice (the controller's finalizer then removes its
// deviceShifu), and the ConfigMap `device add` wrote for it unless another device still uses it.
import { setTimeout as delay } from 'node:timers/promises';
import { EdgeshifuError } from '../../shared/errors.ts';
import { flag, numberOption, stringOption, UsageError, type CommandSpec } from '../args.ts';
import { crdMissing, paths, type ClusterAccess } from '../cluster.ts';
import type { CliContext } from '../context.ts';
import { MANAGED_BY_CLI, MANAGED_BY_LABEL } from '../device-manifests.ts';
import type { EdgeDevice } from '../format/devices.ts';

export const spec: CommandSpec = {
  name: 'device rm',
  summary: 'remove an EdgeDevice (its deviceShifu goes with it) and the ConfigMap `device add` wrote for it',
  details: ['A ConfigMap that edgeshifu did not write, or that another EdgeDevice still names, is left in place.'],
  positionals: [{ name: 'name', description: 'the EdgeDevice' }],
  options: {
    namespace: { type: 'string', short: 'n', value: 'namespace', description: 'its namespace (default: wherever the only EdgeDevice of that name is)' },
    'deviceshifu-namespace': { type: 'string', value: 'namespace', default: 'deviceshifu', description: 'where its ConfigMap is' },
    'keep-config': { type: 'boolean', description: 'leave its ConfigMap in place' },
    wait: { type: 'boolean', short: 'w', description: 'wait until the controller has removed the deviceShifu and the EdgeDevice is gone' },
    timeout: { type: 'string', value: 'seconds', default: '120', description: 'how long --wait waits' },
  },
  outputs: ['text', 'json'],
  examples: ['edgeshifu device rm thermo', 'edgeshifu device rm thermo -n devices --wait'],
};

async function findDevice(cluster: ClusterAccess, name: string, namespace: string | undefined): Promise<EdgeDevice> {
  const candidates = await cluster.list<EdgeDevice>(paths.edgeDevices(namespace), 'list EdgeDevices', { fieldSelector: `metadata.name=${name}` })
    .catch((err: unknown) => { throw crdMissing(err, 'EdgeDevice') ?? err; });
  const [only] = candidates;
  if (only === undefined) throw new EdgeshifuError('not-found', `no EdgeDevice named ${name}${namespace === undefined ? '' : ` in namespace ${namespace}`} (edgeshifu device list shows them)`);
  if (candidates.length > 1) {
    throw new UsageError(`EdgeDevice ${name} exists in namespaces ${candidates.map((d) => d.metadata.namespace ?? '').join(', ')}: pass --namespace`, spec.name);
  }
  return only;
}

/** Deletes the ConfigMap when edgeshifu wrote it and no other EdgeDevice names it; says what it did. */
async function removeConfigMap(cluster: ClusterAccess, device: EdgeDevice, namespace: string): Promise<string | undefined> {
  const name = device.spec.configMapName;
  if (name === undefined) return undefined;
  const configMap = await cluster.find<{ metadata: { labels?: Record<string, string> } }>(paths.configMap(namespace, name), `read ConfigMap ${namespace}/${name}`);
  if (configMap === undefined) return undefined;
  if (configMap.metadata.labels?.[MANAGED_BY_LABEL] !== MANAGED_BY_CLI) return `configmap ${namespace}/${name} left in place (not written by edgeshifu device add)`;
  const users = (await cluster.list<EdgeDevice>(paths.edgeDevices(), 'list EdgeDevices'))
    .filter((d) => d.spec.configMapName === name && d.metadata.uid !== device.metadata.uid);
  if (users.length > 0) return `configmap ${namespace}/${name} left in place (also used by ${users.map((d) => `${d.metadata.namespace ?? ''}/${d.metadata.name ?? ''}`).join(', ')})`;
  await cluster.delete(paths.configMap(namespace, name), `delete ConfigMap ${namespace}/${name}`);
  return `configmap ${namespace}/${name} deleted`;
}

async function waitGone(cluster: ClusterAccess, path: string, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await cluster.find(path, `read ${what}`)) !== undefined) {
    if (Date.now() > deadline) throw new EdgeshifuError('timeout', `${what} still there after ${String(timeoutMs / 1000)} s: its finalizer waits for the controller (is it running? edgeshifu status)`);
    await delay(500);
  }
}

export async function run(ctx: CliContext): Promise<number> {
  const { invocation } = ctx;
  const [name = ''] = invocation.positionals;
  const cluster = ctx.cluster();
  const timeoutMs = numberOption(invocation, 'timeout', 120, 1) * 1000;
  const device = await findDevice(cluster, name, stringOption(invocation, 'namespace'));
  const namespace = device.metadata.namespace ?? '';
  const path = paths.edgeDevice(namespace, name);
  await cluster.delete(path, `delete EdgeDevice ${namespace}/${name}`);
  const done = [`edgedevice ${namespace}/${name} deleted`];
  if (!flag(invocation, 'keep-config')) {
    const note = await removeConfigMap(cluster, device, stringOption(invocation, 'deviceshifu-namespace') ?? 'deviceshifu');
    if (note !== undefined) done.push(note);
  }
  if (flag(invocation, 'wait')) {
    await waitGone(cluster, path, `EdgeDevice ${namespace}/${name}`, timeoutMs);
    done.push(`edgedevice ${namespace}/${name} gone, and its deviceShifu with it`);
  }
  ctx.print(invocation.output === 'json' ? JSON.stringify({ namespace, name, done }, null, 2) : done.join('\n'));
  return 0;
}
