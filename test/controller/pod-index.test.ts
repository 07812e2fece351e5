// The pod index that makes a reconcile O(nodes + own pods): node totals and a device's
// pods follow adds, updates and deletes, whatever changes between two versions of a pod.
import test from 'ava';
import type { V1Pod } from '@kubernetes/client-node';
import { PodIndex } from '../../controller/scheduling/pod-index.ts';
import { podRecord, StringPool, type PodRecord } from '../../controller/records.ts';

const Mi = 2 ** 20;

interface PodShape {
  readonly name: string;
  readonly namespace?: string;
  readonly node?: string;
  readonly phase?: string;
  readonly cpu?: string;
  readonly memory?: string;
  readonly device?: string;
}

function v1Pod(shape: PodShape): V1Pod {
  const labels = shape.device === undefined ? undefined : { 'shifu.edgenesis.io/edgedevice': shape.device, 'shifu.edgenesis.io/edgedevice-namespace': 'devices' };
  return {
    metadata: { name: shape.name, namespace: shape.namespace ?? 'deviceshifu', labels },
    spec: { nodeName: shape.node, containers: [{ name: 'c', resources: { requests: { cpu: shape.cpu ?? '10m', memory: shape.memory ?? '32Mi' } } }] },
    status: { phase: shape.phase ?? 'Running' },
  };
}

const pool = new StringPool();
/** The pod as the informer caches it. */
const pod = (shape: PodShape): PodRecord => podRecord(v1Pod(shape), 'deviceshifu', pool);
/** Feeds an index as the pod informer does: each update and delete with the version it replaces. */
function feed(index: PodIndex): { upsert: (pod: PodRecord) => void; remove: (key: string) => void } {
  const cached = new Map<string, PodRecord>();
  return {
    upsert: (pod) => { index.upsert(pod, cached.get(pod.key)); cached.set(pod.key, pod); },
    remove: (key) => { index.remove(cached.get(key)); cached.delete(key); },
  };
}
const names = (pods: ReadonlyArray<{ readonly metadata?: { readonly name?: string } }>): string[] => pods.map((p) => p.metadata?.name ?? '').sort();

test('adds sum the requests of the pods on each node', (t) => {
  const index = new PodIndex();
  const events = feed(index);
  events.upsert(pod({ name: 'a', node: 'n1', cpu: '500m', memory: '1Gi' }));
  events.upsert(pod({ name: 'b', node: 'n1', cpu: '250m', memory: '512Mi' }));
  events.upsert(pod({ name: 'c', node: 'n2', cpu: '1' }));
  t.deepEqual(index.requestsOn('n1'), { cpuMillis: 750, memory: 1536 * Mi, pods: 2 });
  t.deepEqual(index.requestsOn('n2'), { cpuMillis: 1000, memory: 32 * Mi, pods: 1 });
  t.is(index.requestsOn('n3'), undefined);
  t.is(index.size, 3);
});

test('a pending pod not yet bound holds nothing until the scheduler binds it', (t) => {
  const index = new PodIndex();
  const events = feed(index);
  events.upsert(pod({ name: 'a', phase: 'Pending' }));
  t.is(index.nodeCount, 0);
  events.upsert(pod({ name: 'a', phase: 'Pending', node: 'n1' }));
  t.deepEqual(index.requestsOn('n1'), { cpuMillis: 10, memory: 32 * Mi, pods: 1 });
});

test('an update takes back the previous version: requests changed, node changed', (t) => {
  const index = new PodIndex();
  const events = feed(index);
  events.upsert(pod({ name: 'a', node: 'n1', memory: '1Gi' }));
  events.upsert(pod({ name: 'b', node: 'n1', memory: '1Gi' }));
  events.upsert(pod({ name: 'a', node: 'n1', memory: '2Gi' }));
  t.deepEqual(index.requestsOn('n1'), { cpuMillis: 20, memory: 3072 * Mi, pods: 2 });
  events.upsert(pod({ name: 'a', node: 'n2', memory: '2Gi' }));
  t.deepEqual(index.requestsOn('n1'), { cpuMillis: 10, memory: 1024 * Mi, pods: 1 });
  t.deepEqual(index.requestsOn('n2'), { cpuMillis: 10, memory: 2048 * Mi, pods: 1 });
  t.is(index.size, 2);
});

test('a pod that succeeds or fails gives its requests back, and a restart of the same name takes them again', (t) => {
  const index = new PodIndex();
  const events = feed(index);
  events.upsert(pod({ name: 'job', node: 'n1', memory: '1Gi' }));
  events.upsert(pod({ name: 'web', node: 'n1', memory: '1Gi' }));
  events.upsert(pod({ name: 'job', node: 'n1', memory: '1Gi', phase: 'Succeeded' }));
  t.deepEqual(index.requestsOn('n1'), { cpuMillis: 10, memory: 1024 * Mi, pods: 1 });
  events.upsert(pod({ name: 'web', node: 'n1', memory: '1Gi', phase: 'Failed' }));
  t.is(index.requestsOn('n1'), undefined, 'a node with nothing left drops out');
  t.is(index.size, 2, 'finished pods stay known until deleted');
  events.upsert(pod({ name: 'job', node: 'n1', memory: '1Gi', phase: 'Running' }));
  t.deepEqual(index.requestsOn('n1'), { cpuMillis: 10, memory: 1024 * Mi, pods: 1 });
});

test('a delete takes back exactly what the pod held, even when the deleted copy differs', (t) => {
  const index = new PodIndex();
  const events = feed(index);
  events.upsert(pod({ name: 'a', node: 'n1', memory: '1Gi' }));
  events.upsert(pod({ name: 'b', node: 'n1', memory: '1Gi' }));
  // a watch DELETED carries the last state, which may not be the one cached
  events.remove(pod({ name: 'a', node: 'elsewhere', memory: '5Gi', phase: 'Failed' }).key);
  t.deepEqual(index.requestsOn('n1'), { cpuMillis: 10, memory: 1024 * Mi, pods: 1 });
  events.remove(pod({ name: 'a' }).key);
  events.remove(pod({ name: 'never-seen' }).key);
  t.deepEqual(index.requestsOn('n1'), { cpuMillis: 10, memory: 1024 * Mi, pods: 1 });
  events.remove(pod({ name: 'b' }).key);
  t.is(index.nodeCount, 0);
  t.is(index.size, 0);
});

test('pods with the same name in two namespaces are two pods', (t) => {
  const index = new PodIndex();
  const events = feed(index);
  events.upsert(pod({ name: 'a', node: 'n1', memory: '1Gi' }));
  events.upsert(pod({ name: 'a', namespace: 'other', node: 'n1', memory: '1Gi' }));
  t.deepEqual(index.requestsOn('n1'), { cpuMillis: 20, memory: 2048 * Mi, pods: 2 });
  events.remove(pod({ name: 'a', namespace: 'other' }).key);
  t.deepEqual(index.requestsOn('n1'), { cpuMillis: 10, memory: 1024 * Mi, pods: 1 });
});

test("a device's pods are those in the deviceShifu namespace bearing its labels, following relabels and deletes", (t) => {
  const index = new PodIndex();
  const events = feed(index);
  const thermometer = { name: 'thermometer', namespace: 'devices' };
  events.upsert(pod({ name: 'thermometer-1', device: 'thermometer', phase: 'Pending' }));
  events.upsert(pod({ name: 'thermometer-2', device: 'thermometer', node: 'n1' }));
  events.upsert(pod({ name: 'camera-1', device: 'camera', node: 'n1' }));
  events.upsert(pod({ name: 'impostor', namespace: 'default', device: 'thermometer', node: 'n1' }));
  t.deepEqual(names(index.podsOf(thermometer)), ['thermometer-1', 'thermometer-2']);
  t.deepEqual(names(index.podsOf({ name: 'camera', namespace: 'devices' })), ['camera-1']);
  t.deepEqual(index.podsOf({ name: 'thermometer', namespace: 'elsewhere' }), []);

  // the newest version is what the device sees
  events.upsert(pod({ name: 'thermometer-1', device: 'thermometer', node: 'n2' }));
  t.is(index.podsOf(thermometer).find((p) => p.key === 'deviceshifu/thermometer-1')?.node, 'n2');
  // a pod relabelled away leaves the device
  events.upsert(pod({ name: 'thermometer-2', node: 'n1' }));
  t.deepEqual(names(index.podsOf(thermometer)), ['thermometer-1']);
  events.remove(pod({ name: 'thermometer-1' }).key);
  t.deepEqual(index.podsOf(thermometer), []);
  t.deepEqual(index.requestsOn('n1'), { cpuMillis: 30, memory: 96 * Mi, pods: 3 }, 'node totals count every namespace');
});

test('the index matches a full recount after a random run of events', (t) => {
  // a deterministic pseudo-random sequence: adds, moves, phase changes and deletes over 50 pods
  const index = new PodIndex();
  const events = feed(index);
  const live = new Map<string, V1Pod>();
  let seed = 42;
  const next = (n: number): number => { seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31; return seed % n; };
  const phases = ['Pending', 'Running', 'Succeeded', 'Failed'];
  for (let step = 0; step < 2000; step++) {
    const name = `p${String(next(50))}`;
    if (next(5) === 0) {
      events.remove(pod({ name }).key);
      live.delete(name);
    } else {
      const p = v1Pod({ name, node: next(4) === 0 ? undefined : `n${String(next(5))}`, phase: phases[next(4)], memory: `${String(1 + next(64))}Mi`, cpu: `${String(1 + next(500))}m`, device: `d${String(next(3))}` });
      events.upsert(podRecord(p, 'deviceshifu', pool));
      live.set(name, p);
    }
  }
  for (const n of ['n0', 'n1', 'n2', 'n3', 'n4']) {
    const holding = [...live.values()].filter((p) => p.spec?.nodeName === n && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
    const memory = holding.reduce((sum, p) => sum + Number(/^(\d+)Mi$/.exec(String(p.spec?.containers[0]?.resources?.requests?.memory))?.[1]) * Mi, 0);
    t.is(index.requestsOn(n)?.memory ?? 0, memory, n);
    t.is(index.requestsOn(n)?.pods ?? 0, holding.length, n);
  }
  for (const d of ['d0', 'd1', 'd2']) {
    t.deepEqual(names(index.podsOf({ name: d, namespace: 'devices' })), names([...live.values()].filter((p) => p.metadata?.labels?.['shifu.edgenesis.io/edgedevice'] === d)));
  }
  t.is(index.size, live.size);
});
