// The EdgeDevice and deviceShifu ConfigMap a Shifu user would write, from `device add`'s short
// form (pure): Shifu's shapes (driverProperties, instructions, telemetries as YAML strings) plus
// edgeshifu's `configMapName`. Mistakes are UsageErrors naming the flag.
import { stringify } from 'yaml';
import { API_VERSION } from '../shared/crds/resources.ts';
import { PROTOCOLS, CONNECTIONS, type EdgeDeviceSpec, type Protocol } from '../shared/crds/edgedevice.ts';
import { bundleNames } from '../controller/bundle/names.ts';
import { UsageError } from './args.ts';

export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY_CLI = 'edgeshifu-cli';
const COMMAND = 'device add';

export interface ShortForm {
  readonly name: string;
  readonly namespace: string;
  readonly deviceShifuNamespace: string;
  readonly protocol: string;
  readonly address?: string;
  /** `name`, `name:R`, `name:W` or `name:RW`. */
  readonly instructions: readonly string[];
  /** `instruction:intervalMs`: deviceShifu polls it and keeps the phase from the answer. */
  readonly telemetries: readonly string[];
  /** EdgeNode the device is plugged into (spec.attachedNode): its deviceShifu runs there. */
  readonly node?: string;
  readonly sku?: string;
  readonly connection?: string;
  readonly zone?: string;
  readonly latitude?: string;
  readonly longitude?: string;
  readonly mqttTopic?: string;
  readonly configMapName?: string;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  const found = allowed.find((a) => a.toLowerCase() === value.toLowerCase());
  if (found === undefined) throw new UsageError(`--${flag} ${value} is not one of ${allowed.join(', ')}`, COMMAND);
  return found;
}

function instructionEntry(raw: string): [string, { readWrite: string }] {
  const [name = '', access = 'RW', ...more] = raw.split(':');
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name) || more.length > 0) {
    throw new UsageError(`--instruction ${raw}: write name or name:R, name:W, name:RW (letters, digits, _ . -)`, COMMAND);
  }
  const readWrite = access.toUpperCase();
  if (!['R', 'W', 'RW'].includes(readWrite)) throw new UsageError(`--instruction ${raw}: the access after ":" is R, W or RW`, COMMAND);
  return [name, { readWrite }];
}

function telemetryEntry(raw: string, instructions: ReadonlySet<string>): [string, unknown] {
  const [instruction = '', interval = '', ...more] = raw.split(':');
  const intervalMs = Number(interval);
  if (!instructions.has(instruction) || !Number.isInteger(intervalMs) || intervalMs < 1 || more.length > 0) {
    throw new UsageError(`--telemetry ${raw}: write instruction:intervalMs with one of the --instruction names and a whole number of milliseconds`, COMMAND);
  }
  return [`${instruction}_telemetry`, { properties: { instruction, initialDelayMs: 1000, intervalMs } }];
}

function coordinate(flag: string, raw: string | undefined, limit: number): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || Number.isNaN(value) || Math.abs(value) > limit) throw new UsageError(`--${flag} ${raw}: a number from -${String(limit)} to ${String(limit)}`, COMMAND);
  return value;
}

function location(form: ShortForm): EdgeDeviceSpec['location'] {
  const latitude = coordinate('latitude', form.latitude, 90);
  const longitude = coordinate('longitude', form.longitude, 180);
  if ((latitude === undefined) !== (longitude === undefined)) throw new UsageError('--latitude and --longitude go together', COMMAND);
  if (form.zone === undefined && latitude === undefined) return undefined;
  return { ...(form.zone === undefined ? {} : { zone: form.zone }), ...(latitude === undefined ? {} : { latitude, longitude }) };
}

function configMapData(form: ShortForm): Record<string, string> {
  if (form.instructions.length === 0) throw new UsageError('give at least one --instruction (e.g. --instruction read_value:R): deviceShifu serves only the instructions its ConfigMap names', COMMAND);
  const instructions = Object.fromEntries(form.instructions.map(instructionEntry));
  const names = new Set(Object.keys(instructions));
  const data: Record<string, string> = {
    driverProperties: stringify({ driverSku: form.sku ?? form.name, driverImage: '' }),
    instructions: stringify({ instructions }),
  };
  if (form.telemetries.length > 0) data.telemetries = stringify({ telemetries: Object.fromEntries(form.telemetries.map((t) => telemetryEntry(t, names))) });
  return data;
}

function deviceSpec(form: ShortForm, protocol: Protocol, configMapName: string): EdgeDeviceSpec {
  const where = location(form);
  return {
    sku: form.sku ?? form.name,
    connection: form.connection === undefined ? 'Ethernet' : oneOf('connection', form.connection, CONNECTIONS),
    protocol,
    ...(form.address === undefined ? {} : { address: form.address }),
    ...(form.mqttTopic === undefined ? {} : { protocolSettings: { MQTTSetting: { MQTTTopic: form.mqttTopic } } }),
    ...(form.node === undefined ? {} : { attachedNode: form.node }),
    ...(where === undefined ? {} : { location: where }),
    configMapName,
  };
}

/** The ConfigMap (first: the controller needs it) and the EdgeDevice. */
export function shortFormManifests(form: ShortForm): [KubeObject, KubeObject] {
  try {
    // the name must also name the deviceShifu Service: the controller's own rule
    bundleNames({ name: form.name, namespace: form.namespace });
  } catch (err) {
    throw new UsageError((err as Error).message, COMMAND);
  }
  const protocol = oneOf('protocol', form.protocol, PROTOCOLS);
  if (form.mqttTopic !== undefined && protocol !== 'MQTT') throw new UsageError('--mqtt-topic is for --protocol MQTT', COMMAND);
  const configMapName = form.configMapName ?? `${form.name}-configmap`;
  const labels = { [MANAGED_BY_LABEL]: MANAGED_BY_CLI };
  const configMap: KubeObject = {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: configMapName, namespace: form.deviceShifuNamespace, labels: { ...labels, 'shifu.edgenesis.io/edgedevice': form.name } },
    data: configMapData(form),
  };
  const edgeDevice: KubeObject = {
    apiVersion: API_VERSION, kind: 'EdgeDevice',
    metadata: { name: form.name, namespace: form.namespace, labels },
    spec: deviceSpec(form, protocol, configMapName),
  };
  return [configMap, edgeDevice];
}
