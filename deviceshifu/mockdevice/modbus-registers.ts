// The Modbus mock's memory: known values of every data type in every byte and word order, written
// with Buffer's own methods (not deviceShifu's codec, so a test against the mock checks the codec
// against an independent encoding). Addresses outside the map answer "illegal data address".
export const HOLDING_SIZE = 200;
export const INPUT_SIZE = 100;
export const BITS_SIZE = 64;
/** Reading these holding registers answers an exception, or drops every connection (a device restarting). */
export const SPECIAL = { busy: 900, failure: 901, closes: 902 } as const;

/** Holding register map (address → value and how it is laid out); the tests and the README read it. */
export const HOLDING_VALUES = {
  int16: { address: 0, value: -1234 },
  uint16: { address: 1, value: 54321 },
  int32: { address: 2, value: -123456789 },
  uint32: { address: 4, value: 3000000000 },
  float32: { address: 6, value: 21.5 },
  float64: { address: 8, value: 1234.5678 },
  string: { address: 12, value: 'edgeshifu', count: 8 },
  /** float32 21.5 in the other three layouts: word-swapped (CDAB), byte-swapped (BADC), both (DCBA). */
  float32CDAB: { address: 20, value: 21.5 },
  float32BADC: { address: 22, value: 21.5 },
  float32DCBA: { address: 24, value: 21.5 },
  int32CDAB: { address: 26, value: -123456789 },
  /** Temperature in tenths of a degree (scale 0.1). */
  temperatureTenths: { address: 30, value: 215 },
  /** Free for writes. */
  scratch: { address: 100, value: 0 },
} as const;

/** Register values from big-endian bytes; swapWords reverses the registers, swapBytes each register's bytes. */
function registersOf(bytes: Buffer, swapWords: boolean, swapBytes: boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i += 2) out.push(swapBytes ? bytes.readUInt16LE(i) : bytes.readUInt16BE(i));
  return swapWords ? out.reverse() : out;
}

function buffer(size: number, write: (b: Buffer) => void): Buffer {
  const b = Buffer.alloc(size);
  write(b);
  return b;
}

export class ModbusMemory {
  readonly holding = new Uint16Array(HOLDING_SIZE);
  readonly input = new Uint16Array(INPUT_SIZE);
  readonly coils: boolean[] = Array.from({ length: BITS_SIZE }, (_v, i) => i % 3 === 0);
  readonly discrete: boolean[] = Array.from({ length: BITS_SIZE }, (_v, i) => i % 2 === 0);

  constructor() {
    const h = HOLDING_VALUES;
    this.put(h.int16.address, registersOf(buffer(2, (b) => b.writeInt16BE(h.int16.value)), false, false));
    this.put(h.uint16.address, registersOf(buffer(2, (b) => b.writeUInt16BE(h.uint16.value)), false, false));
    this.put(h.int32.address, registersOf(buffer(4, (b) => b.writeInt32BE(h.int32.value)), false, false));
    this.put(h.uint32.address, registersOf(buffer(4, (b) => b.writeUInt32BE(h.uint32.value)), false, false));
    this.put(h.float32.address, registersOf(buffer(4, (b) => b.writeFloatBE(h.float32.value)), false, false));
    this.put(h.float64.address, registersOf(buffer(8, (b) => b.writeDoubleBE(h.float64.value)), false, false));
    this.put(h.string.address, registersOf(buffer(h.string.count * 2, (b) => b.write(h.string.value, 'utf8')), false, false));
    const f = buffer(4, (b) => b.writeFloatBE(21.5));
    this.put(h.float32CDAB.address, registersOf(f, true, false));
    this.put(h.float32BADC.address, registersOf(f, false, true));
    this.put(h.float32DCBA.address, registersOf(f, true, true));
    this.put(h.int32CDAB.address, registersOf(buffer(4, (b) => b.writeInt32BE(h.int32CDAB.value)), true, false));
    this.holding[h.temperatureTenths.address] = h.temperatureTenths.value;
    this.input[0] = 215; // temperature ×10
    this.input[1] = 45; // humidity %
    this.input.set(registersOf(buffer(4, (b) => b.writeFloatBE(1013.25)), false, false), 2); // pressure hPa
  }

  private put(address: number, registers: readonly number[]): void {
    this.holding.set(registers, address);
  }

  /** The input registers drift a little, as a sensor's do: temperature 20.0-30.0 °C. */
  tick(): void {
    this.input[0] = 200 + ((this.input[0] ?? 200) - 200 + 1) % 101;
  }
}
