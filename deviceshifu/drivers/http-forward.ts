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

class StaleConnection extends Error {}

export async function forwardHttp(agent: Agent, req: DeviceHttpRequest): Promise<DriverResponse> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await exchange(agent, req, attempt < MAX_ATTEMPTS && RESENDABLE.has(req.method));
    } catch (err) {
      if (!(err instanceof StaleConnection)) throw err;
    }
  }
}

function outgoingHeaders(req: DeviceHttpRequest): string[] {
  const headers = ['Host', req.device.hostHeader, ...req.headers];
  if (req.body.length > 0 || req.method === 'POST' || req.method === 'PUT') headers.push('Content-Length', String(req.body.length));
  return headers;
}

/** The whole of a short reply, or a 502 when the device stops in the middle of it. */
function readWhole(res: IncomingMessage, what: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => { chunks.push(chunk); });
    res.on('end', () => { resolve(chunks.length === 1 ? chunks[0] ?? Buffer.alloc(0) : Buffer.concat(chunks)); });
    res.on('error', (err) => { reject(new EdgeshifuError('unavailable', `device closed the connection in the middle of its reply to ${what}`, { cause: err })); });
  });
}

function exchange(agent: Agent, req: DeviceHttpRequest, resendable: boolean): Promise<DriverResponse> {
  const { device } = req;
  const options: RequestOptions = { host: device.host, port: device.port, path: req.path, method: req.method, headers: outgoingHeaders(req), agent, signal: req.signal };
  return new Promise<DriverResponse>((resolve, reject) => {
    const answered = (res: IncomingMessage): void => {
      const headers = callerBoundHeaders(res.rawHeaders);
      const status = res.statusCode ?? 502;
      const length = Number(headerValue(res.rawHeaders, 'content-length') ?? NaN);
      if (length <= BUFFER_BELOW) readWhole(res, req.what).then((body) => { resolve({ status, headers, body }); }, reject);
      else resolve({ status, headers, body: res });
    };
    const outgoing: ClientRequest = device.https ? https().request(options, answered) : http.request(options, answered);
    outgoing.on('error', (err: NodeJS.ErrnoException) => {
      const closedWhileIdle = outgoing.reusedSocket && err.code === 'ECONNRESET' && !req.signal.aborted;
      reject(resendable && closedWhileIdle ? new StaleConnection(err.message) : deviceError(err, device.hostHeader));
    });
    if (req.body.length > 0) outgoing.end(req.body);
    else outgoing.end();
  });
}
