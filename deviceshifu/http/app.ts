// deviceShifu's north-bound HTTP API on node:http: the built-in paths (GET and HEAD, any case, one
// optional trailing slash, as express matched them), then `/<instruction>`, and one error handler
// that turns every failure into the stable JSON error body. express cost deviceShifu about 11 MB
// of RSS for these few routes (measured with the image's flags), out of a 50 MB budget.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeDevice } from './describe.ts';
import { instructionRoute, type RequestContext } from './instruction-route.ts';
import { problemOf } from './problem.ts';
import { send, sendJson } from './reply.ts';
import { requestTarget } from './request-rules.ts';
import type { GatewayView } from './view.ts';

type BuiltIn = (view: GatewayView, res: ServerResponse) => void;

function ready(view: GatewayView, res: ServerResponse): void {
  const { lastOkAt } = view.health.snapshot();
  const age = lastOkAt === undefined ? undefined : view.health.now() - lastOkAt;
  if (age !== undefined && age <= view.readyWindowMs) {
    sendJson(res, 200, { ready: true, lastAnsweredMsAgo: age });
    return;
  }
  const device = view.device();
  sendJson(res, 503, { ready: false, reason: device === undefined ? 'no EdgeDevice yet' : `device has not answered within ${view.readyWindowMs} ms` });
}

const BUILT_INS: Readonly<Record<string, BuiltIn>> = {
  health: (_view, res) => { send(res, { status: 200, contentType: 'text/plain; charset=utf-8', body: 'ok' }); },
  ready,
  metrics: (view, res) => { send(res, { status: 200, contentType: view.metrics.registry.contentType, body: view.metrics.registry.metrics() }); },
  instructions: (view, res) => { sendJson(res, 200, describeDevice(view.device(), view.config())); },
};

const BUILT_IN_PATH = /^\/(?:(health|ready|metrics|instructions)\/?)?$/i;

/** The built-in answering this request, if any: `/` is `/instructions`; other methods fall through to the instructions. */
function builtInFor(method: string | undefined, pathname: string): BuiltIn | undefined {
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  const match = BUILT_IN_PATH.exec(pathname);
  if (match === null) return undefined;
  return BUILT_INS[(match[1] ?? 'instructions').toLowerCase()];
}

function fail(view: GatewayView, res: ServerResponse, context: RequestContext, err: unknown): void {
  if (res.headersSent) {
    // the reply is under way: all that is left is to cut it
    res.destroy();
    return;
  }
  const problem = problemOf(err, context.instruction);
  if (problem.status >= 500) view.logger.warn({ instruction: context.instruction, status: problem.status, err: problem.body.error.message }, 'device call failed');
  sendJson(res, problem.status, problem.body, problem.headers);
}

const CONTEXT = Symbol('deviceShifu request context');
type Served = ServerResponse & { [CONTEXT]?: RequestContext };

/** The caller went away before its reply was sent: stop the device call. Shared by every response (no closure per request). */
function onClose(this: Served): void {
  if (!this.writableFinished) this[CONTEXT]?.stop?.abort();
}

export function createHandler(view: GatewayView): (req: IncomingMessage, res: ServerResponse) => void {
  const route = instructionRoute(view, (res, context, err) => { fail(view, res, context, err); });
  function onFinish(this: Served): void {
    view.metrics.requests.inc({ instruction: this[CONTEXT]?.instruction ?? 'none', method: this.req.method ?? '', status: String(this.statusCode) });
  }
  return (req, res: Served) => {
    const context: RequestContext = {};
    res[CONTEXT] = context;
    res.on('finish', onFinish);
    res.on('close', onClose);
    const target = requestTarget(req.url ?? '/');
    const builtIn = builtInFor(req.method, target.pathname);
    try {
      if (builtIn !== undefined) {
        builtIn(view, res);
        return;
      }
      void route(req, res, target, context);
    } catch (err) {
      fail(view, res, context, err);
    }
  };
}
