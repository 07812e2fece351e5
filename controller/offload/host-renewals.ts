// The host's record of the leases it holds (README, "Leases"). Renewals are kept in memory; what
// a restarted host needs of them is stored once per origin and half lease, as an annotation on
// the origin's hosted namespace, not once per component: a write per renewal of every component
// grew with what the host holds (b's `hostrequests/status` PATCHes went 24.6 → 52.8 per app
// over 300 apps).
import type { V1Namespace } from '@kubernetes/client-node';
import type { Informer } from '../../shared/kube/informer.ts';
import { objectKey } from '../../shared/kube/informer.ts';
import type { Logger } from '../../shared/log.ts';
import { errorMessage } from '../../shared/errors.ts';
import { isoTime } from '../../shared/time.ts';
import type { DroneAgent } from '../drone/agent.ts';
import type { LeaseRenewalMessage } from '../drone/messages/index.ts';
import type { HostStatusBody } from './host-plan.ts';
import type { OffloadApi } from './kube.ts';
import { answerRenewal } from './lease-batch.ts';
import type { HostRequest } from './objects.ts';
import { hostedNames } from './workload.ts';

/** When the origin last renewed any lease here, on its hosted namespace `drone-<origin>`. */
export const RENEWED_ANNOTATION = 'drone.edgeshifu.io/renewed-at';

export interface HostRenewalsDeps {
  readonly api: OffloadApi;
  readonly agent: DroneAgent;
  readonly cluster: string;
  readonly requests: Informer<HostRequest>;
  readonly leaseSeconds: number;
  readonly logger: Logger;
}

export class HostRenewals {
  private readonly deps: HostRenewalsDeps;
  /** Last renewal heard per HostRequest. */
  private readonly renewed = new Map<string, number>();
  /** Per origin, when its renewal was last stored. */
  private readonly stored = new Map<string, number>();

  constructor(deps: HostRenewalsDeps) {
    this.deps = deps;
  }

  /** When the HostRequest's lease was last renewed, as far as this process knows. */
  at(key: string): number | undefined {
    return this.renewed.get(key);
  }

  /** The leases of these HostRequests were renewed by their origin now; stored for the origin at most every half lease. */
  renew(origin: string, keys: readonly string[], now: number): void {
    for (const key of keys) this.renewed.set(key, now);
    if (keys.length === 0 || now - (this.stored.get(origin) ?? 0) < (this.deps.leaseSeconds * 1000) / 2) return;
    this.stored.set(origin, now);
    const annotations = { [RENEWED_ANNOTATION]: isoTime(now) };
    this.deps.api.patch('Namespace', { metadata: { name: `drone-${origin}` } }, { metadata: { annotations } }).catch((err: unknown) => {
      // the next renewal tries again
      this.stored.delete(origin);
      this.deps.logger.debug({ origin, err: errorMessage(err) }, 'stored renewal not written');
    });
  }

  /** A renewal of every lease `msg.sender` holds here: renewed, answered in one message (`told`: the status last sent of each); the keys to reconcile. */
  answer(msg: LeaseRenewalMessage, told: (key: string) => HostStatusBody | undefined): string[] {
    const hosted = new Set(this.deps.agent.hosted().filter((e) => e.origin === msg.sender).map((e) => `${e.app}/${e.component}`));
    const outcome = answerRenewal(msg, (app, component) => {
      const names = hostedNames(msg.sender, app, component);
      const key = `${names.namespace}/${names.name}`;
      const spec = this.deps.requests.get(key)?.spec;
      const body = told(key);
      return { key, hosted: hosted.has(`${app}/${component}`), ...(spec === undefined ? {} : { spec }), ...(body === undefined ? {} : { told: body }) };
    }, this.deps.cluster);
    this.renew(msg.sender, outcome.renewed, Date.now());
    for (const answer of outcome.answers) this.deps.agent.send(answer);
    return outcome.reconcile;
  }

  forget(key: string): void {
    this.renewed.delete(key);
  }

  private restoreAt(requests: readonly HostRequest[], at: number): void {
    for (const r of requests) if (!this.renewed.has(objectKey(r))) this.renewed.set(objectKey(r), at);
  }

  /**
   * After a restart: each HostRequest renewed when its origin's renewals were last stored (at most
   * half a lease old while the origin renews). Unreadable, it gets a lease from now: running work
   * is not dropped for a failed read, and a silent origin's slice is freed a lease later.
   */
  async restore(now: number): Promise<void> {
    const byOrigin = new Map<string, HostRequest[]>();
    for (const r of this.deps.requests.list()) byOrigin.set(r.spec.origin, [...byOrigin.get(r.spec.origin) ?? [], r]);
    for (const [origin, requests] of byOrigin) {
      // none stored: the lease runs from the HostRequest's own lastRenewTime or creation (leaseEnd)
      let at: number | undefined;
      try {
        const namespace = await this.deps.api.get<V1Namespace>('Namespace', undefined, `drone-${origin}`);
        const stored = Date.parse(namespace?.metadata?.annotations?.[RENEWED_ANNOTATION] ?? '');
        if (Number.isFinite(stored)) at = stored;
      } catch (err) {
        at = now;
        this.deps.logger.warn({ origin, err: errorMessage(err) }, 'stored renewals unreadable: its leases run from now');
      }
      if (at !== undefined) this.restoreAt(requests, at);
    }
  }
}
