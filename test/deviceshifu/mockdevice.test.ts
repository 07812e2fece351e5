// Shifu's mock devices, re-implemented: their answers, and the entrypoint a demo or benchmark runs.
import test from 'ava';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { PlcMemory } from '../../deviceshifu/mockdevice/plc-memory.ts';
import { isLoopback, listeningAddresses } from '../support/sockets.ts';
import { mockDevice } from './support/mocks.ts';

const STATUS = /^(Running|Idle|Busy|Error)$/;

const ANSWERS: ReadonlyArray<[string, string, RegExp]> = [
  ['thermometer', 'read_value', /^(1\d|2\d|30)$/],
  ['agv', 'get_position', /^xpos: \d{1,2}, ypos: \d{1,3}$/],
  ['robot-arm', 'get_coordinate', /^xpos: \d{1,2}, ypos: \d{1,3}, zpos: \d{1,3}$/],
  ['plate-reader', 'get_measurement', /^(([0-2]\.\d\d ){11}[0-2]\.\d\d\n){7}([0-2]\.\d\d ){11}[0-2]\.\d\d$/],
  ['plc', 'getcontent?rootaddress=M', /^0b0{16}$/],
];

for (const [name, path, answer] of ANSWERS) {
  test(`the ${name} mock answers /health, /get_status and /${path} as Shifu's does`, async (t) => {
    const device = await mockDevice(t, name);
    const base = `http://${device.address}`;
    t.is(await (await fetch(`${base}/health`)).text(), 'Healthy');
    t.regex(await (await fetch(`${base}/get_status`)).text(), STATUS);
    t.regex(await (await fetch(`${base}/${path}`)).text(), answer);
    t.is((await fetch(`${base}/nothing_here`)).status, 404);
  });
}

test('the thermometer reads values between 10 and 30', async (t) => {
  const device = await mockDevice(t, 'thermometer');
  const values = await Promise.all(Array.from({ length: 40 }, async () => Number(await (await fetch(`http://${device.address}/read_value`)).text())));
  t.true(values.every((v) => Number.isInteger(v) && v >= 10 && v <= 30));
});

const PLC_BITS: ReadonlyArray<[string, number, string]> = [
  ['rootaddress=Q&address=0&digit=0&value=1', 200, '0b0000000000000001'],
  ['rootaddress=Q&address=2&digit=1&value=1', 200, '0b0000000000001001'],
  ['rootaddress=Q&address=0&digit=0&value=0', 200, '0b0000000000001000'],
  ['rootaddress=X&address=0&digit=0&value=1', 400, 'Nonexistent memory area'],
  ['rootaddress=Q&address=abc&digit=0&value=1', 400, 'address + digit must be an integer bit index 0-15'],
  ['rootaddress=Q&address=16&digit=0&value=1', 400, 'address + digit must be an integer bit index 0-15'],
  ['rootaddress=Q&address=0&digit=0&value=7', 400, 'value must be 0 or 1'],
];

test('the PLC sets single bits counted from the right and refuses bad input with 400', (t) => {
  const memory = new PlcMemory();
  for (const [query, status, body] of PLC_BITS) t.deepEqual(memory.setBit(new URLSearchParams(query)), status === 200 ? { body } : { status, body }, query);
  t.deepEqual(memory.read('Q'), { body: '0b0000000000001000' });
});

test('the entrypoint picks the device by argument, listens on 127.0.0.1 and prints its address', async (t) => {
  const child = spawn(process.execPath, ['--import=tsx', 'deviceshifu/mockdevice/main.ts', 'agv'], { env: { ...process.env, MOCKDEVICE_PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => { child.kill('SIGTERM'); });
  const [line] = await createInterface({ input: child.stdout })[Symbol.asyncIterator]().next().then((r) => [r.value as string]);
  const started = JSON.parse(line ?? '{}') as { device: string; address: string; port: number };
  t.is(started.device, 'agv');
  t.regex(started.address, /^127\.0\.0\.1:\d+$/);
  t.true((await listeningAddresses(child.pid ?? 0)).every(isLoopback));
  t.regex(await (await fetch(`http://${started.address}/get_position`)).text(), /^xpos: /);
});

test('an unknown mock device name is refused with the list of known ones', async (t) => {
  const child = spawn(process.execPath, ['--import=tsx', 'deviceshifu/mockdevice/main.ts', 'toaster'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  t.is(code, 2, 'a name to fix exits 2, as every component does on bad configuration');
  t.regex(Buffer.concat(chunks).toString(), /no mock device \\"toaster\\"; choose one of thermometer/);
});
