// HTTPCommandline devices: the command is composed here (commandline.ts) and POSTed as text to the
// stub on the device at `http://<address>/?cmdTimeout=<s>`; the stub's answer is streamed back.
import { http } from '../../shared/node-http.ts';
import type { Driver, DriverContext } from './driver.ts';
import { hostPort, httpBase } from './address.ts';
import { composeCommand } from './commandline.ts';
import { forwardHttp } from './http-forward.ts';
import { tcpProbe } from './tcp-probe.ts';

export function createCommandlineDriver(context: DriverContext): Driver {
  const base = httpBase(context.spec.address);
  const target = hostPort(base.href, 80);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  return {
    start: () => Promise.resolve(),
    stop: () => {
      agent.destroy();
      return Promise.resolve();
    },
    call: (instruction, request) => {
      const command = composeCommand(context.config.driver.execution, instruction.name, request.query);
      const url = new URL(base);
      url.search = new URLSearchParams({ cmdTimeout: String(Math.ceil(request.timeoutSeconds)) }).toString();
      return forwardHttp(agent, {
        url, method: 'POST', headers: { 'content-type': 'text/plain; charset=utf-8' }, body: Buffer.from(command, 'utf8'), signal: request.signal,
      });
    },
    probe: (signal) => tcpProbe(target, signal),
  };
}
