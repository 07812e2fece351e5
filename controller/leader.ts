// Leader election on a coordination.k8s.io Lease (client-node has none: README.md, "HA and stateless"), with
// client-go's timings: 15 s lease, renew within 10 s, retry every 2 s. Only the leader
// reconciles; a leader that cannot renew in time stops leading (the caller exits), and a leader
// that stops cleanly hands the lease back so the next one takes over at once. Each process is its
// own candidate (the pod's name and a random suffix, as client-go names them), so a container the
// kubelet restarted is not the holder its predecessor was.
import { randomBytes } from 'node:crypto';
import type { V1Lease } from '@kubernetes/client-node';
import type { KubeClient } from '../shared/kube/client.ts';
import { sleep } from '../shared/backoff.ts';
import { kubeStatusOf, toKubeError } from '../shared/kube/errors.ts';
import type { Logger } from '../shared/log.ts';
import { isoTime } from '../shared/time.ts';
import { errorMessage } from '../shared/errors.ts';

export interface LeaderElectionOptions {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly logger: Logger;
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
}

/** This process's identity: its candidate's name (the pod's) and a random suffix, new at each start. */
export function processIdentity(candidate: string, suffix = randomBytes(4).toString('hex')): string {
  return `${candidate}_${suffix}`;
}

/** The candidate (pod) an identity belongs to: what comes before the last `_` (pod names have none). */
export function candidateOf(identity: string): string {
  const cut = identity.lastIndexOf('_');
  return cut < 0 ? identity : identity.slice(0, cut);
}

/**
 * Who may hold the lease now (pure): the holder, unless it let the lease expire. A holder that was
 * an earlier process of this same pod (a container the kubelet restarted) is waited out for one
 * lease duration more, so that a live standby, which tries every retry period from expiry, takes
 * over first; with no standby, the restarted process takes the lease back after that.
 */
export function canAcquire(lease: V1Lease | undefined, identity: string, now: number, defaultDurationMs: number): boolean {
  const spec = lease?.spec;
  const holder = spec?.holderIdentity;
  if (holder === undefined || holder === '' || holder === identity) return true;
  const renewed = spec?.renewTime === undefined ? 0 : new Date(spec.renewTime).getTime();
  const duration = spec?.leaseDurationSeconds === undefined ? defaultDurationMs : spec.leaseDurationSeconds * 1000;
  const predecessor = candidateOf(holder) === candidateOf(identity);
  return now > renewed + duration * (predecessor ? 2 : 1);
}

export class LeaderElector {
  private readonly options: LeaderElectionOptions;
  private readonly stopper = new AbortController();
  private leading = false;
  private lastRenew = 0;

  constructor(options: LeaderElectionOptions) {
    this.options = options;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  private get durationMs(): number {
    return this.options.leaseDurationMs ?? 15_000;
  }

  /**
   * Campaigns until elected, calls onLead, then keeps renewing; resolves with 'lost' when a renewal
   * misses its deadline, or 'stopped' after stop().
   */
  async run(onLead: () => Promise<void>): Promise<'lost' | 'stopped'> {
    const lead = (): void => {
      // not awaited: renewals must go on while the caches fill
      onLead().catch((err: unknown) => {
        this.options.logger.error({ err: errorMessage(err) }, 'could not start leading');
        this.stop();
      });
    };
    const retry = this.options.retryPeriodMs ?? 2000;
    const deadline = this.options.renewDeadlineMs ?? 10_000;
    while (!this.stopper.signal.aborted) {
      const held = await this.tryAcquireOrRenew();
      if (held && !this.leading) {
        this.leading = true;
        this.options.logger.info({ identity: this.options.identity }, 'became leader');
        lead();
      }
      if (this.leading && Date.now() - this.lastRenew > deadline) {
        this.leading = false;
        this.options.logger.error({ identity: this.options.identity }, 'lost the lease: could not renew in time');
        return 'lost';
      }
      await sleep(retry, this.stopper.signal);
    }
    await this.release();
    return 'stopped';
  }

  stop(): void {
    this.stopper.abort();
  }

  private leaseBody(previous: V1Lease | undefined, now: number): V1Lease {
    const spec = previous?.spec;
    const taking = spec?.holderIdentity !== this.options.identity;
    return {
      metadata: { name: this.options.name, namespace: this.options.namespace, resourceVersion: previous?.metadata?.resourceVersion },
      spec: {
        holderIdentity: this.options.identity,
        leaseDurationSeconds: Math.round(this.durationMs / 1000),
        acquireTime: taking || spec.acquireTime === undefined ? microTime(now) : spec.acquireTime,
        renewTime: microTime(now),
        leaseTransitions: (spec?.leaseTransitions ?? 0) + (taking && spec?.holderIdentity ? 1 : 0),
      },
    };
  }

  private get path(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.options.namespace)}/leases`;
  }

  private async read(): Promise<V1Lease | undefined> {
    try {
      return await this.options.client.request<V1Lease>('GET', `${this.path}/${encodeURIComponent(this.options.name)}`);
    } catch (err) {
      if (kubeStatusOf(err)?.code === 404) return undefined;
      throw toKubeError(err, 'read the leader lease');
    }
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = Date.now();
    try {
      const lease = await this.read();
      if (!canAcquire(lease, this.options.identity, now, this.durationMs)) return false;
      const body = this.leaseBody(lease, now);
      if (lease === undefined) await this.options.client.request('POST', this.path, { body });
      else await this.options.client.request('PUT', `${this.path}/${encodeURIComponent(this.options.name)}`, { body });
      this.lastRenew = now;
      return true;
    } catch (err) {
      // a conflict means another candidate won this round; anything else is retried next period
      this.options.logger.debug({ err: errorMessage(err) }, 'lease not acquired');
      return false;
    }
  }

  private async release(): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    try {
      const lease = await this.read();
      if (lease?.spec?.holderIdentity !== this.options.identity) return;
      const body = { ...lease, spec: { ...lease.spec, holderIdentity: '', renewTime: microTime(0), leaseDurationSeconds: 1 } };
      await this.options.client.request('PUT', `${this.path}/${encodeURIComponent(this.options.name)}`, { body });
      this.options.logger.info('released the lease');
    } catch (err) {
      this.options.logger.warn({ err: errorMessage(err) }, 'could not release the lease');
    }
  }
}

/** metav1.MicroTime: RFC 3339 with microseconds. */
function microTime(ms: number): Date {
  const date = new Date(ms);
  date.toJSON = (): string => isoTime(ms).replace('Z', '000Z');
  return date;
}
