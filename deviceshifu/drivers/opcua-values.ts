// OPC UA values ↔ JSON (pure). A write's body is converted to the node's DataType before it is
// sent: the server would answer BadTypeMismatch to a Double written as a String, and the caller
// learns more from a 400 that names the type and its range. DataType numbers are OPC UA's
// built-in type ids (Part 6, 5.1.2), the same as node-opcua's DataType enum.
import { EdgeshifuError } from '../../shared/errors.ts';
import { isoTime } from '../../shared/time.ts';

export const BUILTIN_TYPES: Readonly<Record<number, string>> = {
  1: 'Boolean', 2: 'SByte', 3: 'Byte', 4: 'Int16', 5: 'UInt16', 6: 'Int32', 7: 'UInt32', 8: 'Int64', 9: 'UInt64',
  10: 'Float', 11: 'Double', 12: 'String', 13: 'DateTime', 14: 'Guid', 15: 'ByteString', 16: 'XmlElement',
  17: 'NodeId', 18: 'ExpandedNodeId', 19: 'StatusCode', 20: 'QualifiedName', 21: 'LocalizedText',
  22: 'ExtensionObject', 23: 'DataValue', 24: 'Variant', 25: 'DiagnosticInfo',
};

const INTEGER_RANGES: Readonly<Record<string, readonly [bigint, bigint]>> = {
  SByte: [-128n, 127n], Byte: [0n, 255n], Int16: [-32768n, 32767n], UInt16: [0n, 65535n],
  Int32: [-2147483648n, 2147483647n], UInt32: [0n, 4294967295n],
  Int64: [-(2n ** 63n), 2n ** 63n - 1n], UInt64: [0n, 2n ** 64n - 1n],
};

const FLOAT_MAX = 3.4028234663852886e38;

/** The type a node holds: its built-in DataType and whether the value is an array. */
export interface NodeType {
  readonly dataType: number;
  readonly isArray: boolean;
}

export function typeName(type: NodeType): string {
  const name = BUILTIN_TYPES[type.dataType] ?? `DataType ${type.dataType}`;
  return type.isArray ? `array of ${name}` : name;
}

function expected(type: NodeType, what: string, got: unknown): EdgeshifuError {
  return new EdgeshifuError('invalid', `the node holds ${typeName(type)}: expected ${what}, got ${JSON.stringify(got)}`);
}

function integer(name: string, type: NodeType, value: unknown): bigint {
  const [min, max] = INTEGER_RANGES[name] ?? [0n, 0n];
  const what = `an integer from ${min} to ${max}`;
  let n: bigint;
  if (typeof value === 'number' && Number.isInteger(value)) n = BigInt(value);
  else if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) n = BigInt(value.trim());
  else throw expected(type, what, value);
  if (n < min || n > max) throw expected(type, what, value);
  return n;
}

function number(name: 'Float' | 'Double', type: NodeType, value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  const limit = name === 'Float' ? FLOAT_MAX : Number.MAX_VALUE;
  if (!Number.isFinite(n) || Math.abs(n) > limit) throw expected(type, `a finite number${name === 'Float' ? ` within ±${FLOAT_MAX}` : ''}`, value);
  return n;
}

function text(type: NodeType, value: unknown): string {
  if (typeof value === 'string') return value;
  throw expected(type, 'a string', value);
}

type Convert = (type: NodeType, value: unknown) => unknown;
const small = (name: string): Convert => (type, value) => Number(integer(name, type, value));
// node-opcua carries 64-bit integers as [high 32 bits, low 32 bits]
const large = (name: string): Convert => (type, value) => {
  const n = BigInt.asUintN(64, integer(name, type, value));
  return [Number(n >> 32n), Number(n & 0xffffffffn)];
};

const CONVERTERS: Readonly<Record<string, Convert>> = {
  Boolean: (type, value) => {
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    throw expected(type, 'true or false', value);
  },
  SByte: small('SByte'), Byte: small('Byte'), Int16: small('Int16'), UInt16: small('UInt16'), Int32: small('Int32'), UInt32: small('UInt32'),
  Int64: large('Int64'), UInt64: large('UInt64'),
  Float: (type, value) => number('Float', type, value),
  Double: (type, value) => number('Double', type, value),
  String: text, XmlElement: text,
  LocalizedText: (type, value) => ({ text: text(type, value) }),
  DateTime: (type, value) => {
    const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(ms)) throw expected(type, 'an RFC 3339 time such as "2026-01-02T03:04:05Z"', value);
    return new Date(ms);
  },
  ByteString: (type, value) => {
    if (typeof value === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(value)) return Buffer.from(value, 'base64');
    throw expected(type, 'base64 text', value);
  },
};

function scalar(type: NodeType, value: unknown): unknown {
  const convert = CONVERTERS[BUILTIN_TYPES[type.dataType] ?? ''];
  if (convert === undefined) throw new EdgeshifuError('invalid', `writing a node of ${typeName(type)} is not supported (supported: Boolean, integers, Float, Double, String, LocalizedText, DateTime, ByteString and arrays of them)`);
  return convert(type, value);
}

/** The value of a write body converted for a node of `type`; 'invalid' naming the type when it does not fit. */
export function toNodeValue(type: NodeType, value: unknown): unknown {
  if (!type.isArray) return scalar(type, value);
  if (!Array.isArray(value)) throw expected(type, 'a JSON array', value);
  return value.map((v) => scalar({ dataType: type.dataType, isArray: false }, v));
}

/** `{"value": X}` → X; 'invalid' saying what to send otherwise. */
export function writeBodyValue(body: Buffer): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new EdgeshifuError('invalid', 'the body must be JSON: {"value": <the value to write>}');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !('value' in parsed)) {
    throw new EdgeshifuError('invalid', 'the body must be a JSON object with a "value" key: {"value": <the value to write>}');
  }
  return parsed.value;
}

function int64(value: unknown, signed: boolean): unknown {
  if (!Array.isArray(value) || value.length !== 2) return typeof value === 'bigint' ? value.toString() : value;
  // node-opcua carries 64-bit integers as [high 32 bits, low 32 bits]: a number when exact, else decimal text
  const raw = (BigInt.asUintN(32, BigInt(Number(value[0]))) << 32n) | BigInt.asUintN(32, BigInt(Number(value[1])));
  const n = signed ? BigInt.asIntN(64, raw) : raw;
  return n <= BigInt(Number.MAX_SAFE_INTEGER) && n >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(n) : n.toString();
}

function jsonScalar(value: unknown, dataType: number): unknown {
  if (dataType === 8 || dataType === 9) return int64(value, dataType === 8);
  if (value instanceof Date) return isoTime(value.getTime());
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (value !== null && typeof value === 'object') {
    if ('text' in value) return (value).text ?? null;
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return (value as { toJSON(): unknown }).toJSON();
    return (value as { toString(): string }).toString();
  }
  if (typeof value === 'bigint') return value.toString();
  return value ?? null;
}

/** A value read from a node of built-in `dataType`, as JSON can carry it. */
export function toJsonValue(value: unknown, dataType: number): unknown {
  if (Buffer.isBuffer(value)) return jsonScalar(value, dataType);
  if (Array.isArray(value) && !((dataType === 8 || dataType === 9) && value.length === 2 && typeof value[0] === 'number')) return value.map((v) => jsonScalar(v, dataType));
  if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<number>);
  return jsonScalar(value, dataType);
}

/** Plain text of a value, as Shifu's OPC UA deviceShifu answers a read. */
export function toText(json: unknown): string {
  return typeof json === 'string' ? json : JSON.stringify(json);
}
