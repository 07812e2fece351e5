// The Modbus driver end to end over TCP: deviceShifu → modbus-serial → the mock device, for every
// data type, byte order and word order, writes read back, and each kind of bad input and fault.
import test from 'ava';
import fc from 'fast-check';
import { SPECIAL } from '../../deviceshifu/mockdevice/modbus-registers.ts';
import { waitFor } from '../support/wait.ts';
import { MODBUS_INSTRUCTIONS, call, errorMessage, modbusGateway, tcpDevice } from './support/modbus.ts';

test('every data type and every byte/word order reads the value the device holds', async (t) => {
  const device = await tcpDevice(t);
  const gateway = await modbusGateway(t, { mode: 'TCP', unitId: 1 }, device.address);
  for (const [name, { expect }] of Object.entries(MODBUS_INSTRUCTIONS)) {
    if (expect === undefined) continue;
    t.deepEqual(await call(gateway, name), { status: 200, body: expect }, name);
  }
});

const WRITES: ReadonlyArray<{ dataType: string; props?: Record<string, string>; arbitrary: fc.Arbitrary<unknown> }> = [
  { dataType: 'int16', arbitrary: fc.integer({ min: -0x8000, max: 0x7fff }) },
  { dataType: 'uint16', arbitrary: fc.integer({ min: 0, max: 0xffff }) },
  { dataType: 'int32', arbitrary: fc.integer({ min: -0x80000000, max: 0x7fffffff }) },
  { dataType: 'uint32', arbitrary: fc.integer({ min: 0, max: 0xffffffff }) },
  { dataType: 'float32', arbitrary: fc.float({ noNaN: true, noDefaultInfinity: true }).map(Math.fround).filter((v) => !Object.is(v, -0)) },
  { dataType: 'float64', arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((v) => !Object.is(v, -0)) },
  { dataType: 'string', props: { count: '6' }, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 12 }).filter((s) => !s.includes('\0')) },
];
const ORDERS = ['BigEndian', 'LittleEndian'] as const;

test('a value written in any type and order is read back unchanged, and lands on the device as that layout', async (t) => {
  const device = await tcpDevice(t);
  const extra: Record<string, { props: Record<string, string> }> = {};
  for (const w of WRITES) for (const byteOrder of ORDERS) for (const wordOrder of ORDERS) {
    extra[`w_${w.dataType}_${byteOrder}_${wordOrder}`] = { props: { registerType: 'holding', address: '100', dataType: w.dataType, byteOrder, wordOrder, ...w.props } };
  }
  const gateway = await modbusGateway(t, { mode: 'TCP' }, device.address, extra);
  for (const w of WRITES) {
    for (const byteOrder of ORDERS) for (const wordOrder of ORDERS) {
      const name = `w_${w.dataType}_${byteOrder}_${wordOrder}`;
      await fc.assert(fc.asyncProperty(w.arbitrary, async (value) => {
        t.is((await call(gateway, name, JSON.stringify(value))).status, 200);
        const back = await call(gateway, name);
        return back.status === 200 && Object.is(back.body, value);
      }), { numRuns: 15 });
    }
  }
  // the layout on the device, checked with Buffer's reader: float32 21.5 written as DCBA
  t.is((await call(gateway, 'w_float32_LittleEndian_LittleEndian', 21.5)).status, 200);
  const raw = Buffer.alloc(4);
  raw.writeUInt16BE(device.memory.holding[100] ?? 0, 0);
  raw.writeUInt16BE(device.memory.holding[101] ?? 0, 2);
  t.is(raw.readFloatLE(0), 21.5);
});

test('coils are written one or several at a time; scaled values are divided on the way in', async (t) => {
  const device = await tcpDevice(t);
  const gateway = await modbusGateway(t, { mode: 'TCP' }, device.address);
  t.is((await call(gateway, 'coils', [false, true, true, false])).status, 200);
  t.deepEqual((await call(gateway, 'coils')).body, [false, true, true, false]);
  t.is((await call(gateway, 'coil0', 'true')).status, 200);
  t.true(device.memory.coils[0]);
  t.is((await call(gateway, 'temperature', 23.7)).status, 200);
  t.is(device.memory.holding[30], 237);
  t.is((await call(gateway, 'temperature')).body, 23.7);
});

test('Modbus exceptions name the exception and map to a kind; the other instructions keep working', async (t) => {
  const device = await tcpDevice(t);
  const gateway = await modbusGateway(t, { mode: 'TCP' }, device.address);
  const outOfMap = await call(gateway, 'outOfMap');
  t.is(outOfMap.status, 400);
  t.regex(errorMessage(outOfMap), /Modbus exception 2 \(illegal data address\) reading holding 150 x60 on unit 1/);
  const busy = await call(gateway, 'busy');
  t.is(busy.status, 409);
  t.regex(errorMessage(busy), /Modbus exception 6 \(slave device busy\)/);
  const failure = await call(gateway, 'failure');
  t.is(failure.status, 502);
  t.regex(errorMessage(failure), /Modbus exception 4 \(slave device failure\)/);
  t.deepEqual(await call(gateway, 'int16'), { status: 200, body: -1234 });
});

test('bad values are a 400 that says what fits, and nothing reaches the device', async (t) => {
  const device = await tcpDevice(t);
  const gateway = await modbusGateway(t, { mode: 'TCP' }, device.address, {
    int16w: { props: { registerType: 'holding', address: '100', dataType: 'int16' } },
    short: { props: { registerType: 'holding', address: '100', dataType: 'string', count: '2' } },
  });
  const cases: ReadonlyArray<[string, unknown, RegExp]> = [
    ['int16w', 40000, /40000 is out of range for int16 \(-32768 to 32767\)/],
    ['int16w', 1.5, /int16 takes whole numbers, got 1.5/],
    ['int16w', 'hot', /int16 takes a number, got "hot"/],
    ['short', 'too long for four bytes', /string is 23 bytes and does not fit 2 registers \(4 bytes\)/],
    ['coils', [true], /writes 4 coil\(s\), got 1 value/],
    ['coil0', 'maybe', /bool takes true or false/],
  ];
  for (const [name, value, message] of cases) {
    const reply = await call(gateway, name, value);
    t.is(reply.status, 400, `${name} ${JSON.stringify(value)}`);
    t.regex(errorMessage(reply), message);
  }
  t.is(device.memory.holding[100], 0);
  t.deepEqual(await call(gateway, 'int16'), { status: 200, body: -1234 });
});

test('a device that closes the connection mid-request: a clear 502, then the line reopens for the next call', async (t) => {
  const device = await tcpDevice(t);
  const gateway = await modbusGateway(t, { mode: 'TCP', timeoutMs: 5000 }, device.address);
  t.deepEqual(await call(gateway, 'int16'), { status: 200, body: -1234 });
  const closed = await call(gateway, 'closes');
  t.is(closed.status, 502);
  t.regex(errorMessage(closed), new RegExp(`Modbus TCP device at ${device.address} closed the connection before answering`));
  t.deepEqual(await call(gateway, 'int16'), { status: 200, body: -1234 });
  t.is(SPECIAL.closes, 902);
});

test('a wrong unit id gets no answer: a 504 that names the unit id, and the gateway stays up', async (t) => {
  const device = await tcpDevice(t, 7);
  const gateway = await modbusGateway(t, { mode: 'TCP', unitId: 3, timeoutMs: 200 }, device.address);
  const reply = await call(gateway, 'int16');
  t.is(reply.status, 504);
  t.regex(errorMessage(reply), /no answer reading holding 0 within 200 ms \(a device with another unit id than 3 stays silent\)/);
  t.is((await gateway.get('/health')).status, 200);
});

test('a device that is down is a 502; started later, it is picked up without a restart', async (t) => {
  const device = await tcpDevice(t);
  const address = device.address;
  await device.close();
  const gateway = await modbusGateway(t, { mode: 'TCP' }, address);
  const down = await call(gateway, 'int16');
  t.is(down.status, 502);
  t.regex(errorMessage(down), /refused the connection/);
  const { startModbusDevice } = await import('../../deviceshifu/mockdevice/modbus-device.ts');
  const again = await startModbusDevice({ host: '127.0.0.1', port: device.port });
  t.teardown(() => again.close());
  await waitFor('the device back', async () => ((await call(gateway, 'int16')).status === 200 ? true : undefined), { timeoutMs: 10_000 });
});

test('concurrent calls to one device are serialised: 40 at once all answer correctly', async (t) => {
  const device = await tcpDevice(t);
  const gateway = await modbusGateway(t, { mode: 'TCP' }, device.address);
  const names = Object.entries(MODBUS_INSTRUCTIONS).filter(([, i]) => i.expect !== undefined);
  const calls = Array.from({ length: 40 }, (_v, i) => names[i % names.length] ?? names[0]);
  const replies = await Promise.all(calls.map(async (entry) => ({ name: entry?.[0] ?? '', expect: entry?.[1].expect, reply: await call(gateway, entry?.[0] ?? '') })));
  for (const { name, expect, reply } of replies) t.deepEqual(reply, { status: 200, body: expect }, name);
});

test('calls waiting in the queue each meet their own deadline, and the line is free again afterwards', async (t) => {
  const device = await tcpDevice(t, 7);
  const silent = await modbusGateway(t, { mode: 'TCP', unitId: 3, timeoutMs: 3000 }, device.address);
  // the first call holds the line for up to 3 s; the queued ones give up at their own 0.2 s
  const replies = await Promise.all(Array.from({ length: 5 }, async () => {
    const response = await silent.get('/int16?timeout=0.2');
    return { status: response.status, body: await response.json() as { error: { message: string } } };
  }));
  for (const reply of replies) {
    t.is(reply.status, 504);
    t.regex(reply.body.error.message, /device edgedevice-test did not answer int16 within 0.2 s/, 'cut by the caller\'s deadline, not the device timeout of 3000 ms');
  }
  const fine = await modbusGateway(t, { mode: 'TCP', unitId: 7 }, device.address);
  t.deepEqual(await call(fine, 'int16'), { status: 200, body: -1234 });
});
