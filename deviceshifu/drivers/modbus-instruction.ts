// One instruction's protocolPropertyList (strings, as Shifu's ConfigMaps carry them) → a checked
// Modbus request, pure. Every mistake names the key and what to write instead.
import { EdgeshifuError } from '../../shared/errors.ts';
import type { Instruction } from '../config/types.ts';
import { DATA_TYPES, WIDTH, isNumeric, type DataType, type Layout, type Order, type RegisterCodec } from './modbus-codec.ts';

export const REGISTER_TYPES = ['coil', 'discreteInput', 'holding', 'input'] as const;
export type RegisterType = (typeof REGISTER_TYPES)[number];

export interface ModbusInstruction extends RegisterCodec {
  readonly registerType: RegisterType;
  readonly address: number;
}

/** The protocol's limits on one request (Modbus application protocol, function codes 1-4, 15, 16). */
export const LIMITS = { readBits: 2000, readRegisters: 125, writeBits: 1968, writeRegisters: 123 } as const;
const ORDERS: readonly Order[] = ['BigEndian', 'LittleEndian'];
const BIT_TYPES: ReadonlySet<RegisterType> = new Set(['coil', 'discreteInput']);
const READ_ONLY: ReadonlySet<RegisterType> = new Set(['discreteInput', 'input']);

function wholeNumber(properties: Readonly<Record<string, string>>, key: string, min: number, max: number): number | undefined {
  const text = properties[key];
  if (text === undefined || text.trim() === '') return undefined;
  const value = /^\s*(0x[0-9a-f]+|\d+)\s*$/i.test(text) ? Number(text.trim()) : Number.NaN;
  if (!Number.isInteger(value)) throw new Error(`${key} "${text}" is not a whole number (decimal, or hex as 0x…)`);
  if (value < min || value > max) throw new Error(`${key} ${value} is out of range ${min}-${max}`);
  return value;
}

function oneOf<T extends string>(properties: Readonly<Record<string, string>>, key: string, allowed: readonly T[]): T | undefined {
  const text = properties[key];
  if (text === undefined || text === '') return undefined;
  if (!(allowed as readonly string[]).includes(text)) throw new Error(`${key} "${text}" is not one of ${allowed.join(', ')}`);
  return text as T;
}

interface Span { readonly registerType: RegisterType; readonly dataType: DataType; readonly count: number; readonly address: number }

function checkCount({ registerType, dataType, count, address }: Span, writable: boolean): void {
  const bits = BIT_TYPES.has(registerType);
  if (isNumeric(dataType) && count % WIDTH[dataType] !== 0) {
    throw new Error(`count ${count} does not fit ${dataType}: it takes ${WIDTH[dataType]} registers per value, so count must be a multiple of ${WIDTH[dataType]}`);
  }
  const readLimit = bits ? LIMITS.readBits : LIMITS.readRegisters;
  if (count > readLimit) throw new Error(`count ${count} is more than one Modbus read carries (${readLimit} ${bits ? 'bits' : 'registers'})`);
  const writeLimit = bits ? LIMITS.writeBits : LIMITS.writeRegisters;
  if (writable && count > writeLimit) throw new Error(`count ${count} is more than one Modbus write carries (${writeLimit} ${bits ? 'coils' : 'registers'}): make the instruction readWrite: R or lower count`);
  if (address + count - 1 > 0xffff) throw new Error(`address ${address} with count ${count} runs past the last address 65535`);
}

function typeOf(p: Readonly<Record<string, string>>, registerType: RegisterType): DataType {
  const bits = BIT_TYPES.has(registerType);
  const dataType = oneOf(p, 'dataType', DATA_TYPES) ?? (bits ? 'bool' : 'uint16');
  if (bits && dataType !== 'bool') throw new Error(`a ${registerType} holds bits: dataType must be bool (or left out), not ${dataType}`);
  if (!bits && dataType === 'bool') throw new Error(`bool is read from coils or discrete inputs; a ${registerType} register holds 16 bits (use uint16, or registerType coil)`);
  return dataType;
}

function scaleOf(p: Readonly<Record<string, string>>, dataType: DataType): number | undefined {
  if (p.scale === undefined || p.scale === '') return undefined;
  const scale = Number(p.scale);
  if (!Number.isFinite(scale) || scale === 0) throw new Error(`scale "${p.scale}" is not a non-zero number`);
  if (!isNumeric(dataType)) throw new Error(`scale applies to numbers only, not ${dataType}`);
  return scale;
}

function readOnlyProblem(instruction: Instruction, registerType: RegisterType): string | undefined {
  if (instruction.readWrite === 'R' || !READ_ONLY.has(registerType)) return undefined;
  const [what, instead] = registerType === 'input' ? ['input registers', 'holding'] : ['discrete inputs', 'coil'];
  return `${what} are read-only in Modbus, but readWrite is ${instruction.readWrite}: set readWrite: R (or use ${instead})`;
}

function parse(instruction: Instruction, defaults: Layout): ModbusInstruction {
  const p = instruction.protocolProperties;
  const registerType = oneOf(p, 'registerType', REGISTER_TYPES);
  if (registerType === undefined) throw new Error(`registerType is required (${REGISTER_TYPES.join(', ')})`);
  const address = wholeNumber(p, 'address', 0, 0xffff);
  if (address === undefined) throw new Error('address is required (0-65535, the register number on the wire, counted from 0)');
  const dataType = typeOf(p, registerType);
  const count = wholeNumber(p, 'count', 1, 0xffff) ?? (isNumeric(dataType) ? WIDTH[dataType] : dataType === 'bool' ? 1 : undefined);
  if (count === undefined) throw new Error('a string needs count: the registers it spans (two bytes each)');
  const readOnly = readOnlyProblem(instruction, registerType);
  if (readOnly !== undefined) throw new Error(readOnly);
  checkCount({ registerType, dataType, count, address }, instruction.readWrite !== 'R');
  const scale = scaleOf(p, dataType);
  const layout: Layout = { byteOrder: oneOf(p, 'byteOrder', ORDERS) ?? defaults.byteOrder, wordOrder: oneOf(p, 'wordOrder', ORDERS) ?? defaults.wordOrder };
  return { registerType, address, count, dataType, layout, ...(scale === undefined ? {} : { scale }) };
}

/** Throws EdgeshifuError(invalid) naming the instruction and the key at fault. */
export function parseModbusInstruction(instruction: Instruction, defaults: Layout): ModbusInstruction {
  try {
    return parse(instruction, defaults);
  } catch (err) {
    throw new EdgeshifuError('invalid', `instruction ${instruction.name}: protocolPropertyList: ${(err as Error).message}`);
  }
}
