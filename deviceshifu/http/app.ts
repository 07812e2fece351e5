// deviceShifu's north-bound HTTP API (express 5): built-in paths first, then `/<instruction>`,
// then the one error handler that turns every failure into the stable JSON error body.
import express, { type NextFunction, type Request, type Response } from 'express';
import { describeDevice } from './describe.ts';
import { instructionRoute } from './instruction-route.ts';
import { problemOf } from './problem.ts';
import type { GatewayView } from './view.ts';

function ready(view: GatewayView, res: Response): void {
  const { lastOkAt } = view.health.snapshot();
  const age = lastOkAt === undefined ? undefined : view.health.now() - lastOkAt;
  if (age !== undefined && age <= view.readyWindowMs) {
    res.json({ ready: true, lastAnsweredMsAgo: age });
    return;
  }
  const device = view.device();
  res.status(503).json({ ready: false, reason: device === undefined ? 'no EdgeDevice yet' : `device has not answered within ${view.readyWindowMs} ms` });
}

function countRequests(view: GatewayView) {
  return (req: Request, res: Response, next: NextFunction): void => {
    res.once('finish', () => {
      const instruction = typeof res.locals.instruction === 'string' ? res.locals.instruction : 'none';
      view.metrics.requests.inc({ instruction, method: req.method, status: String(res.statusCode) });
    });
    next();
  };
}

export function createApp(view: GatewayView): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(countRequests(view));
  app.get('/health', (_req, res) => { res.type('text/plain').send('ok'); });
  app.get('/ready', (_req, res) => { ready(view, res); });
  app.get('/metrics', async (_req, res) => {
    res.type(view.metrics.registry.contentType).send(await view.metrics.registry.metrics());
  });
  app.get(['/', '/instructions'], (_req, res) => { res.json(describeDevice(view.device(), view.config())); });
  app.use(instructionRoute(view));
  app.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const instruction = typeof res.locals.instruction === 'string' ? res.locals.instruction : undefined;
    const problem = problemOf(err, instruction);
    if (problem.status >= 500) view.logger.warn({ instruction, status: problem.status, err: problem.body.error.message }, 'device call failed');
    res.status(problem.status).set(problem.headers).json(problem.body);
  });
  return app;
}
