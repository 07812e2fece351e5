// A write right after this controller's own: the second is made over the object the first one
// returned, not over the cached copy the first replaced. Both caches are stopped once the app runs,
// so they lag for certain: two reports of one component in a row on a (its OffloadRequest's
// status), two leases in a row on b (its HostRequest's spec). The code before wrote the second
// over the stale cached version: a's was refused (409) and had to wait for a retry, b's was
// refused, read again and written again (one more PATCH and a GET).
import test from 'ava';
import { holdRequests } from './held-requests.ts';
import { recordLeases, recordReports, runShop, shopFederation } from './shop.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';

test.serial('a report or a lease right after the last write is written once, over that write', async (t) => {
  const { a, b, origin, host } = await shopFederation(t);
  const reports = recordReports(origin);
  const leases = recordLeases(host);
  await runShop(a);
  const launched = reports.find((r) => r.component === 'api' && r.phase === 'LAUNCHED');
  const go = leases.findLast((l) => l.component === 'api' && l.launch);
  if (launched === undefined || go === undefined) throw new Error('no LAUNCHED report or go for api');

  // from here on, neither cache sees this controller's writes
  await origin.offloadRequests.stop();
  await host.hostRequests.stop();
  const mine = { reports: 0, leases: 0, reads: 0 };
  holdRequests(t, (method, path, options) => {
    const sent = options?.body as { status?: { message?: string }; spec?: { leaseSeconds?: number } } | undefined;
    if (method === 'PATCH' && path.includes('/offloadrequests/') && ['one', 'two'].includes(sent?.status?.message ?? '')) mine.reports += 1;
    if (method === 'PATCH' && path.includes('/hostrequests/') && [61, 62].includes(sent?.spec?.leaseSeconds ?? 0)) mine.leases += 1;
    if (method === 'GET' && path.includes('/hostrequests/')) mine.reads += 1;
    return false;
  });

  await origin.origin.onHostStatus({ ...launched, reason: 'one' });
  await origin.origin.onHostStatus({ ...launched, reason: 'two' });
  t.is(mine.reports, 2, 'each report written once');
  const requests = await a.kube.custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'apps', plural: 'offloadrequests' }) as { items: Array<{ spec: { component: string }; status?: { message?: string } }> };
  t.is(requests.items.find((r) => r.spec.component === 'api')?.status?.message, 'two');

  await host.host.onLease({ ...go, leaseSeconds: 61 });
  await host.host.onLease({ ...go, leaseSeconds: 62 });
  t.is(mine.leases, 2, 'each lease written once');
  t.is(mine.reads, 0, 'nothing read again');
  const hosted = await b.kube.custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'drone-a', plural: 'hostrequests' }) as { items: Array<{ spec: { component: string; leaseSeconds: number } }> };
  t.is(hosted.items.find((r) => r.spec.component === 'api')?.spec.leaseSeconds, 62);
});
