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

export async function forwardHttp(agent: Agent, req: DeviceHttpRequest): Promise<DriverResponse> {
  const headers: OutgoingHttpHeaders = { ...req.headers };
  if (req.body.length > 0 || req.method === 'POST' || req.method === 'PUT') headers['content-length'] = req.body.length;
  const send = req.url.protocol === 'https:' ? https().request : http.request;
  return new Promise<DriverResponse>((resolve, reject) => {
    const outgoing = send(req.url, { method: req.method, headers, agent, signal: req.signal }, (res) => {
      resolve({ status: res.statusCode ?? 502, headers: callerBoundHeaders(res.headers), body: res });
    });
    outgoing.on('error', (err) => { reject(deviceError(err, req.url.host)); });
    if (req.body.length > 0) outgoing.end(req.body);
    else outgoing.end();
  });
}
