// OPC UA discovery (optional, off unless --discovery-opcua names host:port pairs): asks each
// configured server FindServers, then GetEndpoints of every discovery URL it answers, and keeps
// what it found for the EdgeNode status (opcuaServers: endpoints with their security modes and
// policies). node-opcua's client loads only here, and only when this is configured.
import { sleep } from '../shared/backoff.ts';
import type { Logger } from '../shared/log.ts';
import type { OpcuaServerSeen } from './node-status.ts';

export interface OpcuaDiscoveryOptions {
  /** host:port pairs, e.g. 10.0.0.5:4840. */
  readonly targets: readonly string[];
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly logger: Logger;
}

const MODES = ['Invalid', 'None', 'Sign', 'SignAndEncrypt'];

/** What one target answered, or undefined when it did not answer as an OPC UA server. */
async function discover(target: string, timeoutMs: number): Promise<OpcuaServerSeen[] | undefined> {
  const { OPCUAClient } = await import('node-opcua-client');
  const url = `opc.tcp://${target}`;
  const client = OPCUAClient.create({ endpointMustExist: false, connectionStrategy: { maxRetry: 0 }, transportTimeout: timeoutMs });
  client.on('backoff', () => undefined);
  const timer = setTimeout(() => { void client.disconnect().catch(() => undefined); }, timeoutMs);
  try {
    await client.connect(url);
    const servers = await client.findServers();
    const seen: OpcuaServerSeen[] = [];
    for (const server of servers.length === 0 ? [undefined] : servers) {
      const endpoints = await client.getEndpoints();
      seen.push({
        target,
        applicationUri: server?.applicationUri ?? endpoints[0]?.server.applicationUri ?? '',
        applicationName: server?.applicationName.text ?? endpoints[0]?.server.applicationName.text ?? '',
        endpoints: endpoints.map((e) => ({
          url: e.endpointUrl ?? url,
          securityMode: MODES[e.securityMode] ?? String(e.securityMode),
          securityPolicy: (e.securityPolicyUri ?? '').slice((e.securityPolicyUri ?? '').indexOf('#') + 1),
        })).slice(0, 32),
      });
    }
    return seen;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
    await Promise.race([client.disconnect().catch(() => undefined), sleep(1000)]);
  }
}

export class OpcuaDiscovery {
  private readonly options: OpcuaDiscoveryOptions;
  /** The last round's servers, by target. */
  servers: readonly OpcuaServerSeen[] = [];
  readonly stats = { rounds: 0 };

  constructor(options: OpcuaDiscoveryOptions) {
    this.options = options;
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.scanOnce();
      await sleep(this.options.intervalMs, signal);
    }
  }

  async scanOnce(): Promise<readonly OpcuaServerSeen[]> {
    const found = await Promise.all(this.options.targets.map((t) => discover(t, this.options.timeoutMs)));
    this.servers = found.flatMap((f) => f ?? []);
    this.stats.rounds += 1;
    const silent = this.options.targets.filter((_t, i) => found[i] === undefined);
    this.options.logger.info({ servers: this.servers.map((s) => `${s.target} ${s.applicationUri}`), silent }, 'OPC UA discovery');
    return this.servers;
  }
}
