import test from 'ava';
import { proportion } from '../../controller/drone/slicing/proportion.ts';
import { isEdgeshifuError } from '../../shared/errors.ts';

const GI = 1024;

function rounded(shares: Map<string, { cpu: number; memory: number }>): Record<string, { cpu: number; memory: number }> {
  return Object.fromEntries([...shares].map(([k, v]) => [k, { cpu: Math.round(v.cpu * 100) / 100, memory: Math.round(v.memory * 100) / 100 }]));
}

test('12 CPU among A (w1, 2), B (w1, 8) and C (w2, 10) gives A 2, B 3.33 and C 6.67', (t) => {
  const shares = proportion({ cpu: 12, memory: 0 }, [
    { cluster: 'a', weight: 1, request: { cpu: 2, memory: 0 } },
    { cluster: 'b', weight: 1, request: { cpu: 8, memory: 0 } },
    { cluster: 'c', weight: 2, request: { cpu: 10, memory: 0 } },
  ]);
  t.deepEqual(rounded(shares), { a: { cpu: 2, memory: 0 }, b: { cpu: 3.33, memory: 0 }, c: { cpu: 6.67, memory: 0 } });
});

test("the policy's worked example: 9 CPU / 27 Gi between Q1 (w2, 5 CPU 10 Gi) and Q2 (w4, 10 CPU 20 Gi) gives 3/9 Gi and 6/18 Gi", (t) => {
  const shares = proportion({ cpu: 9, memory: 27 * GI }, [
    { cluster: 'q1', weight: 2, request: { cpu: 5, memory: 10 * GI } },
    { cluster: 'q2', weight: 4, request: { cpu: 10, memory: 20 * GI } },
  ]);
  t.deepEqual(rounded(shares), { q1: { cpu: 3, memory: 9 * GI }, q2: { cpu: 6, memory: 18 * GI } });
});

const cases = [
  { name: 'a single requester gets what it asks when there is enough', total: { cpu: 10, memory: 10 }, requests: [{ cluster: 'a', weight: 1, request: { cpu: 4, memory: 2 } }], expected: { a: { cpu: 4, memory: 2 } } },
  { name: 'nothing to share gives everyone nothing', total: { cpu: 0, memory: 0 }, requests: [{ cluster: 'a', weight: 1, request: { cpu: 4, memory: 2 } }], expected: { a: { cpu: 0, memory: 0 } } },
  { name: 'a capability caps a share below its request and the rest goes to others', total: { cpu: 10, memory: 0 }, requests: [{ cluster: 'a', weight: 1, request: { cpu: 10, memory: 0 }, capability: { cpu: 2, memory: 0 } }, { cluster: 'b', weight: 1, request: { cpu: 10, memory: 0 } }], expected: { a: { cpu: 2, memory: 0 }, b: { cpu: 8, memory: 0 } } },
];

for (const c of cases) {
  test(c.name, (t) => {
    t.deepEqual(rounded(proportion(c.total, c.requests)), c.expected);
  });
}

test('shares never exceed the total nor any request', (t) => {
  const requests = [3, 7, 1, 12].map((cpu, i) => ({ cluster: `c${i}`, weight: i + 1, request: { cpu, memory: cpu * 2 } }));
  const shares = proportion({ cpu: 15, memory: 20 }, requests);
  const total = [...shares.values()].reduce((s, v) => ({ cpu: s.cpu + v.cpu, memory: s.memory + v.memory }), { cpu: 0, memory: 0 });
  t.true(total.cpu <= 15 + 1e-9 && total.memory <= 20 + 1e-9);
  for (const r of requests) t.true((shares.get(r.cluster)?.cpu ?? 0) <= r.request.cpu + 1e-9);
});

const bad = [
  { what: 'a zero weight', total: { cpu: 1, memory: 1 }, requests: [{ cluster: 'a', weight: 0, request: { cpu: 1, memory: 1 } }], message: /weight of a must be > 0/ },
  { what: 'a negative request', total: { cpu: 1, memory: 1 }, requests: [{ cluster: 'a', weight: 1, request: { cpu: -1, memory: 1 } }], message: /request of a must not be negative/ },
  { what: 'a cluster asking twice', total: { cpu: 1, memory: 1 }, requests: [{ cluster: 'a', weight: 1, request: { cpu: 1, memory: 1 } }, { cluster: 'a', weight: 1, request: { cpu: 1, memory: 1 } }], message: /a asks twice/ },
  { what: 'a negative total', total: { cpu: -1, memory: 1 }, requests: [], message: /must not be negative/ },
];

for (const b of bad) {
  test(`${b.what} is refused with an error that says what to fix`, (t) => {
    const err = t.throws(() => proportion(b.total, b.requests));
    t.true(isEdgeshifuError(err, 'invalid'));
    t.regex(err.message, b.message);
  });
}

// Pods: shared by the same policy, in whole pods.
function podsOf(shares: Map<string, { pods?: number }>): Record<string, number | undefined> {
  return Object.fromEntries([...shares].map(([k, v]) => [k, v.pods]));
}

test("the policy's worked example with pods: 9 pods between Q1 (w2, 5 pods) and Q2 (w4, 10 pods) gives 3 and 6, and cpu and memory as before", (t) => {
  const shares = proportion({ cpu: 9, memory: 27 * GI, pods: 9 }, [
    { cluster: 'q1', weight: 2, request: { cpu: 5, memory: 10 * GI, pods: 5 } },
    { cluster: 'q2', weight: 4, request: { cpu: 10, memory: 20 * GI, pods: 10 } },
  ]);
  t.deepEqual(rounded(shares), { q1: { cpu: 3, memory: 9 * GI }, q2: { cpu: 6, memory: 18 * GI } });
  t.deepEqual(podsOf(shares), { q1: 3, q2: 6 });
});

const podCases = [
  // 12 pods as the 12 CPU example above: 2, 3.33, 6.67 made whole: 2, 3, 7 (the larger remainder gets the pod left)
  { name: '12 pods among A (w1, 2), B (w1, 8) and C (w2, 10) give 2, 3 and 7', total: 12, requests: [['a', 1, 2], ['b', 1, 8], ['c', 2, 10]], expected: { a: 2, b: 3, c: 7 } },
  { name: '3 pods between two equal requesters give 2 and 1 (equal remainders: by id)', total: 3, requests: [['a', 1, 5], ['b', 1, 5]], expected: { a: 2, b: 1 } },
  { name: '4 pods between weights 2 and 1 give 3 and 1', total: 4, requests: [['a', 2, 4], ['b', 1, 4]], expected: { a: 3, b: 1 } },
  { name: 'no pod to share gives nobody one', total: 0, requests: [['a', 1, 5]], expected: { a: 0 } },
  { name: 'a requester asking no pods gets none; the others share all', total: 5, requests: [['a', 1, 0], ['b', 1, 5]], expected: { a: 0, b: 5 } },
] as const;

for (const c of podCases) {
  test(c.name, (t) => {
    const shares = proportion({ cpu: 1000, memory: 1000, pods: c.total }, c.requests.map(([cluster, weight, pods]) => ({ cluster, weight, request: { cpu: 1, memory: 1, pods } })));
    t.deepEqual(podsOf(shares), c.expected);
    t.true([...shares.values()].every((s) => Number.isInteger(s.pods)), 'whole pods');
  });
}

test('a total without pods (an older agent) leaves the shares without pods: not limited by them', (t) => {
  const shares = proportion({ cpu: 10, memory: 10 }, [{ cluster: 'a', weight: 1, request: { cpu: 4, memory: 2, pods: 3 } }]);
  t.deepEqual(shares.get('a'), { cpu: 4, memory: 2 });
});
