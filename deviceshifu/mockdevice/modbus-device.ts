// A Modbus device, TCP or RTU (on a serial line: a real one or one end of a socat pty pair), serving
// ModbusMemory through modbus-serial's server. It answers one unit id only, as a real device
// does; other unit ids get no answer. Holding registers 900-902 misbehave on purpose.
import { createServer, type AddressInfo } from 'node:net';
import modbusSerial from 'modbus-serial';
import { BITS_SIZE, HOLDING_SIZE, INPUT_SIZE, ModbusMemory, SPECIAL } from './modbus-registers.ts';
import type { RunningMock } from './http-device.ts';

export interface ModbusDeviceOptions {
  readonly host: string;
  /** 0 = any free port. */
  readonly port: number;
  /** RTU on this serial device instead of TCP. */
  readonly serialPath?: string;
  readonly baudRate?: number;
  readonly unitId?: number;
}

export interface RunningModbusDevice extends RunningMock {
  readonly memory: ModbusMemory;
  /** Drops every TCP connection, as a device that restarts. */
  readonly dropConnections: () => void;
}

class ModbusFault extends Error {
  readonly modbusErrorCode: number;
  constructor(code: number, message: string) {
    super(message);
    this.modbusErrorCode = code;
  }
}

function inRange(start: number, length: number, size: number, what: string): void {
  if (start + length > size) throw new ModbusFault(0x02, `${what} ${start}-${start + length - 1} outside 0-${size - 1}`);
}

async function freePort(host: string): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, host, resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => { probe.close(() => { resolve(); }); });
  return port;
}

export async function startModbusDevice(options: ModbusDeviceOptions): Promise<RunningModbusDevice> {
  const memory = new ModbusMemory();
  const ticker = setInterval(() => { memory.tick(); }, 1000);
  ticker.unref();
  let drop = (): void => undefined;
  const holding = (address: number, length: number): number[] => {
    if (address <= SPECIAL.busy && address + length > SPECIAL.busy) throw new ModbusFault(0x06, 'busy');
    if (address <= SPECIAL.failure && address + length > SPECIAL.failure) throw new ModbusFault(0x04, 'failure');
    if (address <= SPECIAL.closes && address + length > SPECIAL.closes) { drop(); return []; }
    inRange(address, length, HOLDING_SIZE, 'holding registers');
    return Array.from(memory.holding.subarray(address, address + length));
  };
  const vector = {
    getHoldingRegister: (address: number) => holding(address, 1)[0] ?? 0,
    getMultipleHoldingRegisters: (address: number, length: number) => holding(address, length),
    getInputRegister: (address: number) => { inRange(address, 1, INPUT_SIZE, 'input registers'); return memory.input[address] ?? 0; },
    getMultipleInputRegisters: (address: number, length: number) => { inRange(address, length, INPUT_SIZE, 'input registers'); return Array.from(memory.input.subarray(address, address + length)); },
    getCoil: (address: number) => { inRange(address, 1, BITS_SIZE, 'coils'); return memory.coils[address] === true; },
    getDiscreteInput: (address: number) => { inRange(address, 1, BITS_SIZE, 'discrete inputs'); return memory.discrete[address] === true; },
    setRegister: (address: number, value: number) => { inRange(address, 1, HOLDING_SIZE, 'holding registers'); memory.holding[address] = value; },
    setRegisterArray: (address: number, values: number[]) => { inRange(address, values.length, HOLDING_SIZE, 'holding registers'); memory.holding.set(values, address); },
    setCoil: (address: number, value: boolean) => { inRange(address, 1, BITS_SIZE, 'coils'); memory.coils[address] = value; },
  };
  const unitID = options.unitId ?? 1;
  if (options.serialPath !== undefined) {
    const server = new modbusSerial.ServerSerial(vector, { path: options.serialPath, baudRate: options.baudRate ?? 9600, unitID });
    server.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => { server.once('initialized', resolve); server.once('error', reject); });
    return {
      name: 'modbus', host: options.serialPath, port: 0, address: options.serialPath, memory, dropConnections: drop,
      close: async () => { clearInterval(ticker); await new Promise<void>((resolve) => { server.close(() => { resolve(); }); }); },
    };
  }
  // modbus-serial's server takes port 0 for "the default, 502": find a free one first
  const port = options.port === 0 ? await freePort(options.host) : options.port;
  const server = new modbusSerial.ServerTCP(vector, { host: options.host, port, unitID });
  await new Promise<void>((resolve, reject) => { server.once('initialized', resolve); server.once('serverError', reject); });
  server.on('socketError', () => undefined);
  const sockets = (server as unknown as { socks: Map<{ destroy: () => void }, number> }).socks;
  drop = () => { for (const sock of sockets.keys()) sock.destroy(); };
  return {
    name: 'modbus', host: options.host, port, address: `${options.host}:${port}`, memory, dropConnections: drop,
    close: async () => {
      clearInterval(ticker);
      drop();
      await new Promise<void>((resolve) => { server.close(() => { resolve(); }); });
    },
  };
}
