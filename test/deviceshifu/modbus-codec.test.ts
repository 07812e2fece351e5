// The Modbus register codec and instruction checks, pure: property tests (encode → decode round
// trips; agreement with Buffer's own readers and writers) and tables of known layouts and errors.
import test from 'ava';
import fc from 'fast-check';
import { decodeNumber, decodeRegisters, encodeNumber, encodeRegisters, encodeString, decodeString, type Layout, type NumericType } from '../../deviceshifu/drivers/modbus-codec.ts';
import { parseModbusInstruction } from '../../deviceshifu/drivers/modbus-instruction.ts';
import { MODBUS_EXCEPTIONS, modbusException } from '../../deviceshifu/drivers/modbus-exceptions.ts';
import type { Instruction } from '../../deviceshifu/config/types.ts';

const LAYOUTS: readonly Layout[] = (['BigEndian', 'LittleEndian'] as const).flatMap((byteOrder) => (['BigEndian', 'LittleEndian'] as const).map((wordOrder) => ({ byteOrder, wordOrder })));
const layout = fc.constantFrom(...LAYOUTS);

/** Buffer's writer for each type, big-endian: the independent computation. */
const BUFFER: Readonly<Record<NumericType, { size: number; write: (b: Buffer, v: number) => void; read: (b: Buffer) => number; values: fc.Arbitrary<number> }>> = {
  int16: { size: 2, write: (b, v) => b.writeInt16BE(v), read: (b) => b.readInt16BE(), values: fc.integer({ min: -0x8000, max: 0x7fff }) },
  uint16: { size: 2, write: (b, v) => b.writeUInt16BE(v), read: (b) => b.readUInt16BE(), values: fc.integer({ min: 0, max: 0xffff }) },
  int32: { size: 4, write: (b, v) => b.writeInt32BE(v), read: (b) => b.readInt32BE(), values: fc.integer({ min: -0x80000000, max: 0x7fffffff }) },
  uint32: { size: 4, write: (b, v) => b.writeUInt32BE(v), read: (b) => b.readUInt32BE(), values: fc.integer({ min: 0, max: 0xffffffff }) },
  float32: { size: 4, write: (b, v) => b.writeFloatBE(v), read: (b) => b.readFloatBE(), values: fc.float({ noNaN: true }) },
  float64: { size: 8, write: (b, v) => b.writeDoubleBE(v), read: (b) => b.readDoubleBE(), values: fc.double({ noNaN: true }) },
};

/** What a device with this layout holds, built from Buffer: big-endian bytes, words reversed, bytes swapped. */
function bufferRegisters(type: NumericType, value: number, l: Layout): number[] {
  const b = Buffer.alloc(BUFFER[type].size);
  BUFFER[type].write(b, value);
  const words = Array.from({ length: b.length / 2 }, (_v, i) => (l.byteOrder === 'BigEndian' ? b.readUInt16BE(2 * i) : b.readUInt16LE(2 * i)));
  return l.wordOrder === 'BigEndian' ? words : words.reverse();
}

for (const type of Object.keys(BUFFER) as NumericType[]) {
  test(`${type}: encode → decode is the identity, and both agree with Buffer, in every layout`, (t) => {
    fc.assert(fc.property(BUFFER[type].values, layout, (value, l) => {
      const registers = encodeNumber(type, value, l);
      t.deepEqual(registers, bufferRegisters(type, value, l));
      t.true(registers.every((r) => Number.isInteger(r) && r >= 0 && r <= 0xffff));
      t.true(Object.is(decodeNumber(type, registers, l), value));
    }));
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: BUFFER[type].size / 2, maxLength: BUFFER[type].size / 2 }), layout, (registers, l) => {
      const bytes = Buffer.alloc(registers.length * 2);
      (l.wordOrder === 'BigEndian' ? registers : [...registers].reverse()).forEach((r, i) => { if (l.byteOrder === 'BigEndian') bytes.writeUInt16BE(r, 2 * i); else bytes.writeUInt16LE(r, 2 * i); });
      const decoded = decodeNumber(type, registers, l);
      t.true(Object.is(decoded, BUFFER[type].read(bytes)) || (Number.isNaN(decoded) && Number.isNaN(BUFFER[type].read(bytes))));
    }));
  });
}

test('strings: round trip through registers in both byte orders, NUL-padded, and too long is refused', (t) => {
  fc.assert(fc.property(fc.string({ maxLength: 20 }).filter((s) => !s.includes('\0')), fc.constantFrom('BigEndian', 'LittleEndian'), (text, order) => {
    const count = Math.ceil(Buffer.byteLength(text) / 2) + 1;
    t.is(decodeString(encodeString(text, count, order), order), text);
  }));
  t.deepEqual(encodeString('AB', 2, 'BigEndian'), [0x4142, 0]);
  t.deepEqual(encodeString('AB', 2, 'LittleEndian'), [0x4241, 0]);
  t.throws(() => encodeString('ABCDE', 2, 'BigEndian'), { message: /5 bytes and does not fit 2 registers \(4 bytes\)/ });
});

test('table: float32 21.5 (0x41AC0000) in the four layouts of device manuals', (t) => {
  const table: ReadonlyArray<[string, Layout, number[]]> = [
    ['ABCD', { byteOrder: 'BigEndian', wordOrder: 'BigEndian' }, [0x41ac, 0x0000]],
    ['CDAB', { byteOrder: 'BigEndian', wordOrder: 'LittleEndian' }, [0x0000, 0x41ac]],
    ['BADC', { byteOrder: 'LittleEndian', wordOrder: 'BigEndian' }, [0xac41, 0x0000]],
    ['DCBA', { byteOrder: 'LittleEndian', wordOrder: 'LittleEndian' }, [0x0000, 0xac41]],
  ];
  for (const [name, l, registers] of table) {
    t.deepEqual(encodeNumber('float32', 21.5, l), registers, name);
    t.is(decodeNumber('float32', registers, l), 21.5, name);
  }
  t.deepEqual(encodeNumber('int32', -2, { byteOrder: 'BigEndian', wordOrder: 'LittleEndian' }), [0xfffe, 0xffff]);
});

test('scale: a read is multiplied without float noise, a write divided and rounded, the range checked after scaling', (t) => {
  const codec = { dataType: 'int16' as const, count: 1, scale: 0.1, layout: LAYOUTS[0] ?? { byteOrder: 'BigEndian', wordOrder: 'BigEndian' } };
  t.is(decodeRegisters(codec, [215]), 21.5);
  t.deepEqual(encodeRegisters(codec, 21.56), [216]);
  t.throws(() => encodeRegisters(codec, 4000), { message: /4000 \(40000 after dividing by scale 0.1\) is out of range for int16/ });
  t.deepEqual(decodeRegisters({ ...codec, scale: undefined, count: 3 }, [1, 2, 0xffff]), [1, 2, -1]);
  t.throws(() => encodeRegisters({ ...codec, scale: undefined, count: 2 }, [1]), { message: /writes 2 int16 value\(s\), got 1/ });
  t.throws(() => encodeRegisters({ ...codec, dataType: 'float32', count: 2, scale: undefined }, 1e39), { message: /out of range for float32/ });
});

function instruction(props: Record<string, string>, readWrite: Instruction['readWrite'] = 'RW'): Instruction {
  return { name: 'x', readWrite, protocolProperties: props, gatewayProperties: {} };
}
const BIG: Layout = { byteOrder: 'BigEndian', wordOrder: 'BigEndian' };

test('instructions are checked at load: each mistake names the key and the fix', (t) => {
  const table: ReadonlyArray<[Record<string, string>, Instruction['readWrite'], RegExp]> = [
    [{ address: '1' }, 'R', /registerType is required \(coil, discreteInput, holding, input\)/],
    [{ registerType: 'holdingRegister', address: '1' }, 'R', /registerType "holdingRegister" is not one of coil, discreteInput, holding, input/],
    [{ registerType: 'holding' }, 'R', /address is required/],
    [{ registerType: 'holding', address: '70000' }, 'R', /address 70000 is out of range 0-65535/],
    [{ registerType: 'holding', address: '-1' }, 'R', /address "-1" is not a whole number/],
    [{ registerType: 'holding', address: '65535', dataType: 'int32' }, 'R', /address 65535 with count 2 runs past the last address 65535/],
    [{ registerType: 'holding', address: '0', dataType: 'int32', count: '3' }, 'R', /count 3 does not fit int32: it takes 2 registers per value/],
    [{ registerType: 'holding', address: '0', count: '126' }, 'R', /count 126 is more than one Modbus read carries \(125 registers\)/],
    [{ registerType: 'holding', address: '0', count: '124' }, 'RW', /more than one Modbus write carries \(123 registers\)/],
    [{ registerType: 'input', address: '0' }, 'RW', /input registers are read-only in Modbus, but readWrite is RW: set readWrite: R/],
    [{ registerType: 'discreteInput', address: '0' }, 'W', /discrete inputs are read-only in Modbus/],
    [{ registerType: 'coil', address: '0', dataType: 'int16' }, 'RW', /a coil holds bits: dataType must be bool/],
    [{ registerType: 'holding', address: '0', dataType: 'bool' }, 'RW', /bool is read from coils or discrete inputs/],
    [{ registerType: 'holding', address: '0', dataType: 'string' }, 'RW', /a string needs count/],
    [{ registerType: 'holding', address: '0', dataType: 'string', count: '2', scale: '2' }, 'RW', /scale applies to numbers only, not string/],
    [{ registerType: 'holding', address: '0', scale: '0' }, 'RW', /scale "0" is not a non-zero number/],
    [{ registerType: 'holding', address: '0', dataType: 'int64' }, 'RW', /dataType "int64" is not one of int16, uint16/],
    [{ registerType: 'holding', address: '0', wordOrder: 'CDAB' }, 'RW', /wordOrder "CDAB" is not one of BigEndian, LittleEndian/],
  ];
  for (const [props, rw, message] of table) {
    const err = t.throws(() => parseModbusInstruction(instruction(props, rw), BIG), { message }, JSON.stringify(props));
    t.is((err as { kind?: string } | undefined)?.kind, 'invalid');
    t.regex(err.message, /^instruction x: protocolPropertyList: /);
  }
  t.like(parseModbusInstruction(instruction({ registerType: 'holding', address: '0x10', dataType: 'float64' }), BIG), { address: 16, count: 4 });
  t.like(parseModbusInstruction(instruction({ registerType: 'coil', address: '3' }), BIG), { dataType: 'bool', count: 1 });
});

test('one exception table: every code names its exception; unknown codes are still reported', (t) => {
  t.deepEqual(Object.keys(MODBUS_EXCEPTIONS).map(Number), [1, 2, 3, 4, 5, 6, 8, 10, 11]);
  t.like(modbusException(2, 'reading holding 5'), { kind: 'invalid', message: 'Modbus exception 2 (illegal data address) reading holding 5' });
  t.like(modbusException(6, 'x'), { kind: 'conflict' });
  t.like(modbusException(11, 'x'), { kind: 'timeout' });
  t.like(modbusException(99, 'x'), { kind: 'unavailable', message: 'Modbus exception 99 (unknown exception) x' });
});
