// deviceUpdater's plan: a status write only when what this node says changes, plus a slow
// lastSeenTime refresh; after a restart, what the object already says counts as written.
import test from 'ava';
import { API_VERSION } from '../../shared/crds/resources.ts';
import { appliedFromObject, planDeviceStatus, type Applied, type DeviceStatusInput } from '../../shifud/device-status.ts';
import type { Verdict } from '../../shifud/device-verifier.ts';
import type { EdgeDevice } from '../../shared/crds/edgedevice.ts';

const device: EdgeDevice = { apiVersion: API_VERSION, kind: 'EdgeDevice', metadata: { name: 'plc', namespace: 'devices', generation: 3 }, spec: { protocol: 'TCP', address: '10.0.0.5:502' } };
const online: Verdict = { state: 'online', reason: 'Reachable', message: '10.0.0.5:502 accepts connections' };
const offline: Verdict = { state: 'offline', reason: 'ConnectionRefused', message: '10.0.0.5:502 refused the connection (ECONNREFUSED)' };
const input = (verdict: Verdict, now: number, over: Partial<DeviceStatusInput> = {}): DeviceStatusInput =>
  ({ device, nodeName: 'edge-1', linkType: 'Ethernet', speaks: true, verdict, now, refreshMs: 600_000, ...over });
const nothing: Applied = appliedFromObject(device, 'edge-1', true);

test('the first verdict is written with the condition and this node\'s link', (t) => {
  const plan = planDeviceStatus(input(online, Date.parse('2026-01-01T00:00:00Z')), nothing);
  t.deepEqual(plan?.body.status, {
    conditions: [{ type: 'Reachable', status: 'True', reason: 'Reachable', message: '10.0.0.5:502 accepts connections (seen from node edge-1)', observedGeneration: 3, lastTransitionTime: '2026-01-01T00:00:00.000Z' }],
    links: [{ node: 'edge-1', type: 'Ethernet', lastSeenTime: '2026-01-01T00:00:00.000Z' }],
  });
  t.deepEqual(plan?.body.metadata, { name: 'plc', namespace: 'devices' });
});

test('the same verdict again is not written until the link needs its refresh', (t) => {
  const first = planDeviceStatus(input(online, 0), nothing)!;
  t.is(planDeviceStatus(input(online, 599_999), first.applied), undefined);
  const refresh = planDeviceStatus(input(online, 600_000), first.applied);
  t.is(refresh?.body.status?.links?.[0]?.lastSeenTime, new Date(600_000).toISOString());
});

test('going offline drops the link and flips the condition; staying offline writes nothing', (t) => {
  const first = planDeviceStatus(input(online, 0), nothing)!;
  const down = planDeviceStatus(input(offline, 1000), first.applied)!;
  t.like(down.body.status?.conditions?.[0], { status: 'False', reason: 'ConnectionRefused' });
  t.is(down.body.status?.links, undefined);
  t.is(planDeviceStatus(input(offline, 900_000), down.applied), undefined, 'no refresh without a link');
});

test('a node that does not speak for the device writes only its link', (t) => {
  const plan = planDeviceStatus(input(online, 0, { speaks: false }), nothing);
  t.is(plan?.body.status?.conditions, undefined);
  t.is(plan?.body.status?.links?.length, 1);
});

test('after a restart, a status that already says the same is not written again', (t) => {
  const written = planDeviceStatus(input(online, 0), nothing)!;
  const stored: EdgeDevice = { ...device, status: written.body.status };
  const fromObject = appliedFromObject(stored, 'edge-1', true);
  t.is(planDeviceStatus(input(online, 1000), fromObject), undefined);
  t.truthy(planDeviceStatus(input(offline, 1000), fromObject));
});

test('the transition time stays when only the message changes', (t) => {
  const written = planDeviceStatus(input(offline, 0), nothing)!;
  const stored: EdgeDevice = { ...device, status: written.body.status };
  const other: Verdict = { ...offline, reason: 'Timeout', message: 'no connection within 3000 ms' };
  const plan = planDeviceStatus(input(other, 5000, { device: stored }), written.applied);
  t.is(plan?.body.status?.conditions?.[0]?.lastTransitionTime, new Date(0).toISOString());
});

test('a spec change (new generation) is written even when the verdict is the same', (t) => {
  const first = planDeviceStatus(input(online, 0), nothing)!;
  const edited: EdgeDevice = { ...device, metadata: { name: 'plc', namespace: 'devices', generation: 4 } };
  t.is(planDeviceStatus(input(online, 1000, { device: edited }), first.applied)?.body.status?.conditions?.[0]?.observedGeneration, 4);
});
