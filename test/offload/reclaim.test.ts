// Reclaim wired into the controllers (controller/offload/README.md, "Reclaim"), on three real
// control planes with their real controllers and embedded brokers: a deployment whose auction
// fails for want of room is reclaimed by its origin, which moves one placed component of another
// deployment to make room, makes the new host's HostRequest before the old host lets go, and
// shows the move in status and a `Moved` Event. A launched component stays put unless its
// deployment is `spec.movable`.
import test from 'ava';
import { waitFor } from '../support/wait.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import type { HostRequest } from '../../controller/offload/objects.ts';
import type { OffloadRequest } from '../../controller/offload/origin-reconciler.ts';
import { APPS, createApp, readApp, startMember, type Member } from './support.ts';
import { app, federation, hostedDeployments, hostRequests, movedEvents, phaseOf, placedOn, reclaims, taint, until } from './reclaim-support.ts';

test.serial('a placed, not launched component moves to make room: the new job is placed, the old host lets go, status and Event say so', async (t) => {
  const [a, b, c] = await federation(t);
  // b's node takes no pod for now: what it hosts is placed there but does not launch
  await taint(b, true);
  await createApp(a.kube, app('alpha', 'held', '600m'));
  const notLaunched = ['SCHEDULED', 'CONNECTED'];
  const waiting = await until(a.kube, 'alpha', 'placed on b, not launched', (d) => placedOn(d, 'held') === 'b' && notLaunched.includes(phaseOf(d, 'held') ?? ''));
  t.is(waiting.status?.phase, 'PENDING');
  await waitFor('b\'s HostRequest for held, its Deployment made, its pod not running', async () => {
    const request = (await hostRequests(b)).find((r) => r.spec.component === 'held');
    return notLaunched.includes(request?.status?.phase ?? '') && (await hostedDeployments(b)).length === 1 ? true : undefined;
  }, { timeoutMs: 60_000 });
  t.deepEqual(await hostRequests(c), [], 'c hosts nothing yet');

  await createApp(a.kube, app('beta', 'big', '3800m'));
  const placed = await until(a.kube, 'beta', 'placed on b', (d) => placedOn(d, 'big') === 'b');
  t.is(reclaims(a, 'beta'), 1, 'the failed auction was reclaimed once');
  t.true(a.controller.logs.some((l) => l.includes('"msg":"put to auction"') && l.includes(`"app":"${APPS}.beta.1"`)), 'an auction came first');
  t.is(placed.status?.app, `${APPS}.beta.2`, 'the reclaim is the second attempt');

  // alpha's component follows the move: on c, where it launches, and b let go of it
  const alpha = await until(a.kube, 'alpha', 'running on c', (d) => placedOn(d, 'held') === 'c' && d.status?.phase === 'RUNNING');
  t.regex(alpha.status?.components?.[0]?.message ?? '', /running|^$/);
  const request = await a.kube.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: APPS, plural: 'offloadrequests', name: 'alpha-held' }) as OffloadRequest;
  t.is(request.spec.cluster, 'c');
  t.is(request.status?.phase, 'LAUNCHED');
  const onC = await hostRequests(c);
  t.deepEqual(onC.map((r) => [r.spec.component, r.status?.phase]), [['held', 'LAUNCHED']]);
  t.regex(onC[0]?.spec.requestId ?? '', /\.move\./, 'c accepted it as a move');
  t.true((await hostedDeployments(c)).length === 1, 'c runs its Deployment');
  await waitFor('b\'s HostRequest and Deployment for held to go', async () => {
    const requests = (await hostRequests(b)).filter((r) => r.spec.component === 'held');
    const deployments = (await hostedDeployments(b)).filter((n) => n.includes('held'));
    return requests.length === 0 && deployments.length === 0 ? true : undefined;
  }, { timeoutMs: 60_000 });
  const events = await waitFor('the Moved event', async () => { const e = await movedEvents(a); return e.length > 0 ? e : undefined; });
  t.is(events.length, 1, 'one Moved event: the move was acted on once');
  t.is(events[0]?.involvedObject.name, 'alpha');
  t.regex(events[0]?.message ?? '', /^held moved from b to c: /);

  // b takes pods again: big launches there, and nothing else moves
  await taint(b, false);
  const running = await until(a.kube, 'beta', 'running', (d) => d.status?.phase === 'RUNNING');
  t.is(placedOn(running, 'big'), 'b');
  t.deepEqual((await hostRequests(b)).map((r) => [r.spec.component, r.status?.phase]), [['big', 'LAUNCHED']]);
  t.is((await movedEvents(a)).length, 1);
  t.is(reclaims(a, 'beta'), 1);
  t.is(placedOn((await readApp(a.kube, 'alpha')) ?? (() => { throw new Error('alpha gone'); })(), 'held'), 'c');
});

test.serial('a launched component stays where it runs: the new job fails, saying why, and is reclaimed once per change of the adverts', async (t) => {
  const [a, b, c] = await federation(t);
  await createApp(a.kube, app('alpha', 'held', '600m'));
  await until(a.kube, 'alpha', 'running on b', (d) => placedOn(d, 'held') === 'b' && d.status?.phase === 'RUNNING');
  await createApp(a.kube, app('beta', 'big', '3800m'));
  const failed = await until(a.kube, 'beta', 'failed after its reclaim', (d) => d.status?.phase === 'FAILED' && (d.status.reason ?? '').includes('reclaim: '));
  const ready = failed.status?.conditions?.find((x) => x.type === 'Ready');
  t.is(ready?.reason, 'NoRoom');
  t.regex(ready?.message ?? '', /reclaim: no placement with at most 3 moves of placed, not launched components/);
  t.regex(ready?.message ?? '', /spec\.movable: true/);
  // the deployment is tried again later (an auction), not reclaimed again: the adverts did not change
  const auctions = (): number => a.controller.logs.filter((l) => l.includes('"msg":"put to auction"') && l.includes(`"app":"${APPS}.beta.`)).length;
  await waitFor('two more auctions of beta', () => (auctions() >= 3 ? true : undefined), { timeoutMs: 60_000 });
  const again = await until(a.kube, 'beta', 'failed again', (d) => d.status?.phase === 'FAILED' && (d.status.attempt ?? 0) > (failed.status?.attempt ?? 0));
  t.is(reclaims(a, 'beta'), 1, 'one reclaim for these adverts');
  t.is(again.status?.conditions?.find((x) => x.type === 'Ready')?.reason, 'NoRoom', 'it still says why');
  const alpha = await readApp(a.kube, 'alpha');
  t.is(alpha?.status?.phase, 'RUNNING');
  t.is(alpha === undefined ? undefined : placedOn(alpha, 'held'), 'b', 'held did not move');
  t.deepEqual(await hostRequests(c), []);
  t.deepEqual((await movedEvents(a)).length, 0);
  t.deepEqual((await hostRequests(b)).map((r) => r.spec.component), ['held']);
});

test.serial('with spec.movable a launched component moves: it runs on its new host, and the new job runs where it was', async (t) => {
  const [a, b, c] = await federation(t);
  await createApp(a.kube, app('alpha', 'held', '600m', true));
  await until(a.kube, 'alpha', 'running on b', (d) => placedOn(d, 'held') === 'b' && d.status?.phase === 'RUNNING');
  t.true((await hostRequests(b)).every((r) => r.spec.movable === true), 'b holds it as movable (the lease said so)');
  await createApp(a.kube, app('beta', 'big', '3800m'));
  const beta = await until(a.kube, 'beta', 'running on b', (d) => placedOn(d, 'big') === 'b' && d.status?.phase === 'RUNNING');
  t.is(beta.status?.conditions?.find((x) => x.type === 'Ready')?.reason, 'Running');
  const alpha = await until(a.kube, 'alpha', 'running on c', (d) => placedOn(d, 'held') === 'c' && d.status?.phase === 'RUNNING');
  t.is(phaseOf(alpha, 'held'), 'LAUNCHED');
  t.deepEqual((await hostRequests(c)).map((r) => [r.spec.component, r.status?.phase]), [['held', 'LAUNCHED']]);
  await waitFor('b to hold only big', async () => {
    const held = (await hostRequests(b)).map((r) => r.spec.component);
    const deployments = await hostedDeployments(b);
    return held.length === 1 && held[0] === 'big' && deployments.length === 1 ? true : undefined;
  }, { timeoutMs: 60_000 });
  t.is(reclaims(a, 'beta'), 1);
  t.is((await movedEvents(a)).length, 1);
});

test.serial('the origin\'s controller stopped mid-move (the old host told to let go, the status not yet written) converges: each component held once, where its status says', async (t) => {
  const [a, b, c] = await federation(t);
  await taint(b, true);
  await createApp(a.kube, app('alpha', 'held', '600m'));
  await until(a.kube, 'alpha', 'placed on b', (d) => placedOn(d, 'held') === 'b');
  const agent = a.controller.controller.offloader?.federation.agent;
  // the agent publishes a move's release before it emits `moved`; the reconcile that writes it is still queued
  const moved = new Promise<void>((resolve) => { agent?.on('decision', (e) => { if (e.type === 'moved') resolve(); }); });
  await createApp(a.kube, app('beta', 'big', '3800m'));
  await moved;
  await a.controller.controller.stop();
  const cut = await readApp(a.kube, 'beta');
  t.not(cut?.status?.phase, 'RUNNING', 'stopped before beta was committed');

  a.controller = await startMember(t, a);
  await until(a.kube, 'alpha', 'placed on c', (d) => placedOn(d, 'held') === 'c');
  await until(a.kube, 'beta', 'placed on b', (d) => placedOn(d, 'big') === 'b');
  await taint(b, false);
  const alpha = await until(a.kube, 'alpha', 'running', (d) => d.status?.phase === 'RUNNING' && placedOn(d, 'held') === 'c');
  const beta = await until(a.kube, 'beta', 'running', (d) => d.status?.phase === 'RUNNING' && placedOn(d, 'big') === 'b');
  // strays (a reservation nobody's status names) end with their lease
  const held = (m: Member, component: string): Promise<HostRequest[] | undefined> => waitFor(`${m.id} to hold only ${component}`, async () => {
    const requests = await hostRequests(m);
    const deployments = await hostedDeployments(m);
    return requests.length === 1 && requests[0]?.spec.component === component && deployments.length === 1 ? requests : undefined;
  }, { timeoutMs: 60_000 });
  const [onB] = await held(b, 'big') ?? [];
  const [onC] = await held(c, 'held') ?? [];
  t.is(onB?.spec.app, beta.status?.components?.[0]?.app, 'b holds big for the auction the origin recorded');
  t.is(onC?.spec.app, alpha.status?.components?.[0]?.app, 'c holds held for the auction the origin recorded');
  t.is(b.controller.controller.offloader?.federation.agent.hosted().length, 1);
  t.is(c.controller.controller.offloader?.federation.agent.hosted().length, 1);
});
