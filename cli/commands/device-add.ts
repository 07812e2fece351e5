// `edgeshifu device add`: registers a device as a Shifu user would, an EdgeDevice plus its
// deviceShifu ConfigMap, from a short form or a Shifu example folder, applied server-side under
// the field manager edgeshifu-cli (so running it again updates). The controller then places the
// device and writes its deviceShifu; --wait follows that until the deviceShifu is ready.
import { setTimeout as delay } from 'node:timers/promises';
import { stringify } from 'yaml';
import { EdgeshifuError, isEdgeshifuError } from '../../shared/errors.ts';
import { flag, listOption, numberOption, stringOption, UsageError, type CommandSpec, type Invocation } from '../args.ts';
import { paths, type ClusterAccess } from '../cluster.ts';
import type { CliContext } from '../context.ts';
import { shortFormManifests, type KubeObject } from '../device-manifests.ts';
import { conditionsText, deviceRow, type EdgeDevice } from '../format/devices.ts';
import { planDir, readShifuDir } from '../shifu-dir.ts';

const SHORT_FORM = ['protocol', 'address', 'instruction', 'telemetry', 'node', 'sku', 'connection', 'zone', 'latitude', 'longitude', 'mqtt-topic', 'config-map'] as const;

export const spec: CommandSpec = {
  name: 'device add',
  summary: 'register a device: an EdgeDevice and its deviceShifu ConfigMap, from a short form or a Shifu example folder',
  details: [
    'Short form: edgeshifu device add <name> --protocol <protocol> --address <host:port> --instruction <name[:R|W|RW]> ...',
    'Folder:     edgeshifu device add --from-dir <folder>   (Shifu\'s EdgeDevice and ConfigMap YAML; Shifu\'s own',
    '            deviceShifu Deployment and Service are skipped: the controller writes those)',
  ],
  positionals: [{ name: 'name', description: 'the EdgeDevice\'s name (also its deviceShifu Service\'s); short form only', optional: true }],
  options: {
    'from-dir': { type: 'string', short: 'f', value: 'folder', description: 'a Shifu device folder (or one YAML file) to apply' },
    protocol: { type: 'string', value: 'protocol', description: 'HTTP, HTTPCommandline, MQTT, Socket, TCP, OPCUA, PLC4X, LwM2M or USB' },
    address: { type: 'string', value: 'host:port', description: 'how deviceShifu reaches the device (for MQTT: the broker)' },
    instruction: { type: 'string', short: 'i', multiple: true, value: 'name[:R|W|RW]', description: 'an instruction deviceShifu serves (default access RW)' },
    telemetry: { type: 'string', multiple: true, value: 'instruction:ms', description: 'poll an instruction every ms milliseconds (the device\'s phase follows)' },
    node: { type: 'string', value: 'node', description: 'the node the device is plugged into (spec.attachedNode): its deviceShifu runs there' },
    sku: { type: 'string', value: 'sku', description: 'the device model (default: the name)' },
    connection: { type: 'string', value: 'kind', description: 'Ethernet (default), USB, Serial or Wireless' },
    zone: { type: 'string', value: 'zone', description: 'site zone (spec.location.zone): placement prefers nodes in it' },
    latitude: { type: 'string', value: 'degrees', description: 'with --longitude: placement prefers the closest node' },
    longitude: { type: 'string', value: 'degrees', description: 'with --latitude' },
    'mqtt-topic': { type: 'string', value: 'topic', description: 'MQTT: the device\'s default topic' },
    'config-map': { type: 'string', value: 'name', description: 'name of the ConfigMap to write (default <name>-configmap)' },
    namespace: { type: 'string', short: 'n', value: 'namespace', description: 'the EdgeDevice\'s namespace (default devices; with --from-dir: as in the files)' },
    'deviceshifu-namespace': { type: 'string', value: 'namespace', default: 'deviceshifu', description: 'where the ConfigMap goes (the controller\'s --device-shifu-namespace)' },
    'dry-run': { type: 'boolean', description: 'print the objects instead of applying them' },
    wait: { type: 'boolean', short: 'w', description: 'wait until the controller has placed the device and its deviceShifu is ready' },
    timeout: { type: 'string', value: 'seconds', default: '120', description: 'how long --wait waits' },
  },
  outputs: ['text', 'json', 'yaml'],
  examples: [
    'edgeshifu device add thermo --protocol HTTP --address 10.0.0.5:8080 --instruction read_value:R --instruction get_status:R',
    'edgeshifu device add arm --protocol HTTP --address 10.0.0.6:8080 -i get_coordinate:R --node edge-1 --wait',
    'edgeshifu device add --from-dir shifu/examples/deviceshifu/demo_device/edgedevice-thermometer',
  ],
};

function shortForm(invocation: Invocation): KubeObject[] {
  const name = invocation.positionals[0];
  const protocol = stringOption(invocation, 'protocol');
  if (name === undefined) throw new UsageError('give the device\'s <name> (or --from-dir <folder>)', spec.name);
  if (protocol === undefined) throw new UsageError('give --protocol (HTTP, MQTT, Socket, TCP, ...)', spec.name);
  const option = (key: string): string | undefined => stringOption(invocation, key);
  return shortFormManifests({
    name, protocol, namespace: option('namespace') ?? 'devices', deviceShifuNamespace: option('deviceshifu-namespace') ?? 'deviceshifu',
    address: option('address'), instructions: listOption(invocation, 'instruction'), telemetries: listOption(invocation, 'telemetry'),
    node: option('node'), sku: option('sku'), connection: option('connection'), zone: option('zone'), latitude: option('latitude'),
    longitude: option('longitude'), mqttTopic: option('mqtt-topic'), configMapName: option('config-map'),
  });
}

async function fromDir(ctx: CliContext, dir: string): Promise<KubeObject[]> {
  const { invocation } = ctx;
  const mixed = SHORT_FORM.filter((o) => invocation.values[o] !== undefined);
  if (mixed.length > 0 || invocation.positionals.length > 0) {
    throw new UsageError(`--from-dir takes everything from the folder: drop ${[...invocation.positionals, ...mixed.map((o) => `--${o}`)].join(', ')}`, spec.name);
  }
  const plan = planDir(await readShifuDir(dir), { namespace: stringOption(invocation, 'namespace'), deviceShifuNamespace: stringOption(invocation, 'deviceshifu-namespace') ?? 'deviceshifu' });
  for (const note of plan.notes) ctx.note(note);
  return [...plan.apply];
}

function objectPath(object: KubeObject): string {
  const { namespace = '', name = '' } = object.metadata;
  return object.kind === 'ConfigMap' ? paths.configMap(namespace, name) : paths.edgeDevice(namespace, name);
}

async function applyAll(cluster: ClusterAccess, objects: readonly KubeObject[]): Promise<KubeObject[]> {
  const applied: KubeObject[] = [];
  for (const object of objects) {
    const { namespace = '', name = '' } = object.metadata;
    const what = `apply ${object.kind} ${namespace}/${name}`;
    try {
      applied.push(await cluster.apply<KubeObject>(objectPath(object), object, what));
    } catch (err) {
      if (!isEdgeshifuError(err, 'not-found')) throw err;
      const fix = err.message.includes('namespaces') ? `create the namespace (kubectl create namespace ${namespace}) or pass --namespace` : 'is the EdgeDevice CRD installed (kubectl apply -k manifests/crds)?';
      throw new EdgeshifuError('not-found', `${err.message}: ${fix}`, { cause: err });
    }
  }
  return applied;
}

/** Polls the EdgeDevice until BundleReady=True (the controller's word that its deviceShifu runs). */
async function waitReady(ctx: CliContext, device: KubeObject, timeoutMs: number): Promise<EdgeDevice> {
  const { namespace = '', name = '' } = device.metadata;
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const current = await ctx.cluster().get<EdgeDevice>(paths.edgeDevice(namespace, name), `read EdgeDevice ${namespace}/${name}`);
    const row = deviceRow(current);
    const line = `${namespace}/${name}: node ${row.node ?? '<none>'}, phase ${row.phase ?? '<none>'}, ${conditionsText(row.conditions) || 'no conditions yet'}`;
    if (line !== last) ctx.note(line);
    last = line;
    if (row.conditions.some((c) => c.type === 'BundleReady' && c.status === 'True')) return current;
    if (Date.now() > deadline) {
      throw new EdgeshifuError('timeout', `${namespace}/${name} not ready after ${String(timeoutMs / 1000)} s (${line}): is the controller running (edgeshifu status)?`);
    }
    await delay(1000);
  }
}

function report(ctx: CliContext, applied: readonly KubeObject[], ready: readonly EdgeDevice[]): void {
  const output = ctx.invocation.output;
  const shown = applied.map(withoutManagedFields);
  if (output === 'json') ctx.print(JSON.stringify(ready.length > 0 ? [...shown.filter((o) => o.kind !== 'EdgeDevice'), ...ready.map(withoutManagedFields)] : shown, null, 2));
  else if (output === 'yaml') ctx.print(shown.map((o) => stringify(o)).join('---\n'));
  else {
    for (const o of applied) ctx.print(`${o.kind.toLowerCase()} ${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''} applied`);
    for (const device of ready) ctx.print(`${device.metadata.namespace ?? ''}/${device.metadata.name ?? ''}: deviceShifu ready on ${device.status?.nodeName ?? '?'}`);
  }
}

/** The API server's bookkeeping is noise in what the user reads. */
function withoutManagedFields<T extends { metadata: object }>(object: T): T {
  const metadata: Record<string, unknown> = { ...object.metadata };
  delete metadata.managedFields;
  return { ...object, metadata };
}

export async function run(ctx: CliContext): Promise<number> {
  const { invocation } = ctx;
  const dir = stringOption(invocation, 'from-dir');
  const objects = dir === undefined ? shortForm(invocation) : await fromDir(ctx, dir);
  if (flag(invocation, 'dry-run')) {
    ctx.print(invocation.output === 'json' ? JSON.stringify(objects, null, 2) : objects.map((o) => stringify(o)).join('---\n'));
    return 0;
  }
  const timeoutMs = numberOption(invocation, 'timeout', 120, 1) * 1000;
  const applied = await applyAll(ctx.cluster(), objects);
  const devices = applied.filter((o) => o.kind === 'EdgeDevice');
  const ready = flag(invocation, 'wait') ? await Promise.all(devices.map((d) => waitReady(ctx, d, timeoutMs))) : [];
  report(ctx, applied, ready);
  return 0;
}
