// Reachability of a TCP endpoint: a connect that is closed at once.
import { connect } from 'node:net';
import { EdgeshifuError } from '../../shared/errors.ts';
import type { HostPort } from './address.ts';

export async function tcpProbe(target: HostPort, signal: AbortSignal): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const socket = connect({ host: target.host, port: target.port, signal });
    socket.once('connect', () => { socket.destroy(); resolve(); });
    socket.once('error', (err) => {
      socket.destroy();
      reject(new EdgeshifuError('unavailable', `device at ${target.host}:${target.port} is unreachable: ${err.message}`, { cause: err }));
    });
  });
}
