// The unattended scan (optional, off unless subnets and ports — or mDNS — are configured): tries
// each planned address:port with a TCP connect under the same bounds as device probes, browses
// mDNS on the node's interfaces inside the subnets when asked to, and reports what answers and no
// EdgeDevice declares — in the log and, with a broker, on <prefix>/<node>/candidates (retained).
// It never creates EdgeDevices, and never reports an address outside the subnets.
import { sleep } from '../shared/backoff.ts';
import type { Logger } from '../shared/log.ts';
import type { DeviceSource } from './device-discoverer.ts';
import { undeclared, type ScanPlan } from './discovery-plan.ts';
import { mdnsServices, type MdnsRecord, type MdnsService } from './mdns.ts';
import { probeTcp } from './probes/tcp.ts';
import { errorMessage } from '../shared/errors.ts';

export interface DiscoveryScannerOptions {
  readonly plan: ScanPlan;
  readonly source: DeviceSource;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly concurrency: number;
  readonly ratePerSecond: number;
  readonly logger: Logger;
  /** Where candidates go besides the log (the MQTT publisher when there is a broker). */
  readonly report?: (candidates: readonly string[]) => void;
  /** mDNS discovery, when on: one browse per scan (mdnsBrowser.ts), kept to these subnets. */
  readonly mdns?: { readonly browse: (signal: AbortSignal) => Promise<readonly MdnsRecord[]>; readonly subnets: readonly string[] };
}

export class DiscoveryScanner {
  private readonly options: DiscoveryScannerOptions;
  /** The last scan's candidates. */
  candidates: readonly string[] = [];
  /** What the last mDNS browse found inside the subnets (declared or not). */
  mdnsFound: readonly MdnsService[] = [];
  readonly stats = { scans: 0, attempts: 0, browses: 0 };

  constructor(options: DiscoveryScannerOptions) {
    this.options = options;
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.scanOnce(signal);
      await sleep(this.options.intervalMs, signal);
    }
  }

  async scanOnce(signal: AbortSignal): Promise<readonly string[]> {
    const { plan, concurrency, ratePerSecond, timeoutMs } = this.options;
    const endpoints = plan.addresses.flatMap((host) => plan.ports.map((port) => ({ host, port })));
    const answered: string[] = [];
    const gapMs = 1000 / ratePerSecond;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (!signal.aborted && next < endpoints.length) {
        const endpoint = endpoints[next];
        next += 1;
        if (endpoint === undefined) break;
        this.stats.attempts += 1;
        const outcome = await probeTcp(endpoint.host, endpoint.port, AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]), timeoutMs);
        if (outcome.kind === 'answered') answered.push(`${endpoint.host}:${endpoint.port}`);
        // each worker keeps to its share of the rate
        await sleep(gapMs * concurrency, signal);
      }
    };
    await Promise.all([...Array.from({ length: Math.min(concurrency, endpoints.length) }, worker), this.browse(signal)]);
    this.stats.scans += 1;
    const advertised = this.mdnsFound.map((s) => s.endpoint);
    this.candidates = undeclared([...new Set([...answered, ...advertised])], this.options.source.list());
    this.options.logger.info({ candidates: this.candidates, tried: endpoints.length, mdns: this.mdnsFound.map((s) => `${s.instance} ${s.endpoint}`) }, 'discovery candidates (not declared by any EdgeDevice)');
    this.options.report?.(this.candidates);
    return this.candidates;
  }

  private async browse(signal: AbortSignal): Promise<void> {
    const mdns = this.options.mdns;
    if (mdns === undefined) return;
    try {
      this.mdnsFound = mdnsServices(await mdns.browse(signal), mdns.subnets);
      this.stats.browses += 1;
    } catch (err) {
      this.options.logger.warn({ err: errorMessage(err) }, 'mDNS browse failed');
    }
  }
}
