// HTTP devices: `/<instruction>?query` → `http://<address>/<instruction>?query`, the query byte for
// byte as the caller sent it, method, body and safe headers forwarded, the device's status and body
// streamed back.
import { http } from '../../shared/node-http.ts';
import type { Driver, DriverContext, DriverRequest, DriverResponse } from './driver.ts';
import type { Instruction } from '../config/types.ts';
import { httpBase, httpDevice, instructionPath } from './address.ts';
import { forwardHttp } from './http-forward.ts';
import { tcpProbe } from './tcp-probe.ts';

export function createHttpDriver(context: DriverContext): Driver {
  const base = httpBase(context.spec.address);
  const device = httpDevice(base);
  // Keep-alive: a device answers many small requests; a new connection each costs more than the call.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 });
  // each instruction's path, encoded once
  const paths = new Map<string, string>();
  const pathOf = (name: string): string => {
    let path = paths.get(name);
    if (path === undefined) paths.set(name, path = instructionPath(base, name));
    return path;
  };
  return {
    start: () => Promise.resolve(),
    stop: () => {
      agent.destroy();
      return Promise.resolve();
    },
    call: (instruction: Instruction, request: DriverRequest): Promise<DriverResponse> => forwardHttp(agent, {
      device, path: pathOf(instruction.name) + request.query, method: request.method, headers: request.headers, body: request.body, signal: request.signal, what: instruction.name,
    }),
    probe: (signal) => tcpProbe(device, signal),
  };
}
