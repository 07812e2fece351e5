// LwM2M (Shifu-compatible): deviceShifu is the LwM2M server its device registers with, over CoAP
// on UDP (server.ts). Each instruction names a resource (ObjectId: /3303/0/5700). GET reads it,
// PUT writes it, POST executes an executable resource and writes any other; telemetry observes
// instead of polling. Until the device has registered every call is 503 saying so. Loaded only by
// an LwM2M deviceShifu (drivers/index.ts), so no other deviceShifu loads node-coap.
import { EdgeshifuError } from '../../../shared/errors.ts';
import type { Instruction } from '../../config/types.ts';
import type { Driver, DriverContext, DriverRequest, DriverResponse } from '../driver.ts';
import { execute } from './execute.ts';
import { parseTarget, type Lwm2mTarget } from './paths.ts';
import { read } from './read.ts';
import { Lwm2mServer } from './server.ts';
import { COAP_PORT, lwm2mPlan } from './settings.ts';
import { write } from './write.ts';

function parseTargets(context: DriverContext): Map<string, Lwm2mTarget | EdgeshifuError> {
  const targets = new Map<string, Lwm2mTarget | EdgeshifuError>();
  for (const instruction of context.config.instructions.values()) {
    try {
      targets.set(instruction.name, parseTarget(instruction));
    } catch (err) {
      targets.set(instruction.name, err as EdgeshifuError);
      context.logger.error({ instruction: instruction.name, err: (err as Error).message }, 'LwM2M instruction refused: it answers 400 until the ConfigMap is fixed');
    }
  }
  return targets;
}

const text = (body: Buffer | string, contentType = 'text/plain; charset=utf-8'): DriverResponse => ({ status: 200, headers: { 'content-type': contentType }, body: Buffer.isBuffer(body) ? body : Buffer.from(body) });

/** One call: GET → Read (or the latest notification in observe mode), POST → Execute or Write, PUT → Write. */
async function operate(server: Lwm2mServer, target: Lwm2mTarget, request: DriverRequest): Promise<DriverResponse> {
  const method = request.method;
  if (method === 'GET' || method === 'HEAD') {
    if (target.kind === 'Execute') throw new EdgeshifuError('invalid', `${target.path} is executable and has no value to read: POST it to execute`);
    const session = server.session();
    const cached = target.observe ? server.observations.latest(target.path) : undefined;
    if (cached !== undefined) return text(cached.body, cached.contentType);
    const value = await read(session, target, request.signal);
    return text(value.body, value.contentType);
  }
  if (method === 'POST' && target.kind === 'Execute') {
    await execute(server.session(), target, request.body, request.signal);
    return text('executed');
  }
  if (method === 'PUT' || method === 'POST') return text(await write(server.session(), target, request.body, request.signal));
  throw new EdgeshifuError('invalid', `LwM2M instructions answer GET (Read), PUT (Write) and POST (Execute, or Write), not ${method}`);
}

export function createLwm2mDriver(context: DriverContext): Driver {
  const plan = lwm2mPlan(context.spec);
  const server = new Lwm2mServer(plan, context.logger.child({ endpointName: plan.endpointName }), context.reportStatus);
  const targets = parseTargets(context);
  const targetOf = (instruction: Instruction): Lwm2mTarget => {
    const target = targets.get(instruction.name) ?? parseTarget(instruction);
    if (target instanceof EdgeshifuError) throw target;
    return target;
  };
  return {
    async start() {
      await server.start(context.options.bindAddress, context.options.lwm2mListenPort ?? COAP_PORT);
      for (const target of targets.values()) if (!(target instanceof EdgeshifuError) && target.observe) server.observations.keep(target);
    },
    stop: () => server.stop(),
    call: async (instruction, request) => {
      const response = await operate(server, targetOf(instruction), request);
      server.liveness.heard();
      return response;
    },
    // the registration is the device's own sign of life: registered, not expired, and (with
    // pingIntervalSec) answering its liveness checks is reachable
    probe: async (signal) => {
      signal.throwIfAborted();
      server.session();
      const unreachable = server.liveness.unreachable;
      if (unreachable !== undefined) throw new EdgeshifuError('unavailable', unreachable);
      await Promise.resolve();
    },
    subscribe(instruction, intervalMs, sink, signal) {
      try {
        const target = targetOf(instruction);
        if (target.kind === 'Execute') throw new EdgeshifuError('invalid', `${target.path} is executable and cannot be observed`);
        server.observations.watch(target, intervalMs, sink, signal);
      } catch (err) {
        sink.error(err as Error);
        return;
      }
      if (!server.registered) sink.error(server.absent());
    },
  };
}
