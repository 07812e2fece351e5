// The north-bound HTTP API against a scripted HTTP device: methods by readWrite, 404/405, query
// encoding, timeouts, error mapping, body limit, streaming, and credentials kept from devices.
import test from 'ava';
import { freePort } from '../support/controlplane/ports.ts';
import { waitFor } from '../support/wait.ts';
import { requestTarget, takeParameter } from '../../deviceshifu/http/request-rules.ts';
import { startGateway, type TestGateway } from './support/device-shifu.ts';
import { garbageDevice, idleClosingDevice, scriptedDevice } from './support/mocks.ts';

const INSTRUCTIONS = [
  'instructionSettings:', '  defaultTimeoutSeconds: 5', 'instructions:',
  '  echo:', '    readWrite: RW', '    description: Sends the request back',
  '  reader:', '    readWrite: R',
  '  writer:', '    readWrite: W',
  '  slow:', '    readWrite: R',
  '  half:', '    readWrite: R',
  '  halfbig:', '    readWrite: R',
  '  big:', '    readWrite: R',
  '  fail:', '    readWrite: R',
].join('\n');

async function gatewayTo(t: Parameters<typeof startGateway>[0], address: string, argv: string[] = []): Promise<TestGateway> {
  return startGateway(t, { data: { instructions: INSTRUCTIONS }, spec: { protocol: 'HTTP', address, description: 'A scripted device' }, argv });
}

interface ErrorBody { error: { kind: string; message: string; instruction?: string } }

test('a GET reaches the device with the query byte for byte as sent, deviceShifu\'s timeout parameter alone removed', async (t) => {
  const device = await scriptedDevice(t);
  const gateway = await gatewayTo(t, device.address);
  const response = await gateway.get('/echo?name=a%20b&amp=%26%3D&timeout=5&tag=%C3%A9&plus=a+b&at=x:y/z@w&flag&name=2&Timeout=7&timeouts=1');
  t.is(response.status, 200);
  t.is(response.headers.get('x-device'), 'scripted');
  const echoed = await response.json() as { url: string };
  t.is(echoed.url, '/echo?name=a%20b&amp=%26%3D&tag=%C3%A9&plus=a+b&at=x:y/z@w&flag&name=2&Timeout=7&timeouts=1');
  t.is(new URL(echoed.url, 'http://x').searchParams.get('amp'), '&=');
  t.is((await (await gateway.get('/echo?timeout=5')).json() as { url: string }).url, '/echo', 'no query left, no question mark');
  t.is((await (await gateway.get('/echo?')).json() as { url: string }).url, '/echo?', 'an empty query stays as sent');
});

const METHODS: ReadonlyArray<[string, string, number, string | null]> = [
  ['reader', 'GET', 200, null], ['reader', 'POST', 405, 'GET, HEAD'], ['reader', 'PUT', 405, 'GET, HEAD'],
  ['writer', 'POST', 200, null], ['writer', 'PUT', 200, null], ['writer', 'GET', 405, 'POST, PUT'], ['writer', 'DELETE', 405, 'POST, PUT'],
  ['echo', 'GET', 200, null], ['echo', 'POST', 200, null], ['echo', 'PUT', 200, null], ['echo', 'DELETE', 405, 'GET, HEAD, POST, PUT'],
];

test('methods follow readWrite: R is GET, W is POST/PUT, RW all; others are 405 with Allow', async (t) => {
  const device = await scriptedDevice(t);
  const gateway = await gatewayTo(t, device.address);
  for (const [instruction, method, status, allow] of METHODS) {
    const response = await gateway.get(`/${instruction}`, { method, ...(method === 'POST' || method === 'PUT' ? { body: 'x' } : {}) });
    t.is(response.status, status, `${method} /${instruction}`);
    t.is(response.headers.get('allow'), allow, `${method} /${instruction} Allow`);
    if (status === 405) t.like(await response.json(), { error: { kind: 'method-not-allowed', instruction } });
    else await response.arrayBuffer();
  }
  t.is(device.requests.filter((r) => r.url.startsWith('/reader') || r.url.startsWith('/writer') || r.url.startsWith('/echo')).length, METHODS.filter((m) => m[2] === 200).length);
});

test('a POST body reaches the device unchanged', async (t) => {
  const device = await scriptedDevice(t);
  const gateway = await gatewayTo(t, device.address);
  const response = await gateway.get('/writer', { method: 'POST', body: '{"value": "ünïcode"}', headers: { 'content-type': 'application/json' } });
  t.is(response.status, 200);
  t.is(device.requests.at(-1)?.body, '{"value": "ünïcode"}');
  t.is(device.requests.at(-1)?.headers['content-type'], 'application/json');
});

test('an unknown instruction is 404 listing the known ones', async (t) => {
  const device = await scriptedDevice(t);
  const gateway = await gatewayTo(t, device.address);
  const response = await gateway.get('/read_value');
  t.is(response.status, 404);
  const body = await response.json() as ErrorBody;
  t.is(body.error.kind, 'not-found');
  t.regex(body.error.message, /no instruction "read_value"; this device has: echo, reader, writer, slow, half, halfbig, big, fail/);
  t.is(device.requests.length, 0);
});

test('the caller\'s credentials and cookies never reach the device; other headers do', async (t) => {
  const device = await scriptedDevice(t);
  const gateway = await gatewayTo(t, device.address);
  const response = await gateway.get('/echo', {
    headers: { authorization: 'Bearer eyJhbGciOiJSUzI1NiIsImtpZCI6InNlcnZpY2VhY2NvdW50In0.token', cookie: 'session=1', 'proxy-authorization': 'Basic eDp5', 'x-trace': 'abc' },
  });
  t.is(response.status, 200);
  const seen = device.requests.at(-1)?.headers ?? {};
  t.is(seen.authorization, undefined);
  t.is(seen.cookie, undefined);
  t.is(seen['proxy-authorization'], undefined);
  t.is(seen['x-trace'], 'abc');
  t.false(JSON.stringify(seen).includes('eyJhbGci'));
});

test('a device that does not answer within ?timeout= is 504, and a non-numeric timeout is 400', async (t) => {
  const device = await scriptedDevice(t);
  const gateway = await gatewayTo(t, device.address);
  const pending = gateway.get('/slow?timeout=1');
  const meanwhile = await gateway.get('/echo');
  t.is(meanwhile.status, 200, 'a slow device call does not hold up other instructions');
  await meanwhile.arrayBuffer();
  t.is((await pending).status, 504);
  const slow = await gateway.get('/slow?timeout=0.3');
  t.is(slow.status, 504);
  const body = await slow.json() as ErrorBody;
  t.deepEqual(Object.keys(body), ['error']);
  t.is(body.error.kind, 'timeout');
  t.is(body.error.instruction, 'slow');
  t.regex(body.error.message, /did not answer slow within 0.3 s/);
  const bad = await gateway.get('/reader?timeout=soon');
  t.is(bad.status, 400);
  t.like(await bad.json(), { error: { kind: 'invalid', instruction: 'reader' } });
  t.is((await gateway.get('/reader?timeout=-1')).status, 200);
});

test('the instruction default timeout applies when ?timeout= is absent', async (t) => {
  const device = await scriptedDevice(t);
  const gateway = await startGateway(t, {
    data: { instructions: 'instructionSettings:\n  defaultTimeoutSeconds: 1\ninstructions:\n  slow:\n' }, spec: { protocol: 'HTTP', address: device.address },
  });
  const response = await gateway.get('/slow');
  t.is(response.status, 504);
  t.regex((await response.json() as ErrorBody).error.message, /within 1 s/);
});

test('an unreachable device is 502 naming the device and its address, and says the connection was refused', async (t) => {
  const port = await freePort();
  const gateway = await gatewayTo(t, `127.0.0.1:${port}`);
  const response = await gateway.get('/reader');
  t.is(response.status, 502);
  const body = await response.json() as ErrorBody;
  t.is(body.error.kind, 'unavailable');
  t.is(body.error.message, `device edgedevice-test at 127.0.0.1:${port} refused the connection`);
});

test('a device answering garbage is 502, and the gateway keeps serving', async (t) => {
  const garbage = await garbageDevice(t);
  const gateway = await gatewayTo(t, garbage.address);
  const response = await gateway.get('/reader');
  t.is(response.status, 502);
  t.regex((await response.json() as ErrorBody).error.message, /invalid HTTP response/);
  t.is((await gateway.get('/health')).status, 200);
});

test('a device closing mid-response is a 502 for a small reply, a cut-short stream for a large one, and other instructions keep working', async (t) => {
  const device = await scriptedDevice(t);
  const gateway = await gatewayTo(t, device.address);
  const small = await gateway.get('/half');
  t.is(small.status, 502);
  t.regex((await small.json() as ErrorBody).error.message, /closed the connection in the middle of its reply to half/);
  const large = await gateway.get('/halfbig');
  t.is(large.status, 200);
  await t.throwsAsync(large.arrayBuffer());
  const next = await gateway.get('/echo');
  t.is(next.status, 200);
  await next.arrayBuffer();
});

test('a read sent on a kept-alive connection the device has closed is sent again on a new one; a write is not', async (t) => {
  const device = await idleClosingDevice(t);
  const gateway = await gatewayTo(t, device.address);
  const first = await gateway.get('/reader');
  t.is(first.status, 200);
  t.is(await first.text(), 'connection 1');
  // the gateway keeps connection 1 open and sends the next read on it; the device resets it
  const second = await gateway.get('/reader');
  t.is(second.status, 200, 'the reset read was sent again');
  t.is(await second.text(), 'connection 2');
  t.deepEqual(device.requests.map((r) => r.method), ['GET', 'GET', 'GET'], 'one read on connection 1, the reset one, and the same read on connection 2');
  // a write on a kept-alive connection the device resets is not replayed: it may have acted on it
  const write = await gateway.get('/writer', { method: 'POST', body: 'on' });
  t.is(write.status, 502);
  t.regex((await write.json() as ErrorBody).error.message, /closed the connection before answering/);
  t.deepEqual(device.requests.map((r) => r.method), ['GET', 'GET', 'GET', 'POST'], 'the write reached the device once');
  t.is(device.connections(), 2);
});

test('device status, headers and a large body are streamed back as they are', async (t) => {
  const device = await scriptedDevice(t);
  const gateway = await gatewayTo(t, device.address);
  const fail = await gateway.get('/fail');
  t.is(fail.status, 500);
  t.is(fail.headers.get('x-device'), 'scripted');
  await fail.arrayBuffer();
  const big = Buffer.from(await (await gateway.get('/big')).arrayBuffer());
  t.is(big.length, 64 * 1024);
  t.is(big[1024 * 63], 63);
});

test('a body over the limit is 413 and the next request is served', async (t) => {
  const device = await scriptedDevice(t);
  const gateway = await gatewayTo(t, device.address, ['--body-limit-bytes', '1024']);
  const big = await gateway.get('/writer', { method: 'POST', body: 'x'.repeat(4096) });
  t.is(big.status, 413);
  t.like(await big.json(), { error: { kind: 'too-large', instruction: 'writer' } });
  t.false(device.requests.some((r) => r.url === '/writer'));
  const small = await gateway.get('/writer', { method: 'POST', body: 'ok' });
  t.is(small.status, 200);
});

test('/health, /ready, /metrics and /instructions describe the gateway and the device', async (t) => {
  const device = await scriptedDevice(t);
  const gateway = await gatewayTo(t, device.address);
  t.is(await (await gateway.get('/health')).text(), 'ok');
  await waitFor('the probe to make the gateway ready', async () => ((await gateway.get('/ready')).status === 200 ? true : undefined), { timeoutMs: 10_000 });
  await (await gateway.get('/reader')).arrayBuffer();
  const metrics = await (await gateway.get('/metrics')).text();
  t.regex(metrics, /edgeshifu_deviceshifu_requests_total\{instruction="reader",method="GET",status="200"/);
  t.regex(metrics, /edgeshifu_deviceshifu_device_latency_seconds_count\{[^}]*instruction="reader"[^}]*\} 1/);
  const description = await (await gateway.get('/instructions')).json() as { device: { description: string }; instructions: Array<{ name: string; methods: string[]; description?: string }> };
  t.is(description.device.description, 'A scripted device');
  t.deepEqual(description.instructions.find((i) => i.name === 'echo'), { name: 'echo', path: '/echo', readWrite: 'RW', methods: ['GET', 'HEAD', 'POST', 'PUT'], description: 'Sends the request back' });
  t.deepEqual(await (await gateway.get('/')).json(), description);
});

test('/ready is 503 while the device cannot be reached', async (t) => {
  const gateway = await gatewayTo(t, `127.0.0.1:${await freePort()}`);
  await waitFor('the first probe', () => gateway.running.gateway.health.snapshot().probe, { timeoutMs: 10_000 });
  t.false(gateway.running.gateway.health.snapshot().probe?.ok);
  const response = await gateway.get('/ready');
  t.is(response.status, 503);
  t.like(await response.json(), { ready: false });
});

test('built-in paths answer GET and HEAD in any case and with one trailing slash; other methods on them are unknown instructions', async (t) => {
  const device = await scriptedDevice(t);
  const gateway = await gatewayTo(t, device.address);
  for (const path of ['/health', '/HEALTH', '/health/', '/health?probe=1']) {
    const response = await gateway.get(path);
    t.is(response.status, 200, path);
    t.is(response.headers.get('content-type'), 'text/plain; charset=utf-8');
    t.is(await response.text(), 'ok');
  }
  const head = await gateway.get('/Instructions/', { method: 'HEAD' });
  t.is(head.status, 200);
  t.is(head.headers.get('content-type'), 'application/json; charset=utf-8');
  t.true(Number(head.headers.get('content-length')) > 0);
  t.is(await head.text(), '');
  const post = await gateway.get('/health', { method: 'POST' });
  t.is(post.status, 404);
  t.like(await post.json(), { error: { kind: 'not-found', message: 'no instruction "health"; this device has: echo, reader, writer, slow, half, halfbig, big, fail' } });
  t.is((await gateway.get('//health')).status, 404, 'a double slash is no built-in path');
});

test('a device\'s reply headers reach the caller as the device sent them', async (t) => {
  const device = await scriptedDevice(t);
  const gateway = await gatewayTo(t, device.address);
  const response = await gateway.get('/reader');
  t.is(response.headers.get('content-type'), 'application/json', 'no charset added');
  t.is(response.headers.get('x-device'), 'scripted');
  t.regex(response.headers.get('date') ?? '', /^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/, 'one Date header, the device\'s');
  t.is(response.headers.get('content-length'), String(Buffer.byteLength(await response.text())));
  const big = await gateway.get('/big');
  t.regex(big.headers.get('date') ?? '', /^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/, 'one Date header on a streamed reply too');
  await big.arrayBuffer();
});

test('request targets split into path and query without being resolved or re-encoded', (t) => {
  const cases: Array<[string, string, string]> = [
    ['/read_value?x=1&timeout=2', '/read_value', '?x=1&timeout=2'],
    ['//read_value', '//read_value', ''],
    ['/na%20me?a=%20b+c', '/na%20me', '?a=%20b+c'],
    ['/a?', '/a', '?'],
    ['http://deviceshifu.example/read_value?x=1', '/read_value', '?x=1'],
    ['http://deviceshifu.example?x=1', '/', '?x=1'],
    ['*', '*', ''],
  ];
  for (const [url, pathname, search] of cases) {
    const target = requestTarget(url);
    t.is(target.pathname, pathname, url);
    t.is(target.search, search, url);
  }
});

test('deviceShifu\'s own parameter is taken out of a query, the rest left byte for byte', (t) => {
  const cases: Array<[string, string | null, string]> = [
    ['', null, ''],
    ['?', null, '?'],
    ['?a=%20b&c=d+e', null, '?a=%20b&c=d+e'],
    ['?timeout=5', '5', ''],
    ['?a=1&timeout=5&b', '5', '?a=1&b'],
    ['?timeout=5&timeout=7&x=%2F', '5', '?x=%2F'],
    ['?time%6Fut=+2+', ' 2 ', ''],
    ['?timeout', '', ''],
    ['?Timeout=1&timeouts=2&a=timeout', null, '?Timeout=1&timeouts=2&a=timeout'],
  ];
  for (const [search, value, rest] of cases) t.deepEqual(takeParameter(search, 'timeout'), { value, rest }, search);
});
