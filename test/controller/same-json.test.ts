// sameJson and statusChanged: equal as JSON, whatever the key order. Pure, no cluster: a status is
// written only when it changed, and a resync of every device compares every status.
import test from 'ava';
import fc from 'fast-check';
import { sameJson, statusChanged } from '../../controller/status.ts';
import type { EdgeDeviceStatus } from '../../shared/crds/edgedevice.ts';
import type { Condition } from '../../shared/crds/schema.ts';

/** The reference: JSON.stringify of a deep copy with keys in one order for a given key set. */
function canonical(value: unknown): string {
  const sorted = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map(sorted);
    const record = v as Record<string, unknown>;
    return Object.fromEntries(Object.keys(record).sort().map((k) => [k, sorted(record[k])]));
  };
  return JSON.stringify(sorted(value));
}

/** The same data with every object's keys in reverse order. */
function reversed(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(reversed);
  const record = value as Record<string, unknown>;
  return Object.fromEntries(Object.keys(record).reverse().map((k) => [k, reversed(record[k])]));
}

test('sameJson agrees with comparing the JSON texts, and key order never shows', (t) => {
  fc.assert(fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => sameJson(a, b) === (canonical(a) === canonical(b)) && sameJson(a, reversed(a))));
  // pairs that differ in one place deep inside
  fc.assert(fc.property(fc.jsonValue(), fc.string(), (a, s) => !sameJson({ x: [a, s] }, { x: [a, `${s}.`] })));
  t.pass();
});

test('a key whose value is undefined is absent, as in JSON; null is not', (t) => {
  t.true(sameJson({ a: 1, b: undefined }, { a: 1 }));
  t.true(sameJson({ a: 1 }, { b: undefined, a: 1 }));
  t.false(sameJson({ a: 1, b: null }, { a: 1 }));
  t.false(sameJson([1, 2], [1, 2, 3]));
  t.false(sameJson({ a: [] }, { a: {} }));
});

const condition = (type: string, status: 'True' | 'False', lastTransitionTime = '2026-11-22T10:00:00Z'): Condition => ({ type, status, reason: 'R', message: 'm', lastTransitionTime });

test('statusChanged sees a change of phase, node or any condition field, and not the order of keys or conditions', (t) => {
  const current: EdgeDeviceStatus = { edgedevicephase: 'Running', nodeName: 'edge-1', conditions: [condition('BundleReady', 'True'), condition('Scheduled', 'True')] };
  t.false(statusChanged(current, { conditions: [condition('Scheduled', 'True'), condition('BundleReady', 'True')], nodeName: 'edge-1', edgedevicephase: 'Running' }));
  t.true(statusChanged(current, { ...current, edgedevicephase: 'Pending' }));
  t.true(statusChanged(current, { ...current, nodeName: 'edge-2' }));
  t.true(statusChanged(current, { ...current, conditions: [condition('BundleReady', 'True'), condition('Scheduled', 'False')] }));
  t.true(statusChanged(current, { ...current, conditions: [condition('BundleReady', 'True'), condition('Scheduled', 'True', '2026-11-23T00:00:00Z')] }));
  t.true(statusChanged(current, { ...current, conditions: [condition('Scheduled', 'True')] }));
  t.true(statusChanged(undefined, { edgedevicephase: 'Pending' }));
  t.false(statusChanged({}, { conditions: [] }), 'no conditions and an empty list are the same');
});
