// The controlMsgs gate on its own, with a hand-moved clock: a command holds the device until its
// completion arrives or its time is up, whichever comes first.
import test from 'ava';
import { ControlGate, type ExpiredCommand } from '../../deviceshifu/drivers/mqtt-gate.ts';
import { isEdgeshifuError } from '../../shared/errors.ts';

const CONTROL = { moving_the_device: 'device_finish_moving' };

function gate(timeoutMs: number): { gate: ControlGate; expired: ExpiredCommand[]; clock: { now: number } } {
  const clock = { now: Date.parse('2026-11-22T10:00:00.000Z') };
  const expired: ExpiredCommand[] = [];
  return { gate: new ControlGate(CONTROL, { timeoutMs, onExpire: (e) => expired.push(e), now: () => clock.now }), expired, clock };
}

test('a command holds the gate until its completion message, with 409 naming what it waits for and until when', (t) => {
  const { gate: g, expired, clock } = gate(60_000);
  t.false(g.claim('status please'), 'payloads without a command pass freely');
  t.true(g.claim('moving_the_device'));
  clock.now += 59_999;
  const error = t.throws(() => g.claim('moving_the_device'));
  t.true(isEdgeshifuError(error) && error.kind === 'conflict');
  t.is(error.message, 'device is busy with "moving_the_device" since 2026-11-22T10:00:00.000Z; waiting for a message containing "device_finish_moving", at most until 2026-11-22T10:01:00.000Z');
  g.received('still moving');
  t.true(g.busy);
  g.received('device_finish_moving');
  t.false(g.busy);
  t.deepEqual(expired, []);
});

test('a command whose completion never comes frees the gate after the timeout, and says so once', (t) => {
  const { gate: g, expired, clock } = gate(60_000);
  t.true(g.claim('moving_the_device'));
  clock.now += 60_000;
  t.false(g.busy);
  t.deepEqual(expired, [{ command: 'moving_the_device', completion: 'device_finish_moving', waitedMs: 60_000 }]);
  t.true(g.claim('moving_the_device'), 'the next command takes the gate');
  t.is(expired.length, 1);
});

test('timeout 0 waits for the completion however long it takes', (t) => {
  const { gate: g, expired, clock } = gate(0);
  t.true(g.claim('moving_the_device'));
  clock.now += 365 * 24 * 3600 * 1000;
  t.throws(() => g.claim('moving_the_device'), { message: /busy with "moving_the_device" since 2026-11-22T10:00:00\.000Z; waiting for a message containing "device_finish_moving"$/ });
  t.deepEqual(expired, []);
});
