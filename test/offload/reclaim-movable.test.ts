// Reclaim's loose ends on three real control planes with their controllers and embedded brokers
// (controller/offload/README.md, "Reclaim"): a launched component follows its deployment's
// `spec.movable` as it changes (pinned again when it turns false, free to move when it turns
// true, at the origin and at the host), and the `Moved` Event is recorded when the move is
// applied, also on a deployment that is FAILED or still SCHEDULING.
import test from 'ava';
import { waitFor } from '../support/wait.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import { APPS, createApp, readApp, type Member } from './support.ts';
import { app, appOf, federation, hostRequests, movedEvents, placedOn, reclaims, taint, until } from './reclaim-support.ts';

async function setMovable(a: Member, name: string, movable: boolean): Promise<void> {
  await a.kube.custom.patchNamespacedCustomObject({
    group: GROUP, version: VERSION, namespace: APPS, plural: 'dronefederateddeployments', name,
    body: [{ op: 'replace', path: '/spec/movable', value: movable }],
  });
}

/** b's HostRequest for `component` holds `movable` (the lease carried it), and b's agent has it pinned or not. */
async function heldAs(b: Member, component: string, movable: boolean): Promise<void> {
  await waitFor(`b to hold ${component} as ${movable ? 'movable' : 'pinned'}`, async () => {
    const request = (await hostRequests(b)).find((r) => r.spec.component === component);
    const entry = b.controller.controller.offloader?.federation.agent.hosted().find((e) => e.component === component);
    return (request?.spec.movable === true) === movable && entry !== undefined && (entry.pinned === true) === !movable ? true : undefined;
  }, { timeoutMs: 60_000 });
}

test.serial('spec.movable changed on a launched component: made false, it stays where it runs; made true again, a later reclaim moves it', async (t) => {
  const [a, b, c] = await federation(t);
  await createApp(a.kube, app('alpha', 'held', '600m', true));
  await until(a.kube, 'alpha', 'running on b', (d) => placedOn(d, 'held') === 'b' && d.status?.phase === 'RUNNING');
  await heldAs(b, 'held', true);

  // pinned again: beta's reclaim finds nothing to move
  await setMovable(a, 'alpha', false);
  await heldAs(b, 'held', false);
  await createApp(a.kube, app('beta', 'big', '3800m'));
  const failed = await until(a.kube, 'beta', 'failed after its reclaim', (d) => d.status?.phase === 'FAILED' && (d.status.reason ?? '').includes('reclaim: '));
  t.is(failed.status?.conditions?.find((x) => x.type === 'Ready')?.reason, 'NoRoom');
  t.is(reclaims(a, 'beta'), 1);
  t.is(placedOn(await readApp(a.kube, 'alpha') ?? failed, 'held'), 'b', 'held stayed on b');
  t.deepEqual(await hostRequests(c), []);
  t.is((await movedEvents(a)).length, 0);

  // unpinned: gamma's reclaim moves it to c and takes its room on b
  await setMovable(a, 'alpha', true);
  await heldAs(b, 'held', true);
  await createApp(a.kube, app('gamma', 'large', '3800m'));
  const gamma = await until(a.kube, 'gamma', 'running on b', (d) => placedOn(d, 'large') === 'b' && d.status?.phase === 'RUNNING');
  t.is(gamma.status?.app, `${APPS}.gamma.2`, 'placed by its reclaim, the second attempt');
  t.is(reclaims(a, 'gamma'), 1);
  await until(a.kube, 'alpha', 'running on c', (d) => placedOn(d, 'held') === 'c' && d.status?.phase === 'RUNNING');
  t.deepEqual((await hostRequests(c)).map((r) => [r.spec.component, r.status?.phase, r.spec.movable]), [['held', 'LAUNCHED', true]]);
  const events = await movedEvents(a);
  t.deepEqual(events.map((e) => [e.involvedObject.name, /^held moved from b to c: /.test(e.message ?? '')]), [['alpha', true]]);
  const beta = await readApp(a.kube, 'beta');
  t.not(beta?.status?.phase, 'RUNNING', 'beta never fitted: b is gamma\'s');
});

test.serial('the Moved event of a deployment that is FAILED is recorded when the move is applied', async (t) => {
  const [a, b, c] = await federation(t);
  // b's node takes no pod: alpha's components are placed there and never launch
  await taint(b, true);
  await createApp(a.kube, appOf('alpha', [['held', '600m'], ['other', '1200m']]));
  await until(a.kube, 'alpha', 'placed on b', (d) => placedOn(d, 'held') === 'b' && placedOn(d, 'other') === 'b');
  // b loses `other` (its HostRequest deleted by hand): it goes back to the agreement without b, and c is too small for it
  // a's status says b before b's HostRequest is written: wait for it, or the delete finds nothing
  const lost = await waitFor('b\'s HostRequest for other', async () => (await hostRequests(b)).find((r) => r.spec.component === 'other'), { timeoutMs: 60_000 });
  await b.kube.custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'drone-a', plural: 'hostrequests', name: lost.metadata.name ?? 'other' });
  const alphaFailed = await until(a.kube, 'alpha', 'failed, held still on b', (d) => d.status?.phase === 'FAILED' && placedOn(d, 'held') === 'b' && placedOn(d, 'other') === undefined);
  t.regex(alphaFailed.status?.reason ?? '', /room|reclaim/);
  t.is((await movedEvents(a)).length, 0);

  // beta's reclaim moves held to c while alpha is FAILED (or re-auctioning other): the Event comes with that status write
  await createApp(a.kube, app('beta', 'big', '3800m'));
  await until(a.kube, 'beta', 'placed on b', (d) => placedOn(d, 'big') === 'b');
  const events = await waitFor('alpha\'s Moved event', async () => { const e = await movedEvents(a); return e.length > 0 ? e : undefined; }, { timeoutMs: 60_000 });
  t.is(events.length, 1);
  t.is(events[0]?.involvedObject.name, 'alpha');
  t.regex(events[0]?.message ?? '', /^held moved from b to c: /);
  const alpha = await readApp(a.kube, 'alpha');
  t.is(alpha === undefined ? undefined : placedOn(alpha, 'held'), 'c');
  t.true(['FAILED', 'SCHEDULING'].includes(alpha?.status?.phase ?? ''), `alpha is ${alpha?.status?.phase ?? '?'}: never placed whole, so never written by the full path`);
  t.is(placedOn(alpha ?? alphaFailed, 'other'), undefined);
  t.deepEqual((await hostRequests(c)).map((r) => r.spec.component), ['held']);
  t.is((await movedEvents(a)).length, 1, 'recorded once');
});
