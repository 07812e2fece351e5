// HTTPCommandline devices: the command is composed here (commandline.ts) and POSTed as text to the
// stub on the device at `http://<address>/?cmdTimeout=<s>`; the stub's answer is streamed back.
import { http } from '../../shared/node-http.ts';
import type { Driver, DriverContext } from './driver.ts';
import { httpBase, httpDevice } from './address.ts';
import { composeCommand } from './commandline.ts';
import { forwardHttp } from './http-forward.ts';
import { tcpProbe } from './tcp-probe.ts';

const TEXT = ['Content-Type', 'text/plain; charset=utf-8'];

export function createCommandlineDriver(context: DriverContext): Driver {
  const base = httpBase(context.spec.address);
  const device = httpDevice(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  return {
    start: () => Promise.resolve(),
    stop: () => {
      agent.destroy();
      return Promise.resolve();
    },
    call: (instruction, request) => {
      const command = composeCommand(context.config.driver.execution, instruction.name, new URLSearchParams(request.query));
      return forwardHttp(agent, {
        device, path: `${base.pathname}?cmdTimeout=${String(Math.ceil(request.timeoutSeconds))}`, method: 'POST', headers: TEXT, body: Buffer.from(command, 'utf8'), signal: request.signal, what: instruction.name,
      });
    },
    probe: (signal) => tcpProbe(device, signal),
  };
}
