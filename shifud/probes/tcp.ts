// TCP and Socket devices: reachable when they accept a connection.
import { exchange } from './connection.ts';
import { failureOutcome, type ProbeOutcome } from './outcome.ts';

export async function probeTcp(host: string, port: number, signal: AbortSignal, timeoutMs: number): Promise<ProbeOutcome> {
  const target = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const result = await exchange({ host, port, signal });
  switch (result.kind) {
    case 'connected':
      return { kind: 'answered', detail: `${target} accepts connections` };
    case 'failed':
      return failureOutcome(result.error, target);
    case 'timeout':
      return { kind: 'timeout', detail: `no connection to ${target} within ${timeoutMs} ms` };
  }
}
