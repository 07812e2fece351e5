// Reachability of a TCP endpoint: a connect that is closed at once.
import { EdgeshifuError } from '../../shared/errors.ts';
import type { HostPort } from './address.ts';

// not an ESM import: node:net's namespace would load BlockList and SocketAddress (~0.1 MiB) for nothing
const { connect } = process.getBuiltinModule('node:net');

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
