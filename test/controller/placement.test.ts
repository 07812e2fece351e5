import test from 'ava';
import { place, type PlacementPolicy, type PlacementRequest } from '../../controller/scheduling/placement.ts';
import { candidateNode, type CandidateNode } from '../../controller/scheduling/candidates.ts';
import { PodIndex } from '../../controller/scheduling/pod-index.ts';
import { podRecord, StringPool } from '../../controller/records.ts';
import { distanceKm } from '../../controller/scheduling/distance.ts';

const Mi = 2 ** 20;
const Gi = 2 ** 30;
const policy: PlacementPolicy = { cooldownMs: 600_000, betterMemoryRatio: 2, betterDistanceKm: 1 };
const request: PlacementRequest = { cpuMillis: 10, memory: 32 * Mi };
const node = (name: string, freeMemory: number, extra: Partial<CandidateNode> = {}): CandidateNode => ({ name, freeMemory, freeCpuMillis: 4000, ...extra });
const TURIN = { latitude: 45.0703, longitude: 7.6869 };
const MILAN = { latitude: 45.4642, longitude: 9.19 };
const NOW = 1_000_000_000;

test('haversine distance between Turin and Milan is about 126 km', (t) => {
  const km = distanceKm(TURIN, MILAN) ?? 0;
  t.true(km > 120 && km < 130, String(km));
  t.is(distanceKm(TURIN, { zone: 'a' }), undefined);
});

const NEW_PLACEMENTS: ReadonlyArray<{ rule: string; request: PlacementRequest; nodes: CandidateNode[]; node: string; reason: RegExp }> = [
  { rule: 'most free memory wins without locations', request, nodes: [node('a', 1 * Gi), node('b', 3 * Gi), node('c', 2 * Gi)], node: 'b', reason: /most free memory \(3Gi\)/ },
  { rule: 'a tie on memory goes to the first name', request, nodes: [node('b', 2 * Gi), node('a', 2 * Gi)], node: 'a', reason: /most free memory/ },
  { rule: 'the closest node wins when locations are known', request: { ...request, location: TURIN },
    nodes: [node('milan', 8 * Gi, { location: MILAN }), node('turin', 1 * Gi, { location: { latitude: 45.07, longitude: 7.69 } })], node: 'turin', reason: /closest by location \(0\.\d\d km\)/ },
  { rule: 'a node with coordinates beats one without', request: { ...request, location: TURIN },
    nodes: [node('nowhere', 8 * Gi), node('milan', 1 * Gi, { location: MILAN })], node: 'milan', reason: /closest by location \(12\d\.\d\d km\)/ },
  { rule: 'the device zone beats more memory elsewhere', request: { ...request, location: { zone: 'line-3' } },
    nodes: [node('big', 8 * Gi, { location: { zone: 'line-1' } }), node('near', 1 * Gi, { location: { zone: 'line-3' } })], node: 'near', reason: /in the device's zone line-3/ },
  { rule: 'unavailable nodes are skipped', request, nodes: [node('down', 8 * Gi, { unavailable: 'Node not Ready' }), node('up', 1 * Gi)], node: 'up', reason: /most free memory/ },
  { rule: 'nodes without room are skipped', request, nodes: [node('full', 16 * Mi), node('roomy', 64 * Mi)], node: 'roomy', reason: /most free memory/ },
  { rule: 'an attached device runs on its node whatever the others offer', request: { ...request, attachedNode: 'usb-host' },
    nodes: [node('big', 8 * Gi), node('usb-host', 64 * Mi)], node: 'usb-host', reason: /attached to usb-host/ },
];

for (const c of NEW_PLACEMENTS) {
  test(`placement: ${c.rule}`, (t) => {
    const decision = place(c.request, c.nodes, policy, NOW);
    t.is(decision.kind, 'placed');
    if (decision.kind !== 'placed') return;
    t.is(decision.node, c.node);
    t.regex(decision.reason, c.reason);
    t.false(decision.moved);
  });
}

test('no node with room leaves the device pending, saying why', (t) => {
  const decision = place(request, [node('full', 1 * Mi), node('down', 8 * Gi, { unavailable: 'cordoned' })], policy, NOW);
  t.deepEqual(decision, { kind: 'pending', reason: 'NoNodeAvailable', message: 'no node can run the deviceShifu: 1 unavailable, 1 without 32Mi memory, 10m CPU and room for one more pod' });
  t.is(place(request, [], policy, NOW).kind, 'pending');
});

test('an attached device whose node is lost becomes unknown, not moved', (t) => {
  const attached = { ...request, attachedNode: 'usb-host', current: { node: 'usb-host', placedAt: 0 } };
  t.deepEqual(place(attached, [node('usb-host', 1 * Gi, { unavailable: 'Node not Ready (NodeStatusUnknown)' }), node('other', 8 * Gi)], policy, NOW),
    { kind: 'unknown', reason: 'AttachedNodeUnavailable', message: 'attached node usb-host is unavailable: Node not Ready (NodeStatusUnknown)' });
  t.is(place(attached, [node('other', 8 * Gi)], policy, NOW).kind, 'unknown');
  const full = place({ ...request, attachedNode: 'usb-host' }, [node('usb-host', 1 * Mi)], policy, NOW);
  t.is(full.kind, 'pending');
  t.regex(full.kind === 'pending' ? full.message : '', /attached node usb-host has 1Mi memory/);
});

test('a placed device stays when the better node is not clearly better (hysteresis)', (t) => {
  const current = { node: 'a', placedAt: NOW - 3_600_000 };
  // a has 1Gi free plus its own 32Mi; b has less than twice that
  const decision = place({ ...request, current }, [node('a', 1 * Gi), node('b', 2 * Gi)], policy, NOW);
  t.like(decision, { kind: 'placed', node: 'a', moved: false });
});

test('a placed device moves once to a clearly better node, and not during the cooldown', (t) => {
  const nodes = [node('a', 512 * Mi), node('b', 4 * Gi)];
  t.like(place({ ...request, current: { node: 'a', placedAt: NOW - 60_000 } }, nodes, policy, NOW), { kind: 'placed', node: 'a', moved: false }, 'cooling down');
  const moved = place({ ...request, current: { node: 'a', placedAt: NOW - 3_600_000 } }, nodes, policy, NOW);
  t.like(moved, { kind: 'placed', node: 'b', moved: true });
  // after the move b is current: a is not better, so no flapping back
  t.like(place({ ...request, current: { node: 'b', placedAt: NOW } }, [node('a', 512 * Mi), node('b', 4 * Gi - 32 * Mi)], policy, NOW + 3_600_000), { node: 'b', moved: false });
});

test('a closer node must be closer by more than the distance hysteresis', (t) => {
  const current = { node: 'a', placedAt: 0 };
  const here = { latitude: 45, longitude: 7 };
  const nodes = [node('a', 1 * Gi, { location: { latitude: 45.005, longitude: 7 } }), node('b', 1 * Gi, { location: here })];
  t.like(place({ ...request, location: here, current }, nodes, policy, NOW), { node: 'a', moved: false }, '0.56 km closer is not enough');
  const far = [node('a', 1 * Gi, { location: { latitude: 45.05, longitude: 7 } }), node('b', 1 * Gi, { location: here })];
  t.like(place({ ...request, location: here, current }, far, policy, NOW), { node: 'b', moved: true });
});

test('a device on a node that became unavailable moves at once, cooldown or not', (t) => {
  const decision = place({ ...request, current: { node: 'a', placedAt: NOW } }, [node('a', 8 * Gi, { unavailable: 'shifud heartbeat stale since 2026-11-22T10:00:00Z' }), node('b', 1 * Gi)], policy, NOW);
  t.like(decision, { kind: 'placed', node: 'b', moved: true });
  t.regex(decision.kind === 'placed' ? decision.reason : '', /a shifud heartbeat stale/);
});

test('a candidate node is allocatable minus requests, lowered to what shifud measured', (t) => {
  const k8sNode = { metadata: { name: 'n' }, status: { allocatable: { cpu: '2', memory: '4Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] } };
  const pods = [
    { metadata: { name: 'a' }, spec: { nodeName: 'n', containers: [{ name: 'a', resources: { requests: { cpu: '500m', memory: '1Gi' } } }] }, status: { phase: 'Running' } },
    { metadata: { name: 'b' }, spec: { nodeName: 'n', containers: [{ name: 'b', resources: { requests: { cpu: '250m', memory: '512Mi' } } }] }, status: { phase: 'Succeeded' } },
    { metadata: { name: 'c' }, spec: { nodeName: 'other', containers: [{ name: 'c', resources: { requests: { cpu: '1', memory: '1Gi' } } }] } },
  ];
  const index = new PodIndex();
  const pool = new StringPool();
  for (const pod of pods) index.upsert(podRecord({ ...pod, metadata: { ...pod.metadata, namespace: 'default' } }, 'deviceshifu', pool));
  const used = { get: (name: string) => index.requestsOn(name) };
  const clock = { now: Date.parse('2026-11-22T10:01:00Z'), staleMs: 120_000, requireEdgeNode: false };
  t.like(candidateNode(k8sNode as never, undefined, used.get('n'), clock), { name: 'n', freeMemory: 3 * Gi, freeCpuMillis: 1500, freePods: 109, unavailable: undefined });
  const edge = { spec: { location: { zone: 'z' } }, status: { free: { memory: '2Gi', cpu: '3' }, lastHeartbeatTime: '2026-11-22T10:00:00Z' } };
  t.like(candidateNode(k8sNode as never, edge, used.get('n'), clock), { freeMemory: 2 * Gi, freeCpuMillis: 1500, location: { zone: 'z' } });
  const busy = { ...edge, status: { ...edge.status, free: { memory: '2Gi', cpu: '0' } } };
  t.like(candidateNode(k8sNode as never, busy, used.get('n'), clock), { freeCpuMillis: 1500 }, 'measured idle CPU does not veto requests');
  t.like(candidateNode(k8sNode as never, edge, used.get('n'), { ...clock, now: clock.now + 600_000 }), { unavailable: 'shifud heartbeat stale since 2026-11-22T10:00:00Z' });
  t.like(candidateNode(k8sNode as never, undefined, undefined, { ...clock, requireEdgeNode: true }), { unavailable: 'no EdgeNode (is shifud running there?)' });
  t.like(candidateNode({ ...k8sNode, spec: { unschedulable: true } }, undefined, undefined, clock), { unavailable: 'cordoned' });
});
