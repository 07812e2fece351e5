// Deployments waiting together at one origin go to their first auction smallest first
// (controller/offload/first-auctions.ts): the order, and on a real federation (two control planes,
// their controllers and brokers) three deployments made before the origin's controller starts.
import test from 'ava';
import { waitFor } from '../support/wait.ts';
import { goesFirst } from '../../controller/offload/first-auctions.ts';
import { APPS, createApp, keepLogsOfFailure, prepareFederation, readApp, startMember } from './support.ts';
import { app } from './reclaim-support.ts';

test('the smaller share goes first, then the lower key; a deployment not waiting waits for nobody', (t) => {
  const waiting = [{ key: 'apps/b', share: 0.5 }, { key: 'apps/a', share: 0.5 }, { key: 'apps/c', share: 0.1 }];
  t.is(goesFirst('apps/b', waiting), 'apps/a');
  t.is(goesFirst('apps/a', waiting), 'apps/c');
  t.is(goesFirst('apps/c', waiting), undefined);
  t.is(goesFirst('apps/d', waiting), undefined);
  t.is(goesFirst('apps/a', [{ key: 'apps/a', share: 0.2 }]), undefined);
});

test.serial('three deployments waiting at once are put to auction smallest first, and each is placed', async (t) => {
  const [a, b] = await prepareFederation(t, [{ id: 'a', cpu: '500m', memory: '512Mi' }, { id: 'b', cpu: '8', memory: '8Gi' }]);
  if (a === undefined || b === undefined) throw new Error('no federation');
  // made before a's controller runs: all three wait for their first auction together
  await createApp(a.kube, app('large', 'lg', '2'));
  await createApp(a.kube, app('small', 'sm', '250m'));
  await createApp(a.kube, app('mid', 'md', '1'));
  b.controller = await startMember(t, b);
  a.controller = await startMember(t, a);
  keepLogsOfFailure(t, [a, b]);
  for (const name of ['large', 'small', 'mid']) {
    await waitFor(`${name} placed`, async () => { const d = await readApp(a.kube, name); return d?.status?.components?.[0]?.cluster !== undefined ? true : undefined; }, { timeoutMs: 60_000 });
  }
  const order = a.controller.logs.filter((l) => l.includes('"msg":"put to auction"')).map((l) => /"app":"apps\.([a-z]+)\./.exec(l)?.[1]);
  t.deepEqual(order, ['small', 'mid', 'large']);
  for (const name of ['large', 'small', 'mid']) t.is((await readApp(a.kube, name))?.status?.app, `${APPS}.${name}.1`, `${name} placed at its first auction`);
});
