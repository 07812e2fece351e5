// One request to the registered client and its answer: confirmable, retransmitted by node-coap
// (RFC 7252 §4.2), given up when the call's signal aborts (its deadline, the caller leaving) or the
// registration ends under it (De-register, expiry: the `gone` signal), whichever comes first.
import type { Agent, IncomingMessage, OutgoingMessage } from 'coap';
import { noAnswer, sendFailure } from './codes.ts';
import type { Registration } from './registry.ts';

export interface CoapRequest {
  readonly method: 'GET' | 'PUT' | 'POST';
  readonly path: string;
  /** What the request is, for errors: "read of /3303/0/5700". */
  readonly what: string;
  readonly payload?: Buffer;
  /** Content-Format name as node-coap knows it: 'text/plain', 'application/octet-stream'. */
  readonly contentFormat?: string;
  readonly accept?: string;
  readonly observe?: boolean;
}

/** A registered client and how to reach it: the agent on the server's socket, its registration, and a signal that aborts when the registration ends. */
export interface Session {
  readonly agent: Agent;
  readonly registration: Registration;
  readonly gone: AbortSignal;
}

export interface CoapAnswer {
  readonly code: string;
  readonly payload: Buffer;
  readonly contentFormat: string | undefined;
  /** The response stream (an ObserveReadStream when observing). */
  readonly message: IncomingMessage;
}

export function where(registration: Registration): string {
  return `${registration.address}:${registration.port}`;
}

function rejectOnAbort(signal: AbortSignal, reject: (err: Error) => void): () => void {
  const onAbort = (): void => { reject(signal.reason instanceof Error ? signal.reason : new Error('aborted')); };
  signal.addEventListener('abort', onAbort, { once: true });
  return () => { signal.removeEventListener('abort', onAbort); };
}

export function exchange(session: Session, request: CoapRequest, signal: AbortSignal): Promise<CoapAnswer> {
  const { agent, registration, gone } = session;
  signal.throwIfAborted();
  gone.throwIfAborted();
  return new Promise<CoapAnswer>((resolve, reject) => {
    let req: OutgoingMessage | undefined;
    let settled = false;
    const cleanups: Array<() => void> = [];
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      for (const c of cleanups) c();
      fn();
    };
    const abandon = (err: Error): void => {
      settle(() => {
        // stop the retransmissions; a late answer then finds no request and is dropped
        if (req !== undefined) agent.abort(req);
        reject(err);
      });
    };
    cleanups.push(rejectOnAbort(signal, abandon), rejectOnAbort(gone, abandon));
    const options: Record<string, string> = {};
    if (request.contentFormat !== undefined) options['Content-Format'] = request.contentFormat;
    if (request.accept !== undefined) options.Accept = request.accept;
    try {
      req = agent.request({
        host: registration.address, port: registration.port, method: request.method, pathname: request.path, confirmable: true,
        options, ...(request.observe === true ? { observe: true } : {}),
      });
    } catch (err) {
      settle(() => { reject(sendFailure(err, request.what, where(registration))); });
      return;
    }
    req.on('response', (message: IncomingMessage) => {
      const format = message.headers['Content-Format'];
      settle(() => { resolve({ code: message.code, payload: message.payload, contentFormat: format === undefined || format === null ? undefined : String(format), message }); });
    });
    req.on('timeout', () => { settle(() => { reject(noAnswer(request.what, where(registration))); }); });
    req.on('error', (err: Error) => { settle(() => { reject(sendFailure(err, request.what, where(registration))); }); });
    req.end(request.payload);
  });
}
