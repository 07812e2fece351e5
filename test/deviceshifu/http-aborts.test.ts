// A device call stops when its caller leaves and when its deadline passes, a streamed reply
// included: the HTTP exchange watches the call's signal itself, and these prove what it does.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { waitFor } from '../support/wait.ts';
import { startGateway, type TestGateway } from './support/device-shifu.ts';

/** A device that holds `/hold` unanswered and trickles `/trickle` (no length) without ending it; it counts its open requests. */
async function holdingDevice(t: ExecutionContext): Promise<{ address: string; open: () => number; received: (part: string) => number }> {
  let open = 0;
  const urls: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    urls.push(req.url ?? '');
    open += 1;
    res.on('close', () => { open -= 1; });
    if (req.url?.startsWith('/trickle') === true) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write(Buffer.alloc(80 * 1024, 7));
      return;
    }
    if (req.url?.startsWith('/echo') === true) res.end('ok');
  });
  await new Promise<void>((resolve) => { server.listen(0, '127.0.0.1', resolve); });
  t.teardown(() => { server.closeAllConnections(); server.close(); });
  return { address: `127.0.0.1:${String((server.address() as AddressInfo).port)}`, open: () => open, received: (part) => urls.filter((u) => u.includes(part)).length };
}

const INSTRUCTIONS = 'instructionSettings:\n  defaultTimeoutSeconds: 30\ninstructions:\n  hold:\n    readWrite: R\n  trickle:\n    readWrite: R\n  echo:\n    readWrite: R\n';

async function gatewayTo(t: ExecutionContext, address: string): Promise<TestGateway> {
  return startGateway(t, { data: { instructions: INSTRUCTIONS }, spec: { protocol: 'HTTP', address } });
}

test('a caller that leaves stops its device call: the device sees the request closed', async (t) => {
  const device = await holdingDevice(t);
  const gateway = await gatewayTo(t, device.address);
  const leaving = new AbortController();
  const pending = gateway.get('/hold', { signal: leaving.signal });
  await waitFor('the device to receive the call', () => (device.open() === 1 ? true : undefined), { timeoutMs: 10_000 });
  leaving.abort();
  await t.throwsAsync(pending);
  await waitFor('the device call to be stopped', () => (device.open() === 0 ? true : undefined), { timeoutMs: 10_000 });
  const next = await gateway.get('/echo');
  t.is(next.status, 200);
  t.is(await next.text(), 'ok');
});

test('the deadline covers a streamed reply: the caller\'s reply is cut short and the device request closed', async (t) => {
  const device = await holdingDevice(t);
  const gateway = await gatewayTo(t, device.address);
  const reply = await gateway.get('/trickle?timeout=0.5');
  t.is(reply.status, 200, 'the head went out before the deadline');
  await t.throwsAsync(reply.arrayBuffer(), undefined, 'the body is cut short when the deadline passes');
  await waitFor('the device request to be closed', () => (device.open() === 0 ? true : undefined), { timeoutMs: 10_000 });
});

test('stress: callers leaving, deadlines passing and answers, all at once, leave no device call open', async (t) => {
  const device = await holdingDevice(t);
  const gateway = await gatewayTo(t, device.address);
  const leaving: AbortController[] = [];
  const calls: Array<Promise<unknown>> = [];
  for (let i = 0; i < 60; i += 1) {
    if (i % 3 === 0) {
      const stop = new AbortController();
      leaving.push(stop);
      calls.push(gateway.get('/hold?who=leaving', { signal: stop.signal }).then((r) => r.arrayBuffer(), () => undefined));
    } else if (i % 3 === 1) {
      calls.push(gateway.get('/hold?timeout=0.3').then(async (r) => { t.is(r.status, 504); await r.arrayBuffer(); }));
    } else {
      calls.push(gateway.get('/echo').then(async (r) => { t.is(r.status, 200); t.is(await r.text(), 'ok'); }));
    }
  }
  await waitFor('the device to receive every call whose caller will leave', () => (device.received('who=leaving') === 20 ? true : undefined), { timeoutMs: 20_000 });
  for (const stop of leaving) stop.abort();
  await Promise.all(calls);
  await waitFor('every held device call to be closed', () => (device.open() === 0 ? true : undefined), { timeoutMs: 20_000 });
  const metrics = await (await gateway.get('/metrics')).text();
  t.regex(metrics, /edgeshifu_deviceshifu_device_latency_seconds_count\{[^}]*instruction="hold",outcome="timeout"[^}]*\} 20/);
});
