// The pure part of leader election (controller/leader.ts): who may take the Lease, and the
// per-process identity that makes a container the kubelet restarted a new candidate.
import test from 'ava';
import type { V1Lease } from '@kubernetes/client-node';
import { canAcquire, candidateOf, processIdentity } from '../../controller/leader.ts';

const DURATION = 15_000;
const RENEWED = Date.parse('2026-11-27T10:00:00Z');

/** A Lease held by `holderIdentity`, renewed at `renewedAt`; `seconds` null leaves its duration out. */
function held(holderIdentity: string, renewedAt = RENEWED, seconds: number | null = 15): V1Lease {
  return { spec: { holderIdentity, renewTime: new Date(renewedAt), ...(seconds === null ? {} : { leaseDurationSeconds: seconds }) } };
}

test('a process identity is its pod\'s name and a suffix that differs at each start', (t) => {
  const first = processIdentity('edgeshifu-controller-7d9f-abcde');
  const second = processIdentity('edgeshifu-controller-7d9f-abcde');
  t.regex(first, /^edgeshifu-controller-7d9f-abcde_[0-9a-f]{8}$/);
  t.not(first, second);
  t.is(candidateOf(first), 'edgeshifu-controller-7d9f-abcde');
  t.is(processIdentity('pod', 'cafe'), 'pod_cafe');
});

test('candidateOf: the part before the last underscore; an identity without one is its own candidate', (t) => {
  t.is(candidateOf('replica_a_1234'), 'replica_a');
  t.is(candidateOf('edgeshifu-controller-7d9f-abcde'), 'edgeshifu-controller-7d9f-abcde');
});

test('no Lease, an empty holder (handed back), or this very process: take or renew at once', (t) => {
  t.true(canAcquire(undefined, 'a_1', RENEWED, DURATION));
  t.true(canAcquire(held(''), 'a_1', RENEWED, DURATION));
  t.true(canAcquire({ spec: {} }, 'a_1', RENEWED, DURATION));
  t.true(canAcquire(held('a_1'), 'a_1', RENEWED + 1, DURATION));
});

test('another pod\'s process holds the Lease until it expires, one lease duration after its last renewal', (t) => {
  const lease = held('b_2');
  t.false(canAcquire(lease, 'a_1', RENEWED + DURATION - 1, DURATION));
  t.false(canAcquire(lease, 'a_1', RENEWED + DURATION, DURATION), 'expired only after the whole duration');
  t.true(canAcquire(lease, 'a_1', RENEWED + DURATION + 1, DURATION));
});

test('an earlier process of the same pod (its container restarted) is waited out one lease duration more, so a live standby wins', (t) => {
  const lease = held('a_0');
  const restarted = 'a_1';
  t.false(canAcquire(lease, restarted, RENEWED + DURATION + 1, DURATION), 'expired, but the standby goes first');
  t.true(canAcquire(lease, 'b_2', RENEWED + DURATION + 1, DURATION), 'the standby may take it as soon as it expires');
  t.false(canAcquire(lease, restarted, RENEWED + 2 * DURATION, DURATION));
  t.true(canAcquire(lease, restarted, RENEWED + 2 * DURATION + 1, DURATION), 'with no standby, the restarted process takes it back');
});

test('a holder named before identities had a suffix (an upgrade) counts as the same pod\'s earlier process', (t) => {
  const lease = held('a');
  t.false(canAcquire(lease, 'a_1', RENEWED + DURATION + 1, DURATION));
  t.true(canAcquire(lease, 'a_1', RENEWED + 2 * DURATION + 1, DURATION));
});

test('the Lease\'s own duration counts; without one, the candidate\'s', (t) => {
  t.false(canAcquire(held('b_2', RENEWED, 40), 'a_1', RENEWED + 39_000, DURATION));
  t.true(canAcquire(held('b_2', RENEWED, 40), 'a_1', RENEWED + 40_001, DURATION));
  t.true(canAcquire(held('b_2', RENEWED, null), 'a_1', RENEWED + DURATION + 1, DURATION));
  t.false(canAcquire(held('b_2', RENEWED, null), 'a_1', RENEWED + DURATION, DURATION));
});
