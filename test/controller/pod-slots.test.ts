// Placement counts pods as a resource (a node's allocatable pods) and counts the deviceShifus it
// placed whose pods are not bound yet (AssumedPlacements): pure, without a cluster.
import test from 'ava';
import { place, type PlacementPolicy, type PlacementRequest } from '../../controller/scheduling/placement.ts';
import { addRequests, candidateNode, type CandidateNode } from '../../controller/scheduling/candidates.ts';
import { AssumedPlacements } from '../../controller/scheduling/assumed.ts';

const Mi = 2 ** 20;
const Gi = 2 ** 30;
const policy: PlacementPolicy = { cooldownMs: 600_000, betterMemoryRatio: 2, betterDistanceKm: 1 };
const request: PlacementRequest = { cpuMillis: 10, memory: 32 * Mi };
const NOW = 1_000_000_000;
const clock = { now: NOW, staleMs: 120_000, requireEdgeNode: false };
const kubeNode = (name: string, allocatable: Record<string, string>): never =>
  ({ metadata: { name }, status: { allocatable, conditions: [{ type: 'Ready', status: 'True' }] } }) as never;

test("a candidate's free pods are its allocatable pods minus the pods counted on it; none when the Node states none, as the scheduler counts it", (t) => {
  const node = kubeNode('n', { cpu: '4', memory: '8Gi', pods: '110' });
  t.is(candidateNode(node, undefined, undefined, clock).freePods, 110);
  t.is(candidateNode(node, undefined, { cpuMillis: 20, memory: 64 * Mi, pods: 2 }, clock).freePods, 108);
  const silent = candidateNode(kubeNode('n', { cpu: '4', memory: '8Gi' }), undefined, undefined, clock);
  t.is(silent.freePods, 0);
  t.like(place(request, [silent], policy, NOW), { kind: 'pending', reason: 'NoNodeAvailable' });
});

test('a node with memory to spare but no pod slot is skipped, and the message says a pod slot is needed', (t) => {
  const nodes: CandidateNode[] = [
    { name: 'roomy-but-full', freeMemory: 64 * Gi, freeCpuMillis: 64_000, freePods: 0 },
    { name: 'small', freeMemory: 1 * Gi, freeCpuMillis: 1000, freePods: 1 },
  ];
  const decision = place(request, nodes, policy, NOW);
  t.like(decision, { kind: 'placed', node: 'small' });
  const none = place(request, [nodes[0] as CandidateNode], policy, NOW);
  t.like(none, { kind: 'pending', reason: 'NoNodeAvailable' });
  t.regex(none.kind === 'pending' ? none.message : '', /1 without 32Mi memory, 10m CPU and room for one more pod/);
});

test('a device already on a full node keeps its own slot there, and an attached one says how many slots are left', (t) => {
  const full: CandidateNode = { name: 'a', freeMemory: 1 * Gi, freeCpuMillis: 1000, freePods: 0 };
  t.like(place({ ...request, current: { node: 'a', placedAt: 0 } }, [full], policy, NOW), { kind: 'placed', node: 'a', moved: false });
  const attached = place({ ...request, attachedNode: 'a' }, [full], policy, NOW);
  t.like(attached, { kind: 'pending', reason: 'AttachedNodeFull' });
  t.regex(attached.kind === 'pending' ? attached.message : '', /room for 0 more pod\(s\); deviceShifu needs 32Mi memory, 10m CPU and room for one more pod/);
});

test('assumed placements sum per node, move with the device, and leave nothing behind when forgotten', (t) => {
  const assumed = new AssumedPlacements();
  const one = { cpuMillis: 10, memory: 32 * Mi };
  assumed.assume('devices/a', 'n1', one);
  assumed.assume('devices/b', 'n1', one);
  assumed.assume('devices/c', 'n2', one);
  t.like(assumed.on('n1'), { cpuMillis: 20, memory: 64 * Mi, pods: 2 });
  const before = assumed.version;
  assumed.assume('devices/a', 'n1', one);
  t.is(assumed.version, before, 'the same assumption again changes nothing, so cached candidates stay');
  assumed.assume('devices/a', 'n2', one);
  t.like(assumed.on('n1'), { pods: 1 });
  t.like(assumed.on('n2'), { cpuMillis: 20, pods: 2 });
  // a pod bound elsewhere (an old one, before the move) ends nothing; bound where assumed, it ends
  assumed.bound('devices/a', 'n1');
  t.like(assumed.on('n2'), { pods: 2 });
  assumed.bound('devices/a', 'n2');
  t.like(assumed.on('n2'), { pods: 1 });
  for (const device of ['devices/a', 'devices/b', 'devices/c', 'devices/never']) assumed.forget(device);
  t.is(assumed.on('n1'), undefined);
  t.is(assumed.on('n2'), undefined);
  t.is(assumed.size, 0);
});

test('a burst placed one by one against bound pods plus assumptions fills each node to its pod limit, never past it', (t) => {
  // nodes with room for 4, 3 and 5 pods, one bound on a already: 11 slots; 11 devices arrive
  // before any of their pods is bound, so each placement must see those before it
  const names = ['a', 'b', 'c'];
  const nodes = [kubeNode('a', { cpu: '8', memory: '16Gi', pods: '4' }), kubeNode('b', { cpu: '8', memory: '8Gi', pods: '3' }), kubeNode('c', { cpu: '8', memory: '4Gi', pods: '5' })];
  const bound = new Map([['a', { cpuMillis: 100, memory: 128 * Mi, pods: 1 }]]);
  const assumed = new AssumedPlacements();
  const candidates = (): CandidateNode[] => nodes.map((n, i) => candidateNode(n, undefined, addRequests(bound.get(names[i] ?? ''), assumed.on(names[i] ?? '')), clock));
  const placedOn = new Map<string, number>();
  for (let i = 0; i < 11; i++) {
    const decision = place(request, candidates(), policy, NOW);
    if (decision.kind !== 'placed') { t.fail(`device ${i} not placed: ${decision.kind}`); return; }
    assumed.assume(`devices/d${i}`, decision.node, request);
    placedOn.set(decision.node, (placedOn.get(decision.node) ?? 0) + 1);
  }
  t.deepEqual(Object.fromEntries(placedOn), { a: 3, b: 3, c: 5 }, 'a keeps one slot for its bound pod');
  t.like(place(request, candidates(), policy, NOW), { kind: 'pending', reason: 'NoNodeAvailable' }, 'the twelfth finds no slot');
});
