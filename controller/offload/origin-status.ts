// The origin's writes of a DroneFederatedDeployment's status: the Ready condition from the
// phase and the hosts' refusals, texts within the API's limits, a write only when something
// changed, and each deployment's last write kept until the cache shows it (latest()).
import type { Informer } from '../../shared/kube/informer.ts';
import { objectKey } from '../../shared/kube/informer.ts';
import { isoTime } from '../../shared/time.ts';
import { setCondition } from '../status.ts';
import type { OffloadApi } from './kube.ts';
import { capped, readyCondition, statusChanged, type Refusal, type Status } from './origin-plan.ts';
import type { DroneFederatedDeployment } from './workload.ts';

export class OriginStatus {
  private readonly deps: { readonly api: OffloadApi; readonly deployments: Informer<DroneFederatedDeployment> };
  /** Each deployment's last status write, until the cache shows it (latest()). */
  private readonly written = new Map<string, { over: string | undefined; object: DroneFederatedDeployment }>();

  constructor(deps: OriginStatus['deps']) {
    this.deps = deps;
  }

  /** As last written here while the cache still shows what that write replaced: else a reconcile compared with the old status and wrote over a stale resourceVersion (409). */
  latest(key: string): DroneFederatedDeployment | undefined {
    const cached = this.deps.deployments.get(key);
    const written = this.written.get(key);
    if (written !== undefined && cached !== undefined && cached.metadata.resourceVersion === written.over) return written.object;
    this.written.delete(key);
    return cached;
  }

  /** Writes `wanted` with its Ready condition, unless the stored status says the same already. */
  async write(dfd: DroneFederatedDeployment, wanted: Status, held: readonly Refusal[]): Promise<void> {
    const refusals = held.filter((r) => r.generation === dfd.metadata.generation && wanted.components?.some((c) => c.name === r.component && c.phase === 'FAILED') !== false);
    const ready = readyCondition(wanted, refusals);
    const status = {
      ...wanted, ...(wanted.reason === undefined ? {} : { reason: capped(wanted.reason) }),
      components: wanted.components?.map((c) => (c.message === undefined ? c : { ...c, message: capped(c.message) })),
      conditions: setCondition(wanted.conditions ?? [], ready, dfd.metadata.generation ?? 0, isoTime(Date.now())),
    };
    if (wanted.components === undefined) delete status.components;
    if (!statusChanged(dfd.status, status)) return;
    const object = await this.deps.api.patchStatus('DroneFederatedDeployment', dfd, status);
    this.written.set(objectKey(dfd), { over: dfd.metadata.resourceVersion, object });
  }

  forget(key: string): void {
    this.written.delete(key);
  }
}
