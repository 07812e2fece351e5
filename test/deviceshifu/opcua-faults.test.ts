// OPC UA faults against the real mock server: a server that is down at start, one that closes
// mid-session and comes back (reads and subscriptions recover), a server flooding notifications,
// and wrong credentials. Telemetry comes by subscription and is pushed to a test receiver.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listen } from '../../deviceshifu/mockdevice/http-device.ts';
import { FLOOD_ID } from '../../deviceshifu/mockdevice/opcua-device.ts';
import { freePort } from '../support/controlplane/ports.ts';
import { waitFor } from '../support/wait.ts';
import { opcuaGateway, opcuaMock, readWhenUp, type ErrorReply } from './support/opcua.ts';

interface Push { at: number; body: string }

async function pushReceiver(t: ExecutionContext): Promise<{ url: string; received: Push[] }> {
  const received: Push[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => { received.push({ at: performance.now(), body: Buffer.concat(chunks).toString() }); res.end('ok'); });
  });
  const running = await listen(server, 'receiver', '127.0.0.1', 0);
  t.teardown(() => running.close());
  return { url: `http://${running.address}/push`, received };
}

function telemetries(url: string, entries: Readonly<Record<string, [string, number]>>): string {
  return ['telemetries:', ...Object.entries(entries).flatMap(([name, [instruction, intervalMs]]) => [
    `  ${name}:`, '    properties:', `      instruction: ${instruction}`, '      initialDelayMs: 0', `      intervalMs: ${intervalMs}`,
    '      pushSettings:', '        pushToServer: true', `        telemetryCollectionService: ${url}`,
  ])].join('\n');
}

test('a server down at start gives 502 with the reason; the session opens once it comes up', async (t) => {
  const port = await freePort();
  const gateway = await opcuaGateway(t, { endpoint: `opc.tcp://127.0.0.1:${port}` });
  const down = await waitFor('a 502 naming the endpoint', async () => {
    const r = await gateway.get('/temperature');
    const reply = r.status === 502 ? await r.json() as ErrorReply : undefined;
    return reply?.error.message.includes('refused') === true ? reply : undefined;
  }, { timeoutMs: 15_000 });
  t.is(down.error.kind, 'unavailable');
  t.is(down.error.message, `device edgedevice-test: OPC UA server at opc.tcp://127.0.0.1:${port} refused the connection`);
  t.is((await gateway.get('/ready')).status, 503);
  await opcuaMock(t, { port });
  t.is(await (await readWhenUp(gateway, '/temperature')).text(), '21.5');
});

test('a server that closes mid-session: calls get 502, then reads and subscriptions recover on the restarted server', async (t) => {
  const receiver = await pushReceiver(t);
  const first = await opcuaMock(t);
  const port = first.port;
  const gateway = await opcuaGateway(t, { endpoint: first.endpoint, telemetries: telemetries(receiver.url, { setpoint_push: ['setpoint', 100] }) });
  await readWhenUp(gateway, '/setpoint');
  t.is((await gateway.get('/setpoint', { method: 'POST', body: '{"value": 1}' })).status, 200);
  await waitFor('the written value to be pushed by subscription', () => receiver.received.find((p) => p.body === '1'), { timeoutMs: 15_000 });
  await first.close();
  const lost = await waitFor('a 502 after the server closed', async () => {
    const r = await gateway.get('/setpoint');
    return r.status === 502 ? await r.json() as ErrorReply : undefined;
  }, { timeoutMs: 15_000 });
  t.is(lost.error.kind, 'unavailable');
  const second = await opcuaMock(t, { port });
  t.is(await (await readWhenUp(gateway, '/setpoint')).text(), '100');
  // the subscription was made again on the new session: a new value is pushed without polling
  const before = receiver.received.length;
  t.is((await gateway.get('/setpoint', { method: 'PUT', body: '{"value": 77}' })).status, 200);
  await waitFor('the value written after the restart to be pushed', () => receiver.received.slice(before).find((p) => p.body === '77'), { timeoutMs: 15_000 });
  t.is(second.value(6), 77);
  t.true(gateway.logs.some((l) => l.includes('OPC UA connection lost: reconnecting')));
});

test('a server flooding notifications: at most one push per telemetry interval, newest value, other instructions keep working', async (t) => {
  const receiver = await pushReceiver(t);
  const mock = await opcuaMock(t, { floodEveryMs: 1 });
  const gateway = await opcuaGateway(t, { endpoint: mock.endpoint, telemetries: telemetries(receiver.url, { flood: ['flood', 500] }) });
  await waitFor('six pushes of the flooding node', () => (receiver.received.length >= 6 ? true : undefined), { timeoutMs: 20_000 });
  const pushes = receiver.received.slice(1, 6);
  // an interval apart on average (each push's own HTTP latency jitters the single gaps), never a burst
  const span = (pushes.at(-1)?.at ?? 0) - (pushes[0]?.at ?? 0);
  t.true(span >= (pushes.length - 1) * 450, `${pushes.length} pushes within ${span} ms`);
  const values = pushes.map((p) => Number(p.body));
  t.true(values.every((v, i) => i === 0 || v > (values[i - 1] ?? 0)), `pushed values rise: ${values.join(', ')}`);
  t.true(mock.value(FLOOD_ID) as number > 100, 'the mock did flood');
  t.is(await (await gateway.get('/temperature')).text(), '21.5');
  t.is((await gateway.get('/ready')).status, 200);
});

test('wrong credentials: 403 naming the fields to check, the password never logged; the right ones work', async (t) => {
  const mock = await opcuaMock(t, { users: { operator: 'right-pa55' } });
  const wrong = await opcuaGateway(t, { endpoint: mock.endpoint, setting: { AuthenticationMode: 'UserName', Username: 'operator', Password: 'wrong-pa55' } });
  const refused = await waitFor('a 403', async () => {
    const r = await wrong.get('/temperature');
    return r.status === 403 ? await r.json() as ErrorReply : undefined;
  }, { timeoutMs: 15_000 });
  t.is(refused.error.kind, 'forbidden');
  t.regex(refused.error.message, /refused the session with Bad\w+: .*check AuthenticationMode, Username and the password/);
  t.false(wrong.logs.some((l) => l.includes('wrong-pa55')));
  const anonymous = await opcuaGateway(t, { endpoint: mock.endpoint });
  const anonymousRefused = await waitFor('a 403 for an anonymous session', async () => {
    const r = await anonymous.get('/temperature');
    return r.status === 403 ? await r.json() as ErrorReply : undefined;
  }, { timeoutMs: 15_000 });
  t.is(anonymousRefused.error.kind, 'forbidden');
  t.regex(anonymousRefused.error.message, /does not accept ANONYMOUS identities: set OPCUASetting.AuthenticationMode/);
  const right = await opcuaGateway(t, { endpoint: mock.endpoint, setting: { AuthenticationMode: 'UserName', Username: 'operator', Password: 'right-pa55' } });
  t.is(await (await readWhenUp(right, '/temperature')).text(), '21.5');
  t.false(right.logs.some((l) => l.includes('right-pa55')));
  // the password from a Secret (standalone mode: <secrets-dir>/<name>/password)
  const secrets = await mkdtemp(join(tmpdir(), 'opcua-secrets-'));
  t.teardown(() => rm(secrets, { recursive: true, force: true }));
  await mkdir(join(secrets, 'plc-login'));
  await writeFile(join(secrets, 'plc-login', 'password'), 'right-pa55\n');
  const fromSecret = await opcuaGateway(t, { endpoint: mock.endpoint, setting: { AuthenticationMode: 'UserName', Username: 'operator', CredentialsSecret: 'plc-login' }, argv: ['--secrets-dir', secrets] });
  t.is(await (await readWhenUp(fromSecret, '/temperature')).text(), '21.5');
  t.false(fromSecret.logs.some((l) => l.includes('right-pa55')));
  const described = await (await fromSecret.get('/instructions')).text();
  t.false(described.includes('right-pa55') || described.includes('plc-login'), 'protocol settings are not shown');
});
