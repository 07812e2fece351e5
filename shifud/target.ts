// What shifud probes for an EdgeDevice, by protocol (deviceDiscoverer): a TCP connect,
// an HTTP GET of a health path, an MQTT broker connect, a look at the USB bus, or a stat of a
// Modbus RTU device's serial port. Pure.
import type { EdgeDeviceSpec } from '../shared/crds/edgedevice.ts';
import { parseEndpoint, type Parsed } from './address.ts';
import { usbIdentityOfSpec, type UsbIdentity } from './usb-match.ts';
import { PROBE_FUNCTIONS, type ModbusProbe } from './probes/modbus.ts';
import { isDevPath, rtuSerialPath } from '../shared/crds/modbus-setting.ts';

/** spec.customMetadata keys shifud reads for HTTP devices. */
export const HTTP_KEYS = { healthPath: 'healthPath', healthExpect: 'healthExpect' } as const;

export type ProbeTarget =
  | { readonly kind: 'tcp'; readonly host: string; readonly port: number }
  | { readonly kind: 'http'; readonly url: string; readonly expect?: string }
  | { readonly kind: 'mqtt'; readonly host: string; readonly port: number }
  | { readonly kind: 'usb'; readonly identity: UsbIdentity }
  | ({ readonly kind: 'modbus' } & ModbusProbe)
  /** A Modbus RTU device's serial port on this node (probes/serial.ts). */
  | { readonly kind: 'serial'; readonly path: string }
  /** Nothing shifud can probe; `why` says so in the condition. */
  | { readonly kind: 'none'; readonly why: string };

const URL_PORTS: Readonly<Record<string, number>> = {
  http: 80, https: 443, tcp: 0, mqtt: 1883, mqtts: 8883, 'opc.tcp': 4840,
  s7: 102, 'modbus-tcp': 502, modbus: 502, ads: 48898, eip: 44818,
};

function tcp(address: string | undefined, field: string, defaultPort?: number): Parsed<ProbeTarget> {
  const parsed = parseEndpoint(address ?? '', field, { schemes: URL_PORTS, ...(defaultPort === undefined ? {} : { port: defaultPort }) });
  if (!parsed.ok) return parsed;
  if (parsed.value.port === 0) return { ok: false, message: `${field} "${address ?? ''}" has no port: add :port after the host` };
  return { ok: true, value: { kind: 'tcp', host: parsed.value.host, port: parsed.value.port } };
}

function http(spec: EdgeDeviceSpec): Parsed<ProbeTarget> {
  const healthPath = spec.customMetadata?.[HTTP_KEYS.healthPath];
  if (healthPath === undefined) return tcp(spec.address, 'spec.address', 80);
  if (!healthPath.startsWith('/')) return { ok: false, message: `spec.customMetadata.${HTTP_KEYS.healthPath} "${healthPath}" must start with "/", e.g. "/health"` };
  const parsed = parseEndpoint(spec.address ?? '', 'spec.address', { port: 80, schemes: URL_PORTS });
  if (!parsed.ok) return parsed;
  const { host, port, scheme, path } = parsed.value;
  const base = `${scheme === 'https' ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}${path.replace(/\/$/, '')}`;
  const expect = spec.customMetadata?.[HTTP_KEYS.healthExpect];
  return { ok: true, value: { kind: 'http', url: `${base}${healthPath}`, ...(expect === undefined ? {} : { expect }) } };
}

function mqtt(spec: EdgeDeviceSpec): Parsed<ProbeTarget> {
  const server = spec.protocolSettings?.MQTTSetting?.MQTTServerAddress;
  const field = server === undefined ? 'spec.address' : 'spec.protocolSettings.MQTTSetting.MQTTServerAddress';
  const parsed = parseEndpoint(server ?? spec.address ?? '', field, { port: 1883, schemes: URL_PORTS });
  if (!parsed.ok) return parsed;
  const { host, port, scheme } = parsed.value;
  // TLS brokers get a TCP connect: shifud holds no broker credentials or CA
  return { ok: true, value: scheme === 'mqtts' ? { kind: 'tcp', host, port } : { kind: 'mqtt', host, port } };
}

/** spec.customMetadata key naming the register a Modbus probe reads, "<registerType>:<address>". */
export const MODBUS_PROBE_KEY = 'modbusProbeRegister';

function modbus(spec: EdgeDeviceSpec): Parsed<ProbeTarget> {
  const serialPath = rtuSerialPath(spec);
  if (serialPath !== undefined) return isDevPath(serialPath) ? { ok: true, value: { kind: 'serial', path: serialPath } } : { ok: false, message: `spec.protocolSettings.ModbusSetting.serialPath "${serialPath}" must be a path under /dev, e.g. /dev/ttyUSB0` };
  const endpoint = tcp(spec.address, 'spec.address', 502);
  const register = spec.customMetadata?.[MODBUS_PROBE_KEY];
  if (!endpoint.ok || endpoint.value.kind !== 'tcp' || register === undefined) return endpoint;
  const match = /^(coil|discreteInput|holding|input):(\d{1,5})$/.exec(register);
  const address = Number(match?.[2] ?? -1);
  if (match === null || address > 0xffff) {
    return { ok: false, message: `spec.customMetadata.${MODBUS_PROBE_KEY} "${register}" must be <registerType>:<address>, registerType one of ${Object.keys(PROBE_FUNCTIONS).join(', ')} and address 0-65535, e.g. "holding:0"` };
  }
  const { host, port } = endpoint.value;
  return { ok: true, value: { kind: 'modbus', host, port, unitId: spec.protocolSettings?.ModbusSetting?.unitId ?? 1, registerType: match[1] as keyof typeof PROBE_FUNCTIONS, address } };
}

const NOT_PROBED = (why: string) => (): Parsed<ProbeTarget> => ({ ok: true, value: { kind: 'none', why } });
const tcpAddress = (spec: EdgeDeviceSpec): Parsed<ProbeTarget> => tcp(spec.address, 'spec.address');

const BY_PROTOCOL: Readonly<Record<EdgeDeviceSpec['protocol'], (spec: EdgeDeviceSpec) => Parsed<ProbeTarget>>> = {
  HTTP: http,
  HTTPCommandline: http,
  MQTT: mqtt,
  TCP: tcpAddress,
  Socket: tcpAddress,
  PLC4X: tcpAddress,
  OPCUA: (spec) => tcp(spec.protocolSettings?.OPCUASetting?.OPCUAEndpoint ?? spec.address, 'spec.address', 4840),
  Modbus: modbus,
  LwM2M: NOT_PROBED('an LwM2M device registers with its deviceShifu; shifud does not probe it'),
  USB: NOT_PROBED('declare spec.usb {vendorId, productId} (or spec.customMetadata usbVendorId and usbProductId, hex) so shifud can find the device on the USB bus'),
};

/** The probe for a device: its USB identity when it declares one, else by protocol. */
export function probeTargetOf(spec: EdgeDeviceSpec): Parsed<ProbeTarget> {
  const usb = usbIdentityOfSpec(spec);
  if (usb !== undefined) return usb.ok ? { ok: true, value: { kind: 'usb', identity: usb.value } } : usb;
  if (spec.connection === 'Serial' && rtuSerialPath(spec) === undefined) return { ok: true, value: { kind: 'none', why: 'serial devices are not probed by shifud' } };
  return BY_PROTOCOL[spec.protocol](spec);
}

export function describeTarget(target: ProbeTarget): string {
  switch (target.kind) {
    case 'tcp':
    case 'mqtt':
      return `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
    case 'http':
      return target.url;
    case 'modbus':
      return `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port} unit ${target.unitId} ${target.registerType} ${target.address}`;
    case 'usb':
      return `USB ${target.identity.vendorId}:${target.identity.productId}${target.identity.serial === undefined ? '' : ` serial ${target.identity.serial}`}`;
    case 'serial':
      return `serial port ${target.path}`;
    case 'none':
      return 'nothing to probe';
  }
}
