// Makes a HostRequest on an ACK (thin I/O for host-reconciler.ts), and lets a lease that
// arrives meanwhile wait for it instead of making it again: a lease often follows the ACK within
// milliseconds, and one that found no HostRequest used to make it a second time (a guard pass and
// a create refused 409, 0.8 per app over 300 apps).
import type { Logger } from '../../shared/log.ts';
import { API_VERSION } from '../../shared/crds/resources.ts';
import type { Resources } from '../drone/model.ts';
import type { HostedGuard } from './hosted-guard.ts';
import type { OffloadApi } from './kube.ts';
import type { HostRequest } from './objects.ts';

export class HostMaking {
  private readonly making = new Map<string, Promise<HostRequest | undefined>>();
  private readonly deps: { api: OffloadApi; guard: HostedGuard; logger: Logger };

  constructor(deps: { api: OffloadApi; guard: HostedGuard; logger: Logger }) {
    this.deps = deps;
  }

  /**
   * The namespace, its Pod Security labels and a quota that holds this slice too, then the
   * HostRequest. Once this process made the namespace, the HostRequest need not wait for the
   * quota (two or three writes under load): its Deployment does (reconcile runs the guard first).
   * A lease waits for the creation only (made()), not for the quota.
   */
  async make(request: Pick<HostRequest, 'metadata' | 'spec'>, reserved: Resources): Promise<HostRequest | undefined> {
    const { guard, api, logger } = this.deps;
    const { origin, app, component } = request.spec;
    const key = `${request.metadata.namespace ?? ''}/${request.metadata.name ?? ''}`;
    const body = { apiVersion: API_VERSION, kind: 'HostRequest', ...request } as HostRequest;
    const first = !guard.made(origin);
    const guarded = guard.ensure(origin, { request: body, reserved });
    const creation = (first ? guarded : Promise.resolve()).then(async () => {
      logger.info({ origin, app, component }, 'hosting a component: HostRequest ACCEPTED');
      return api.create(body);
    }).catch((err: unknown) => {
      if (!first) guard.forget(origin); // its namespace may have gone: the retry makes it first
      throw err;
    });
    this.making.set(key, creation);
    try {
      const [, created] = await Promise.allSettled([guarded, creation]);
      await guarded;
      if (created.status === 'rejected') throw created.reason;
      return created.value;
    } finally {
      if (this.making.get(key) === creation) this.making.delete(key);
    }
  }

  /** Resolves once a HostRequest being made is created (or could not be), with it as created; at once when none is. */
  async made(key: string): Promise<HostRequest | undefined> {
    return this.making.get(key)?.catch(() => undefined);
  }
}
