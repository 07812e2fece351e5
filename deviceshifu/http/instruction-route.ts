// `/<instruction>`: find it, check the method, take deviceShifu's `timeout` out of the query (the
// rest goes to the device byte for byte), read the body, call the device, send the answer back.
// Errors are thrown as EdgeshifuError and answered by the app's one error handler.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EdgeshifuError } from '../../shared/errors.ts';
import type { Instruction } from '../config/types.ts';
import { deviceBoundHeaders } from '../drivers/headers.ts';
import { hasNoBody, NO_BODY, readBody } from './body.ts';
import { CutShort, relay } from './relay.ts';
import { HttpProblem } from './problem.ts';
import { allowedMethods, takeParameter, timeoutSeconds, type RequestTarget } from './request-rules.ts';
import type { GatewayView } from './view.ts';

/** What the app learns about a request while it is served (the metrics label, the error body). */
export interface RequestContext {
  instruction?: string;
  /** Aborted when the caller goes away before its reply is sent: the device call stops. */
  stop?: AbortController;
}

function findInstruction(view: GatewayView, path: string): Instruction {
  const config = view.config();
  let name = path.slice(1);
  if (name.includes('%')) {
    try {
      name = decodeURIComponent(name);
    } catch { /* not percent-encoding: the name as sent */ }
  }
  const instruction = config?.instructions.get(name);
  if (instruction !== undefined) return instruction;
  const known = [...(config?.instructions.keys() ?? [])];
  throw new EdgeshifuError('not-found', `no instruction "${name}"; this device has: ${known.length === 0 ? '(none)' : known.join(', ')}`);
}

/** A streamed reply's end: a device that stops mid-way cuts the caller's reply short. */
async function streamed(view: GatewayView, res: ServerResponse, instruction: Instruction, relaying: Promise<void>): Promise<void> {
  try {
    await relaying;
  } catch (err) {
    if (!(err instanceof CutShort)) throw err;
    view.logger.warn({ instruction: instruction.name, err: err.message }, 'device stopped mid-response; reply to the caller cut short');
    res.destroy();
  }
}

/** Settles when the reply is sent; it never rejects: a failure goes to `fail`, which answers it. */
export type InstructionRoute = (req: IncomingMessage, res: ServerResponse, target: RequestTarget, context: RequestContext) => Promise<void>;
export type RouteFailure = (res: ServerResponse, context: RequestContext, err: unknown) => void;

export function instructionRoute(view: GatewayView, fail: RouteFailure): InstructionRoute {
  return async (req, res, target, context) => {
    try {
      const instruction = findInstruction(view, target.pathname);
      context.instruction = instruction.name;
      const method = req.method ?? '';
      const methods = allowedMethods(instruction.readWrite, view.device()?.spec.protocol);
      if (!methods.includes(method)) {
        throw new HttpProblem('method-not-allowed', `instruction ${instruction.name} is ${instruction.readWrite}: use ${methods.join(', ')}`, { allow: methods.join(', ') });
      }
      const { value, rest } = takeParameter(target.search, 'timeout');
      const timeout = timeoutSeconds(value, view.config()?.defaultTimeoutSeconds ?? 3);
      const body = hasNoBody(req) ? NO_BODY : await readBody(req, view.bodyLimitBytes);
      const stop = new AbortController();
      context.stop = stop;
      const response = await view.call(instruction, {
        method, query: rest, headers: deviceBoundHeaders(req.rawHeaders), body, timeoutSeconds: timeout, source: 'request', stop,
      });
      // a whole reply is written at once; only a stream is awaited (each await is a turn of the microtask queue)
      const relaying = relay(res, response, instruction.name);
      if (relaying !== undefined) await streamed(view, res, instruction, relaying);
    } catch (err) {
      fail(res, context, err);
    }
  };
}
