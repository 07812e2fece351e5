// One HTTP exchange with a device, the response streamed back. Shared by the HTTP and
// HTTPCommandline drivers. Only the headers given here go out: the agent carries no credentials.
import type { Agent, OutgoingHttpHeaders } from 'node:http';
import { http, https } from '../../shared/node-http.ts';
import type { DriverResponse } from './driver.ts';
import { deviceError } from './device-errors.ts';
import { callerBoundHeaders } from './headers.ts';

export interface DeviceHttpRequest {
  readonly url: URL;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly signal: AbortSignal;
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

function exchange(agent: Agent, req: DeviceHttpRequest, resendable: boolean): Promise<DriverResponse> {
  const headers: OutgoingHttpHeaders = { ...req.headers };
  if (req.body.length > 0 || req.method === 'POST' || req.method === 'PUT') headers['content-length'] = req.body.length;
  const send = req.url.protocol === 'https:' ? https().request : http.request;
  return new Promise<DriverResponse>((resolve, reject) => {
    const outgoing = send(req.url, { method: req.method, headers, agent, signal: req.signal }, (res) => {
      resolve({ status: res.statusCode ?? 502, headers: callerBoundHeaders(res.headers), body: res });
    });
    outgoing.on('error', (err: NodeJS.ErrnoException) => {
      const closedWhileIdle = outgoing.reusedSocket && err.code === 'ECONNRESET' && !req.signal.aborted;
      reject(resendable && closedWhileIdle ? new StaleConnection(err.message) : deviceError(err, req.url.host));
    });
    if (req.body.length > 0) outgoing.end(req.body);
    else outgoing.end();
  });
}
