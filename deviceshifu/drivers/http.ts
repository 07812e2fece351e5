// HTTP devices: `/<instruction>?query` → `http://<address>/<instruction>?query`, method, body and
// safe headers forwarded, the device's status and body streamed back (REFERENCE.md §2).
import { http } from '../../shared/node-http.ts';
import type { Driver, DriverContext, DriverRequest, DriverResponse } from './driver.ts';
import type { Instruction } from '../config/types.ts';
import { hostPort, httpBase, instructionUrl } from './address.ts';
import { forwardHttp } from './http-forward.ts';
import { tcpProbe } from './tcp-probe.ts';

export function createHttpDriver(context: DriverContext): Driver {
  const base = httpBase(context.spec.address);
  const target = hostPort(base.href, base.protocol === 'https:' ? 443 : 80);
  // Keep-alive: a device answers many small requests; a new connection each costs more than the call.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 });
  return {
    start: () => Promise.resolve(),
    stop: () => {
      agent.destroy();
      return Promise.resolve();
    },
    call: (instruction: Instruction, request: DriverRequest): Promise<DriverResponse> => forwardHttp(agent, {
      url: instructionUrl(base, instruction.name, request.query),
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: request.signal,
    }),
    probe: (signal) => tcpProbe(target, signal),
  };
}
