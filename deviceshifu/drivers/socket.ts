// Socket devices: POST `{"command", "timeout"}` → the command's bytes over a
// persistent TCP connection → `{"message": <the bytes read, at most bufferLength>, "status": 200}`.
import { EdgeshifuError } from '../../shared/errors.ts';
import type { Driver, DriverContext } from './driver.ts';
import { hostPort } from './address.ts';
import { parseSocketCommand, socketReply, type SocketEncoding } from './socket-codec.ts';
import { DeviceConnection } from './socket-connection.ts';

export function createSocketDriver(context: DriverContext): Driver {
  const setting = context.spec.protocolSettings?.SocketSetting ?? {};
  const encoding: SocketEncoding = setting.encoding ?? 'utf-8';
  const bufferLength = setting.bufferLength ?? 1024;
  if (setting.networkType === 'udp') throw new EdgeshifuError('invalid', 'SocketSetting.networkType udp is not supported yet: use tcp');
  const target = hostPort(context.spec.address);
  const connection = new DeviceConnection(target, context.logger);
  const stopper = new AbortController();
  let kept: Promise<void> = Promise.resolve();
  return {
    start: (signal) => {
      kept = connection.keep(AbortSignal.any([signal, stopper.signal]));
      return Promise.resolve();
    },
    stop: async () => {
      stopper.abort();
      await kept;
    },
    call: async (instruction, request) => {
      if (request.method !== 'POST' && request.method !== 'PUT') {
        throw new EdgeshifuError('invalid', `a socket instruction takes POST or PUT with {"command": "...", "timeout": <s>}, not ${request.method}`);
      }
      const command = parseSocketCommand(request.body, encoding);
      const signal = command.timeoutSeconds > 0 ? AbortSignal.any([request.signal, AbortSignal.timeout(command.timeoutSeconds * 1000)]) : request.signal;
      let reply: Buffer;
      try {
        reply = await connection.exchange(command.bytes, signal);
      } catch (err) {
        if (signal.aborted && !request.signal.aborted) throw new EdgeshifuError('timeout', `device did not answer ${instruction.name} within body.timeout ${command.timeoutSeconds} s`);
        throw err;
      }
      return { status: 200, headers: { 'content-type': 'application/json' }, body: socketReply(reply.subarray(0, bufferLength), encoding) };
    },
    probe: () => (connection.connected ? Promise.resolve() : Promise.reject(new EdgeshifuError('unavailable', `socket device at ${target.host}:${target.port} is not connected`))),
  };
}
