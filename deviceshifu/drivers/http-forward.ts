// One HTTP exchange with a device. Shared by the HTTP and HTTPCommandline drivers. Only the headers
// given here go out: the agent carries no credentials. A reply whose Content-Length is within
// BUFFER_BELOW is read whole here (most device answers: the caller then gets it in one write);
// longer or unframed ones are handed back as the stream.
import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { EdgeshifuError } from '../../shared/errors.ts';
import { http, https } from '../../shared/node-http.ts';
import type { DriverResponse } from './driver.ts';
import type { HttpDevice } from './address.ts';
import { deviceError } from './device-errors.ts';
import { callerBoundHeaders, headerValue, type RawHeaders } from './headers.ts';

export const BUFFER_BELOW = 64 * 1024;

export interface DeviceHttpRequest {
  readonly device: HttpDevice;
  /** Path and query, as they go on the request line. */
  readonly path: string;
  readonly method: string;
  readonly headers: RawHeaders;
  readonly body: Buffer;
  readonly signal: AbortSignal;
  /** The instruction, for error messages. */
  readonly what: string;
}

// A device may close a kept-alive connection while it is idle, and the agent cannot know before it
// sends the next request on it: that request fails with a reset. Reads are sent again on another
// connection; writes are not, since the device may have acted on them before it closed.
const RESENDABLE = new Set(['GET', 'HEAD']);
// each attempt on a closed connection destroys it, so this bounds only a pool of stale sockets
const MAX_ATTEMPTS = 4;
const EMPTY = Buffer.alloc(0);

export function forwardHttp(agent: Agent, req: DeviceHttpRequest): Promise<DriverResponse> {
  return exchange(agent, req, 1);
}

function outgoingHeaders(req: DeviceHttpRequest): string[] {
  const headers = ['Host', req.device.hostHeader, ...req.headers];
  if (req.body.length > 0 || req.method === 'POST' || req.method === 'PUT') headers.push('Content-Length', String(req.body.length));
  return headers;
}

function aborted(signal: AbortSignal): Error {
  return new DOMException('the device call was aborted', { name: 'AbortError', cause: signal.reason });
}

// One promise per exchange, settled straight from the request's and reply's events (no promise
// per step). The signal is watched here, not given to http.request: Node then ties it to the
// request with an end-of-stream watcher (a handful of listeners added and removed per call), which
// cost more than the rest of this exchange's own work (deviceshifu/README.md, "Against the bare
// Node proxy"). Aborting destroys the request, and with it a reply still streaming.
function exchange(agent: Agent, req: DeviceHttpRequest, attempt: number): Promise<DriverResponse> {
  const { device, signal } = req;
  if (signal.aborted) return Promise.reject(aborted(signal));
  const resendable = attempt < MAX_ATTEMPTS && RESENDABLE.has(req.method);
  const options: RequestOptions = { host: device.host, port: device.port, path: req.path, method: req.method, headers: outgoingHeaders(req), agent };
  return new Promise<DriverResponse>((resolve, reject) => {
    const onAbort = (): void => { outgoing.destroy(aborted(signal)); };
    const done = (): void => { signal.removeEventListener('abort', onAbort); };
    const answered = (res: IncomingMessage): void => {
      const headers = callerBoundHeaders(res.rawHeaders);
      const status = res.statusCode ?? 502;
      const length = Number(headerValue(res.rawHeaders, 'content-length') ?? NaN);
      if (!(length <= BUFFER_BELOW)) {
        res.once('close', done);
        resolve({ status, headers, body: res });
        return;
      }
      // short: read whole, so the caller gets head and body in one write
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => { chunks.push(chunk); });
      res.on('end', () => { done(); resolve({ status, headers, body: chunks.length === 1 ? chunks[0] ?? EMPTY : Buffer.concat(chunks) }); });
      res.on('error', (err) => { done(); reject(new EdgeshifuError('unavailable', `device closed the connection in the middle of its reply to ${req.what}`, { cause: err })); });
    };
    const outgoing: ClientRequest = device.https ? https().request(options, answered) : http.request(options, answered);
    signal.addEventListener('abort', onAbort, { once: true });
    outgoing.on('error', (err: NodeJS.ErrnoException) => {
      done();
      const closedWhileIdle = outgoing.reusedSocket && err.code === 'ECONNRESET' && !signal.aborted;
      if (resendable && closedWhileIdle) resolve(exchange(agent, req, attempt + 1));
      else reject(deviceError(err, device.hostHeader));
    });
    if (req.body.length > 0) outgoing.end(req.body);
    else outgoing.end();
  });
}
