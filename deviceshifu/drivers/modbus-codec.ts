// Registers ⇄ values, pure. A register is 16 bits; Modbus itself only says it travels high byte
// first. Wider values span consecutive registers, and devices disagree on both orders, so:
// - byteOrder: the order of the two bytes inside each register (BigEndian = high byte first);
// - wordOrder: the order of the registers of a 32- or 64-bit value (BigEndian = high word at the
//   lower address). Strings are byte sequences: byteOrder applies to them, wordOrder does not.
// The four combinations are the ABCD / BADC / CDAB / DCBA layouts of device manuals.
import { EdgeshifuError } from '../../shared/errors.ts';

export const DATA_TYPES = ['int16', 'uint16', 'int32', 'uint32', 'float32', 'float64', 'bool', 'string'] as const;
export type DataType = (typeof DATA_TYPES)[number];
export type NumericType = Exclude<DataType, 'bool' | 'string'>;
export type Order = 'BigEndian' | 'LittleEndian';
export type ModbusValue = number | boolean | string | readonly number[] | readonly boolean[];

export interface Layout {
  readonly byteOrder: Order;
  readonly wordOrder: Order;
}

/** Registers one value of a numeric type takes. */
export const WIDTH: Readonly<Record<NumericType, number>> = { int16: 1, uint16: 1, int32: 2, uint32: 2, float32: 2, float64: 4 };

const RANGE: Readonly<Partial<Record<NumericType, readonly [number, number]>>> = {
  int16: [-0x8000, 0x7fff], uint16: [0, 0xffff], int32: [-0x80000000, 0x7fffffff], uint32: [0, 0xffffffff],
};
const FLOAT32_MAX = 3.4028234663852886e38;

export function isNumeric(type: DataType): type is NumericType {
  return type !== 'bool' && type !== 'string';
}

function invalid(message: string): EdgeshifuError {
  return new EdgeshifuError('invalid', message);
}

/** The big-endian bytes of one value, as the type's own bit pattern. */
function bigEndianBytes(type: NumericType, value: number): Uint8Array {
  const view = new DataView(new ArrayBuffer(WIDTH[type] * 2));
  switch (type) {
    case 'int16': view.setInt16(0, value); break;
    case 'uint16': view.setUint16(0, value); break;
    case 'int32': view.setInt32(0, value); break;
    case 'uint32': view.setUint32(0, value); break;
    case 'float32': view.setFloat32(0, value); break;
    case 'float64': view.setFloat64(0, value); break;
  }
  return new Uint8Array(view.buffer);
}

function fromBigEndianBytes(type: NumericType, bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (type) {
    case 'int16': return view.getInt16(0);
    case 'uint16': return view.getUint16(0);
    case 'int32': return view.getInt32(0);
    case 'uint32': return view.getUint32(0);
    case 'float32': return view.getFloat32(0);
    case 'float64': return view.getFloat64(0);
  }
}

/** Bytes in wire order (high byte first per register) → register values, with byteOrder applied. */
function bytesToRegisters(bytes: Uint8Array, byteOrder: Order): number[] {
  const registers: number[] = [];
  for (let i = 0; i < bytes.length; i += 2) {
    const a = bytes[i] ?? 0;
    const b = bytes[i + 1] ?? 0;
    registers.push(byteOrder === 'BigEndian' ? (a << 8) | b : (b << 8) | a);
  }
  return registers;
}

function registersToBytes(registers: readonly number[], byteOrder: Order): Uint8Array {
  const bytes = new Uint8Array(registers.length * 2);
  registers.forEach((r, i) => {
    const high = (r >> 8) & 0xff;
    const low = r & 0xff;
    bytes[2 * i] = byteOrder === 'BigEndian' ? high : low;
    bytes[2 * i + 1] = byteOrder === 'BigEndian' ? low : high;
  });
  return bytes;
}

/** Registers of one value: the value's big-endian bytes cut into words, words and bytes reordered. */
export function encodeNumber(type: NumericType, value: number, layout: Layout): number[] {
  const registers = bytesToRegisters(bigEndianBytes(type, value), 'BigEndian');
  if (layout.wordOrder === 'LittleEndian') registers.reverse();
  return layout.byteOrder === 'BigEndian' ? registers : registers.map((r) => ((r & 0xff) << 8) | (r >> 8));
}

export function decodeNumber(type: NumericType, registers: readonly number[], layout: Layout): number {
  const words = layout.byteOrder === 'BigEndian' ? [...registers] : registers.map((r) => ((r & 0xff) << 8) | (r >> 8));
  if (layout.wordOrder === 'LittleEndian') words.reverse();
  return fromBigEndianBytes(type, registersToBytes(words, 'BigEndian'));
}

/** UTF-8 text in `count` registers, padded with NUL bytes. */
export function encodeString(text: string, count: number, byteOrder: Order): number[] {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length > count * 2) throw invalid(`the string is ${bytes.length} bytes and does not fit ${count} registers (${count * 2} bytes): shorten it or raise count`);
  const padded = new Uint8Array(count * 2);
  padded.set(bytes);
  return bytesToRegisters(padded, byteOrder);
}

/** The text up to the first NUL byte. */
export function decodeString(registers: readonly number[], byteOrder: Order): string {
  const bytes = registersToBytes(registers, byteOrder);
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end === -1 ? bytes : bytes.subarray(0, end));
}

/** raw × scale, without the float noise of the multiplication (21.5, not 21.500000000000004). */
export function scaled(raw: number, scale: number | undefined): number {
  return scale === undefined ? raw : Number((raw * scale).toPrecision(15));
}

/** The raw number a written value becomes: divided by scale, whole for integer types, in range. */
export function rawOf(type: NumericType, value: number, scale: number | undefined): number {
  if (!Number.isFinite(value)) throw invalid(`${type} takes a finite number, got ${String(value)}`);
  const divided = scale === undefined ? value : value / scale;
  const range = RANGE[type];
  if (range !== undefined) {
    const raw = scale === undefined ? divided : Math.round(divided);
    if (!Number.isInteger(raw)) throw invalid(`${type} takes whole numbers, got ${value}`);
    if (raw < range[0] || raw > range[1]) {
      const what = scale === undefined ? `${value}` : `${value} (${raw} after dividing by scale ${scale})`;
      throw invalid(`${what} is out of range for ${type} (${range[0]} to ${range[1]})`);
    }
    return raw;
  }
  if (type === 'float32' && Math.abs(divided) > FLOAT32_MAX) throw invalid(`${value} is out of range for float32 (±${FLOAT32_MAX})`);
  return divided;
}

export interface RegisterCodec {
  readonly dataType: DataType;
  /** Registers (or bits) the instruction reads or writes. */
  readonly count: number;
  readonly scale?: number;
  readonly layout: Layout;
}

/** Registers read from the device → the value deviceShifu answers with (an array when count holds several). */
export function decodeRegisters(codec: RegisterCodec, registers: readonly number[]): ModbusValue {
  const { dataType, count, layout, scale } = codec;
  if (registers.length < count) throw new EdgeshifuError('unavailable', `the device sent ${registers.length} registers, ${count} were asked for`);
  if (dataType === 'string') return decodeString(registers.slice(0, count), layout.byteOrder);
  if (!isNumeric(dataType)) throw invalid(`${dataType} is read from coils or discrete inputs, not registers`);
  const width = WIDTH[dataType];
  const values: number[] = [];
  for (let i = 0; i < count; i += width) values.push(scaled(decodeNumber(dataType, registers.slice(i, i + width), layout), scale));
  return values.length === 1 ? (values[0] ?? 0) : values;
}

function describe(value: unknown): string {
  return typeof value === 'string' ? `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"` : JSON.stringify(value);
}

/** A number from JSON, or from a string holding one (as query strings and text bodies carry them). */
function numberOf(type: NumericType, item: unknown): number {
  if (typeof item === 'number') return item;
  if (typeof item === 'string' && item.trim() !== '' && Number.isFinite(Number(item))) return Number(item);
  throw invalid(`${type} takes a number, got ${describe(item)}`);
}

/** A value to write → the registers that carry it. */
export function encodeRegisters(codec: RegisterCodec, value: unknown): number[] {
  const { dataType, count, layout, scale } = codec;
  if (dataType === 'string') {
    if (typeof value !== 'string') throw invalid(`string takes a JSON string, got ${describe(value)}`);
    return encodeString(value, count, layout.byteOrder);
  }
  if (!isNumeric(dataType)) throw invalid(`${dataType} is written to coils, not registers`);
  const width = WIDTH[dataType];
  const items = Array.isArray(value) ? value as unknown[] : [value];
  if (items.length * width !== count) throw invalid(`this instruction writes ${count / width} ${dataType} value(s), got ${items.length}`);
  return items.flatMap((item) => encodeNumber(dataType, rawOf(dataType, numberOf(dataType, item), scale), layout));
}

/** Bits to write to coils: JSON booleans, 0/1, or "true"/"false". */
export function encodeBits(count: number, value: unknown): boolean[] {
  const items = Array.isArray(value) ? value as unknown[] : [value];
  if (items.length !== count) throw invalid(`this instruction writes ${count} coil(s), got ${items.length} value(s)`);
  return items.map((item) => {
    if (item === true || item === 1 || item === 'true' || item === '1') return true;
    if (item === false || item === 0 || item === 'false' || item === '0') return false;
    throw invalid(`bool takes true or false (or 1 or 0), got ${describe(item)}`);
  });
}

export function decodeBits(count: number, bits: readonly boolean[]): boolean | boolean[] {
  if (bits.length < count) throw new EdgeshifuError('unavailable', `the device sent ${bits.length} bits, ${count} were asked for`);
  return count === 1 ? bits[0] === true : bits.slice(0, count);
}
