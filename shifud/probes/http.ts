// HTTP devices with a health path (spec.customMetadata.healthPath): GET it on a fresh connection
// and keep the status and the first bytes of the body for the verifier's identity check.
import type { ClientRequest, IncomingMessage } from 'node:http';
import { http, https } from '../../shared/node-http.ts';
import { failureOutcome, type ProbeOutcome } from './outcome.ts';

/** Enough of a health body to find an identity string in it; the rest is not read. */
const MAX_BODY_BYTES = 4096;

function readBody(response: IncomingMessage, done: (body: string) => void): void {
  const chunks: Buffer[] = [];
  let length = 0;
  const finish = (): void => { done(Buffer.concat(chunks).toString('utf8', 0, Math.min(length, MAX_BODY_BYTES))); };
  response.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    length += chunk.length;
    if (length >= MAX_BODY_BYTES) { response.destroy(); finish(); }
  });
  response.once('end', finish);
  response.once('error', finish);
}

export async function probeHttp(url: string, signal: AbortSignal, timeoutMs: number): Promise<ProbeOutcome> {
  if (signal.aborted) return { kind: 'timeout', detail: `no connection to ${url} within ${timeoutMs} ms` };
  return new Promise((resolve) => {
    let connected = false;
    let settled = false;
    const request: (url: string, options: object) => ClientRequest = url.startsWith('https:') ? https().request : http.request;
    const req = request(url, { method: 'GET', agent: false, headers: { 'user-agent': 'shifud', accept: '*/*' } });
    const finish = (outcome: ProbeOutcome): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      req.destroy();
      resolve(outcome);
    };
    const onAbort = (): void => {
      finish(connected
        ? { kind: 'hung', detail: `${url} accepted the connection but did not answer within ${timeoutMs} ms` }
        : { kind: 'timeout', detail: `no connection to ${url} within ${timeoutMs} ms` });
    };
    signal.addEventListener('abort', onAbort, { once: true });
    req.once('socket', (socket) => { socket.once('connect', () => { connected = true; }); });
    req.once('error', (err) => { finish(failureOutcome(err, url)); });
    req.once('response', (response) => {
      const status = response.statusCode ?? 0;
      readBody(response, (body) => { finish({ kind: 'answered', detail: `${url} answered HTTP ${status}`, httpStatus: status, body }); });
    });
    req.end();
  });
}
