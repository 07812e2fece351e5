// Modbus TCP devices with a probe register (spec.customMetadata.modbusProbeRegister, e.g.
// "holding:0"): one read request of that register, and the device is there when a Modbus reply
// with our transaction id comes back, a value or an exception. The frame is a dozen bytes (Modbus
// Messaging on TCP/IP: a 7-byte MBAP header, then function code, address and quantity), so shifud
// loads no Modbus library for it.
import { exchange } from './connection.ts';
import { failureOutcome, type ProbeOutcome } from './outcome.ts';

export const PROBE_FUNCTIONS = { coil: 1, discreteInput: 2, holding: 3, input: 4 } as const;
export type ProbeRegisterType = keyof typeof PROBE_FUNCTIONS;

export interface ModbusProbe {
  readonly host: string;
  readonly port: number;
  readonly unitId: number;
  readonly registerType: ProbeRegisterType;
  readonly address: number;
}

/** Read one register (or bit): MBAP (transaction, protocol 0, length 6, unit) + function, address, quantity 1. */
export function readRequest(transaction: number, probe: ModbusProbe): Buffer {
  const frame = Buffer.alloc(12);
  frame.writeUInt16BE(transaction, 0);
  frame.writeUInt16BE(0, 2);
  frame.writeUInt16BE(6, 4);
  frame.writeUInt8(probe.unitId, 6);
  frame.writeUInt8(PROBE_FUNCTIONS[probe.registerType], 7);
  frame.writeUInt16BE(probe.address, 8);
  frame.writeUInt16BE(1, 10);
  return frame;
}

/** What the first 9 bytes of the reply say: a Modbus answer to our request, or something else. */
export function readReply(reply: Buffer, transaction: number, probe: ModbusProbe): { modbus: boolean; exception?: number } {
  if (reply.length < 9 || reply.readUInt16BE(0) !== transaction || reply.readUInt16BE(2) !== 0) return { modbus: false };
  const fn = PROBE_FUNCTIONS[probe.registerType];
  const code = reply.readUInt8(7);
  if (code === fn) return { modbus: true };
  if (code === (fn | 0x80)) return { modbus: true, exception: reply.readUInt8(8) };
  return { modbus: false };
}

export async function probeModbus(probe: ModbusProbe, signal: AbortSignal, timeoutMs: number): Promise<ProbeOutcome> {
  const target = `Modbus device ${probe.host.includes(':') ? `[${probe.host}]` : probe.host}:${probe.port} unit ${probe.unitId}`;
  const transaction = Math.floor(Math.random() * 0xffff);
  const result = await exchange({ host: probe.host, port: probe.port, signal, greeting: readRequest(transaction, probe), replyBytes: 9 });
  if (result.kind === 'failed') return failureOutcome(result.error, target);
  if (result.kind === 'timeout') {
    return result.connected
      ? { kind: 'hung', detail: `${target} accepted the connection but did not answer reading ${probe.registerType} ${probe.address} within ${timeoutMs} ms (a device with another unit id stays silent)` }
      : { kind: 'timeout', detail: `no connection to ${target} within ${timeoutMs} ms` };
  }
  const seen = readReply(result.reply ?? Buffer.alloc(0), transaction, probe);
  if (!seen.modbus) return { kind: 'wrong-protocol', detail: `${target} answered, but not with a Modbus reply: is it a Modbus TCP device?` };
  if (seen.exception !== undefined) {
    return { kind: 'answered', detail: `${target} answered reading ${probe.registerType} ${probe.address} with Modbus exception ${seen.exception}: it is there, but check customMetadata.modbusProbeRegister` };
  }
  return { kind: 'answered', detail: `${target} answered reading ${probe.registerType} ${probe.address}` };
}
