// `/<instruction>`: find it, check the method, read timeout and body, call the device, stream the
// answer back. Errors are thrown as EdgeshifuError and answered by the app's one error handler.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EdgeshifuError } from '../../shared/errors.ts';
import type { Instruction } from '../config/types.ts';
import { deviceBoundHeaders } from '../drivers/headers.ts';
import { readBody } from './body.ts';
import { CutShort, relay } from './relay.ts';
import { HttpProblem } from './problem.ts';
import { allowedMethods, timeoutSeconds, type RequestTarget } from './request-rules.ts';
import type { GatewayView } from './view.ts';

/** What the app learns about a request while it is served (the metrics label, the error body). */
export interface RequestContext {
  instruction?: string;
}

function findInstruction(view: GatewayView, path: string): Instruction {
  const config = view.config();
  let name: string;
  try {
    name = decodeURIComponent(path.slice(1));
  } catch {
    name = path.slice(1);
  }
  const instruction = config?.instructions.get(name);
  if (instruction !== undefined) return instruction;
  const known = [...(config?.instructions.keys() ?? [])];
  throw new EdgeshifuError('not-found', `no instruction "${name}"; this device has: ${known.length === 0 ? '(none)' : known.join(', ')}`);
}

async function sendResponse(view: GatewayView, res: ServerResponse, instruction: Instruction, response: Awaited<ReturnType<GatewayView['call']>>): Promise<void> {
  try {
    await relay(res, response, instruction.name);
  } catch (err) {
    if (!(err instanceof CutShort)) throw err;
    view.logger.warn({ instruction: instruction.name, err: err.message }, 'device stopped mid-response; reply to the caller cut short');
    res.destroy();
  }
}

export type InstructionRoute = (req: IncomingMessage, res: ServerResponse, target: RequestTarget, context: RequestContext) => Promise<void>;

export function instructionRoute(view: GatewayView): InstructionRoute {
  return async (req, res, target, context) => {
    const instruction = findInstruction(view, target.pathname);
    context.instruction = instruction.name;
    const method = req.method ?? '';
    const methods = allowedMethods(instruction.readWrite, view.device()?.spec.protocol);
    if (!methods.includes(method)) {
      throw new HttpProblem('method-not-allowed', `instruction ${instruction.name} is ${instruction.readWrite}: use ${methods.join(', ')}`, { allow: methods.join(', ') });
    }
    const query = new URLSearchParams(target.query);
    const timeout = timeoutSeconds(query.get('timeout'), view.config()?.defaultTimeoutSeconds ?? 3);
    query.delete('timeout');
    const body = await readBody(req, view.bodyLimitBytes);
    const gone = new AbortController();
    res.once('close', () => { if (!res.writableFinished) gone.abort(); });
    const response = await view.call(instruction, {
      method, query, headers: deviceBoundHeaders(req.headers), body, timeoutSeconds: timeout, source: 'request', signal: gone.signal,
    });
    await sendResponse(view, res, instruction, response);
  };
}
