// Modbus RTU over a serial line: two pseudo-terminals linked by socat stand in for the cable, the
// mock device on one end, deviceShifu (serialport) on the other.
import test from 'ava';
import { MODBUS_INSTRUCTIONS, call, errorMessage, modbusGateway, ptyPair, rtuDevice } from './support/modbus.ts';

test('RTU: every type and order reads, writes read back, exceptions are named', async (t) => {
  const pty = await ptyPair(t);
  const device = await rtuDevice(t, pty.device, 5);
  const gateway = await modbusGateway(t, { mode: 'RTU', serialPath: pty.gateway, baudRate: 19200, parity: 'none', unitId: 5 });
  for (const [name, { expect }] of Object.entries(MODBUS_INSTRUCTIONS)) {
    if (expect === undefined) continue;
    t.deepEqual(await call(gateway, name), { status: 200, body: expect }, name);
  }
  t.is((await call(gateway, 'scratch', 4242)).status, 200);
  t.is(device.memory.holding[100], 4242);
  t.deepEqual(await call(gateway, 'scratch'), { status: 200, body: 4242 });
  const outOfMap = await call(gateway, 'outOfMap');
  t.is(outOfMap.status, 400);
  t.regex(errorMessage(outOfMap), /Modbus exception 2 \(illegal data address\)/);
});

test('RTU: concurrent calls share the line one at a time and all answer correctly', async (t) => {
  const pty = await ptyPair(t);
  await rtuDevice(t, pty.device);
  const gateway = await modbusGateway(t, { mode: 'RTU', serialPath: pty.gateway, baudRate: 19200, parity: 'none' });
  const names = ['int16', 'float32', 'string', 'coils', 'float64', 'pressure'] as const;
  const replies = await Promise.all(Array.from({ length: 24 }, (_v, i) => names[i % names.length] ?? 'int16').map(async (name) => ({ name, reply: await call(gateway, name) })));
  for (const { name, reply } of replies) t.deepEqual(reply, { status: 200, body: MODBUS_INSTRUCTIONS[name]?.expect }, name);
});

test('RTU: a wrong unit id is a 504 naming it; a missing serial device is a 502 naming the path', async (t) => {
  const pty = await ptyPair(t);
  await rtuDevice(t, pty.device, 9);
  const gateway = await modbusGateway(t, { mode: 'RTU', serialPath: pty.gateway, baudRate: 19200, parity: 'none', unitId: 4, timeoutMs: 300 });
  const silent = await call(gateway, 'int16');
  t.is(silent.status, 504);
  t.regex(errorMessage(silent), /another unit id than 4/);
  const missing = await modbusGateway(t, { mode: 'RTU', serialPath: '/nonexistent/ttyUSB9' });
  const reply = await call(missing, 'int16');
  t.is(reply.status, 502);
  t.regex(errorMessage(reply), /Modbus RTU line \/nonexistent\/ttyUSB9/);
});
