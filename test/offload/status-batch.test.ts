// The origin writes a deployment's status once per batch of host reports: while a report on one
// of its components is being kept (its OffloadRequest written), a reconcile woken by another
// report does not write the status; the last report of the batch wakes it, and one write says
// both. Here api's OffloadRequest write is held while db's lands and wakes the deployment. The
// code before wrote the status for db's report, then again for api's: two writes for two reports.
import test from 'ava';
import { waitFor } from '../support/wait.ts';
import { holdRequests } from './held-requests.ts';
import { readApp } from './support.ts';
import { recordReports, runShop, shopFederation } from './shop.ts';
import type { HostStatusMessage } from '../../controller/drone/messages/index.ts';

/** a's reconciles of DroneFederatedDeployments so far, whatever their result. */
function reconciles(metrics: string): number {
  const lines = metrics.split('\n').filter((l) => l.startsWith('edgeshifu_reconcile_total{') && l.includes('controller="dronefederateddeployment"'));
  return lines.reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

test.serial('two reports at once: the deployment\'s status written once, after both', async (t) => {
  const { a, origin } = await shopFederation(t);
  const reports = recordReports(origin);
  await runShop(a);
  const launched = (component: string): HostStatusMessage => {
    const found = reports.find((r) => r.component === component && r.phase === 'LAUNCHED');
    if (found === undefined) throw new Error(`no LAUNCHED report for ${component}`);
    return found;
  };

  let statusWrites = 0;
  const held = holdRequests(t, (method, path, options) => method === 'PATCH' && path.includes('/offloadrequests/') && (options?.body as { status?: { message?: string } } | undefined)?.status?.message === 'api two', (method, path) => {
    if (method === 'PATCH' && path.includes('/dronefederateddeployments/') && path.endsWith('/status')) statusWrites += 1;
  });
  const before = reconciles(a.controller.registry.metrics());
  const api = origin.origin.onHostStatus({ ...launched('api'), reason: 'api two' });
  await waitFor('api\'s report held', () => (held.count() === 1 ? true : undefined), { timeoutMs: 10_000, intervalMs: 5 });
  await origin.origin.onHostStatus({ ...launched('db'), reason: 'db one' });
  // db's OffloadRequest in a's cache, and the reconcile its update woke done
  await waitFor('db\'s report seen', () => (origin.offloadRequests.list().some((r) => r.spec.component === 'db' && r.status?.message === 'db one') ? true : undefined), { timeoutMs: 10_000, intervalMs: 5 });
  await waitFor('a reconcile of shop', () => (reconciles(a.controller.registry.metrics()) > before ? true : undefined), { timeoutMs: 10_000, intervalMs: 5 });
  t.is(statusWrites, 0, 'no status write while api\'s report is being kept');
  held.release();
  await api;
  const both = await waitFor('the status says both', async () => {
    const components = (await readApp(a.kube, 'shop'))?.status?.components ?? [];
    return components.some((c) => c.message === 'db one') && components.some((c) => c.message === 'api two') ? components : undefined;
  }, { timeoutMs: 10_000, intervalMs: 20 });
  t.is(both.length, 2);
  t.is(statusWrites, 1, 'one write for the two reports');
});
