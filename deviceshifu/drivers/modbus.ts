// Modbus TCP and RTU devices: each instruction names registers (protocolPropertyList: registerType,
// address, count, dataType, scale, byteOrder, wordOrder). GET reads them and answers the value as
// JSON; POST/PUT writes the JSON body. Instructions are checked when the configuration loads: a
// bad one is logged and answers 400 with the reason, the others work.
import { EdgeshifuError } from '../../shared/errors.ts';
import type { ModbusSetting } from '../../shared/crds/edgedevice.ts';
import type { Instruction } from '../config/types.ts';
import type { Driver, DriverContext, DriverRequest, DriverResponse } from './driver.ts';
import { hostPort } from './address.ts';
import { decodeBits, decodeRegisters, encodeBits, encodeRegisters, type ModbusValue } from './modbus-codec.ts';
import { parseModbusInstruction, type ModbusInstruction } from './modbus-instruction.ts';
import { ModbusLink, type LinkTarget } from './modbus-link.ts';

export const MODBUS_TCP_PORT = 502;

export function linkTarget(setting: ModbusSetting, address: string | undefined): LinkTarget {
  if (setting.mode === 'RTU') {
    if (setting.serialPath === undefined) throw new EdgeshifuError('invalid', 'ModbusSetting.mode RTU needs serialPath (the serial device, e.g. /dev/ttyUSB0)');
    if (setting.dataBits === 7 && (setting.parity ?? 'even') === 'none') throw new EdgeshifuError('invalid', 'ModbusSetting: dataBits 7 with parity none is not an RTU frame');
    return {
      mode: 'RTU', path: setting.serialPath, baudRate: setting.baudRate ?? 9600, parity: setting.parity ?? 'even',
      stopBits: setting.stopBits === 2 ? 2 : 1, dataBits: setting.dataBits === 7 ? 7 : 8,
    };
  }
  const target = hostPort(address, MODBUS_TCP_PORT);
  return { mode: 'TCP', host: target.host, port: target.port };
}

function reply(value: ModbusValue): DriverResponse {
  return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(value)) };
}

/** The value to write: a JSON body, or plain text (a bare string, number or true/false). */
export function writtenValue(body: Buffer): unknown {
  const text = body.toString('utf8');
  if (text.trim() === '') throw new EdgeshifuError('invalid', 'a Modbus write needs the value in the body (JSON, e.g. 21.5, true, "text" or [1, 2])');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function span(m: ModbusInstruction): string {
  return `${m.registerType} ${m.address}${m.count > 1 ? ` x${m.count}` : ''}`;
}

async function read(link: ModbusLink, m: ModbusInstruction, signal: AbortSignal): Promise<ModbusValue> {
  const what = `reading ${span(m)}`;
  switch (m.registerType) {
    case 'coil': return decodeBits(m.count, (await link.run(what, (c) => c.readCoils(m.address, m.count), signal)).data);
    case 'discreteInput': return decodeBits(m.count, (await link.run(what, (c) => c.readDiscreteInputs(m.address, m.count), signal)).data);
    case 'holding': return decodeRegisters(m, (await link.run(what, (c) => c.readHoldingRegisters(m.address, m.count), signal)).data);
    case 'input': return decodeRegisters(m, (await link.run(what, (c) => c.readInputRegisters(m.address, m.count), signal)).data);
  }
}

async function write(link: ModbusLink, m: ModbusInstruction, value: unknown, signal: AbortSignal): Promise<void> {
  const what = `writing ${span(m)}`;
  if (m.registerType === 'coil') {
    const bits = encodeBits(m.count, value);
    await link.run<unknown>(what, (c) => (bits.length === 1 ? c.writeCoil(m.address, bits[0] === true) : c.writeCoils(m.address, bits)), signal);
    return;
  }
  if (m.registerType !== 'holding') throw new EdgeshifuError('invalid', `${m.registerType === 'input' ? 'input registers' : 'discrete inputs'} are read-only in Modbus`);
  const registers = encodeRegisters(m, value);
  // function 6 for one register, 16 for several (some devices implement only one of them)
  await link.run<unknown>(what, (c) => (registers.length === 1 ? c.writeRegister(m.address, registers[0] ?? 0) : c.writeRegisters(m.address, registers)), signal);
}

export function createModbusDriver(context: DriverContext): Driver {
  const setting = context.spec.protocolSettings?.ModbusSetting ?? {};
  const layout = { byteOrder: setting.byteOrder ?? 'BigEndian', wordOrder: setting.wordOrder ?? 'BigEndian' } as const;
  const link = new ModbusLink({ target: linkTarget(setting, context.spec.address), unitId: setting.unitId ?? 1, timeoutMs: setting.timeoutMs ?? 1000, logger: context.logger });
  const parsed = new Map<string, ModbusInstruction | EdgeshifuError>();
  for (const instruction of context.config.instructions.values()) {
    try {
      parsed.set(instruction.name, parseModbusInstruction(instruction, layout));
    } catch (err) {
      parsed.set(instruction.name, err as EdgeshifuError);
      context.logger.error({ instruction: instruction.name, err: (err as Error).message }, 'Modbus instruction refused: it answers 400 until the ConfigMap is fixed');
    }
  }
  const modbusOf = (instruction: Instruction): ModbusInstruction => {
    const m = parsed.get(instruction.name) ?? parseModbusInstruction(instruction, layout);
    if (m instanceof EdgeshifuError) throw m;
    return m;
  };
  return {
    start: () => Promise.resolve(),
    stop: () => { link.close(); return Promise.resolve(); },
    call: async (instruction: Instruction, request: DriverRequest) => {
      const m = modbusOf(instruction);
      if (request.method === 'GET' || request.method === 'HEAD') return reply(await read(link, m, request.signal));
      const parsed = writtenValue(request.body);
      // a string instruction takes a JSON string, or the body's text as it is (curl -d 42)
      const value = m.dataType === 'string' && typeof parsed !== 'string' ? request.body.toString('utf8') : parsed;
      await write(link, m, value, request.signal);
      return reply({ written: value } as unknown as ModbusValue);
    },
    probe: (signal) => link.check(signal),
  };
}
