// Modbus test fixtures: the mock's register map as deviceShifu instructions, a gateway on a
// Modbus device (TCP, or RTU over a socat pty pair), and a small client for the replies.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { stringify } from 'yaml';
import { HOLDING_VALUES } from '../../../deviceshifu/mockdevice/modbus-registers.ts';
import { startModbusDevice, type RunningModbusDevice } from '../../../deviceshifu/mockdevice/modbus-device.ts';
import type { ModbusSetting } from '../../../shared/crds/edgedevice.ts';
import { waitFor } from '../../support/wait.ts';
import { startGateway, type TestGateway } from './device-shifu.ts';

const H = HOLDING_VALUES;
type Props = Record<string, string>;
const holding = (address: number, dataType: string, extra: Props = {}): Props => ({ registerType: 'holding', address: String(address), dataType, ...extra });

/** Instruction name → its protocolPropertyList and readWrite, and the value the mock holds. */
export const MODBUS_INSTRUCTIONS: Readonly<Record<string, { props: Props; readWrite?: string; expect?: unknown }>> = {
  int16: { props: holding(H.int16.address, 'int16'), expect: H.int16.value },
  uint16: { props: holding(H.uint16.address, 'uint16'), expect: H.uint16.value },
  int32: { props: holding(H.int32.address, 'int32'), expect: H.int32.value },
  uint32: { props: holding(H.uint32.address, 'uint32'), expect: H.uint32.value },
  float32: { props: holding(H.float32.address, 'float32'), expect: H.float32.value },
  float64: { props: holding(H.float64.address, 'float64'), expect: H.float64.value },
  string: { props: holding(H.string.address, 'string', { count: String(H.string.count) }), expect: H.string.value },
  float32CDAB: { props: holding(H.float32CDAB.address, 'float32', { wordOrder: 'LittleEndian' }), expect: 21.5 },
  float32BADC: { props: holding(H.float32BADC.address, 'float32', { byteOrder: 'LittleEndian' }), expect: 21.5 },
  float32DCBA: { props: holding(H.float32DCBA.address, 'float32', { byteOrder: 'LittleEndian', wordOrder: 'LittleEndian' }), expect: 21.5 },
  int32CDAB: { props: holding(H.int32CDAB.address, 'int32', { wordOrder: 'LittleEndian' }), expect: H.int32CDAB.value },
  temperature: { props: holding(H.temperatureTenths.address, 'uint16', { scale: '0.1' }), expect: 21.5 },
  pressure: { props: { registerType: 'input', address: '2', dataType: 'float32' }, readWrite: 'R', expect: 1013.25 },
  coils: { props: { registerType: 'coil', address: '0', count: '4' }, expect: [true, false, false, true] },
  coil0: { props: { registerType: 'coil', address: '0' }, expect: true },
  inputs: { props: { registerType: 'discreteInput', address: '0', count: '3' }, readWrite: 'R', expect: [true, false, true] },
  scratch: { props: holding(H.scratch.address, 'uint16') },
  outOfMap: { props: holding(150, 'uint16', { count: '60' }) },
  busy: { props: holding(900, 'uint16') },
  failure: { props: holding(901, 'uint16') },
  closes: { props: holding(902, 'uint16') },
};

export function instructionsYaml(extra: Readonly<Record<string, { props: Props; readWrite?: string }>> = {}): string {
  const all = { ...MODBUS_INSTRUCTIONS, ...extra };
  return stringify({ instructions: Object.fromEntries(Object.entries(all).map(([name, i]) => [name, { readWrite: i.readWrite ?? 'RW', protocolPropertyList: i.props }])) });
}

export async function modbusGateway(t: ExecutionContext, setting: ModbusSetting, address?: string, extra: Parameters<typeof instructionsYaml>[0] = {}): Promise<TestGateway> {
  return startGateway(t, { data: { instructions: instructionsYaml(extra) }, spec: { protocol: 'Modbus', ...(address === undefined ? {} : { address }), protocolSettings: { ModbusSetting: setting } } });
}

export async function tcpDevice(t: ExecutionContext, unitId = 1): Promise<RunningModbusDevice> {
  const device = await startModbusDevice({ host: '127.0.0.1', port: 0, unitId });
  t.teardown(() => device.close());
  return device;
}

/**
 * Two linked pseudo-terminals from socat: what one end writes the other reads, as a null-modem
 * cable. `gatewayOwner` gives the gateway's end to that uid (and only to it), as a pod's user.
 */
export async function ptyPair(t: ExecutionContext, gatewayOwner?: number): Promise<{ device: string; gateway: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'modbus-pty-'));
  const device = join(dir, 'device');
  const gateway = join(dir, 'gateway');
  const owner = gatewayOwner === undefined ? '' : `,user=${gatewayOwner},group=${gatewayOwner},perm=0600`;
  const socat = spawn('socat', [`pty,raw,echo=0,link=${device}`, `pty,raw,echo=0,link=${gateway}${owner}`], { stdio: 'ignore' });
  let exited = false;
  socat.once('exit', () => { exited = true; });
  t.teardown(async () => {
    socat.kill();
    await rm(dir, { recursive: true, force: true });
  });
  await waitFor('socat\'s pty pair', async () => ((await stat(device).catch(() => undefined)) && (await stat(gateway).catch(() => undefined)) ? true : undefined), {
    timeoutMs: 10_000, intervalMs: 20, abortIf: () => (exited ? 'socat exited' : undefined),
  });
  return { device, gateway };
}

export async function rtuDevice(t: ExecutionContext, path: string, unitId = 1): Promise<RunningModbusDevice> {
  const device = await startModbusDevice({ host: '127.0.0.1', port: 0, serialPath: path, baudRate: 19200, unitId });
  t.teardown(() => device.close());
  return device;
}

export interface Reply { readonly status: number; readonly body: unknown }

export async function call(gateway: TestGateway, name: string, write?: unknown): Promise<Reply> {
  const response = await gateway.get(`/${name}`, write === undefined ? {} : { method: 'POST', body: typeof write === 'string' ? write : JSON.stringify(write) });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) as unknown };
}

export function errorMessage(reply: Reply): string {
  return (reply.body as { error?: { message?: string } } | undefined)?.error?.message ?? JSON.stringify(reply.body);
}
