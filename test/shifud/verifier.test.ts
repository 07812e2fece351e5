// deviceVerifier's decision table: online / offline / mismatch / invalid / unknown from what was seen.
import test from 'ava';
import { verify, type Observation } from '../../shifud/device-verifier.ts';
import type { ProbeTarget } from '../../shifud/target.ts';

const tcp: ProbeTarget = { kind: 'tcp', host: '10.0.0.5', port: 502 };
const http: ProbeTarget = { kind: 'http', url: 'http://10.0.0.5/health', expect: 'thermometer' };
const httpAny: ProbeTarget = { kind: 'http', url: 'http://10.0.0.5/health' };
const seen = { id: '0403:6001', serialNumber: 'A1' };

const TABLE: ReadonlyArray<[string, Observation, string, string]> = [
  ['a TCP device that accepts', { kind: 'probe', target: tcp, outcome: { kind: 'answered', detail: 'ok' } }, 'online', 'Reachable'],
  ['a refused connection', { kind: 'probe', target: tcp, outcome: { kind: 'refused', detail: 'x' } }, 'offline', 'ConnectionRefused'],
  ['an unreachable host', { kind: 'probe', target: tcp, outcome: { kind: 'unreachable', detail: 'x' } }, 'offline', 'Unreachable'],
  ['no connection in time', { kind: 'probe', target: tcp, outcome: { kind: 'timeout', detail: 'x' } }, 'offline', 'Timeout'],
  ['a device that accepts and hangs', { kind: 'probe', target: tcp, outcome: { kind: 'hung', detail: 'x' } }, 'offline', 'NoAnswer'],
  ['another protocol answering', { kind: 'probe', target: tcp, outcome: { kind: 'wrong-protocol', detail: 'x' } }, 'mismatch', 'WrongProtocol'],
  ['a 200 with the expected identity', { kind: 'probe', target: http, outcome: { kind: 'answered', detail: 'ok', httpStatus: 200, body: '{"model":"thermometer"}' } }, 'online', 'Healthy'],
  ['a 200 without the expected identity', { kind: 'probe', target: http, outcome: { kind: 'answered', detail: 'ok', httpStatus: 200, body: 'agv' } }, 'mismatch', 'IdentityMismatch'],
  ['a 200 when no identity is expected', { kind: 'probe', target: httpAny, outcome: { kind: 'answered', detail: 'ok', httpStatus: 204, body: '' } }, 'online', 'Healthy'],
  ['a 503 from the health path', { kind: 'probe', target: http, outcome: { kind: 'answered', detail: 'x', httpStatus: 503, body: 'thermometer' } }, 'offline', 'Unhealthy'],
  ['a USB device present', { kind: 'usb', match: { state: 'present', seen }, described: 'USB 0403:6001' }, 'online', 'Present'],
  ['a USB device absent', { kind: 'usb', match: { state: 'absent' }, described: 'USB 0403:6001' }, 'offline', 'NotPresent'],
  ['a USB device with another serial', { kind: 'usb', match: { state: 'mismatch', message: 'm' }, described: 'USB 0403:6001' }, 'mismatch', 'IdentityMismatch'],
  ['a malformed spec', { kind: 'invalid', message: 'spec.address is empty' }, 'invalid', 'InvalidSpec'],
  ['a device shifud does not probe', { kind: 'unprobed', why: 'LwM2M' }, 'unknown', 'NotProbed'],
];

for (const [what, observation, state, reason] of TABLE) {
  test(`the verifier calls ${what} ${state} (${reason})`, (t) => {
    t.like(verify(observation), { state, reason });
  });
}

test('the verifier keeps the probe\'s words, so the condition says what was seen', (t) => {
  t.is(verify({ kind: 'probe', target: tcp, outcome: { kind: 'refused', detail: '10.0.0.5:502 refused the connection (ECONNREFUSED)' } }).message,
    '10.0.0.5:502 refused the connection (ECONNREFUSED)');
  t.is(verify({ kind: 'invalid', message: 'spec.address is empty: write host:port' }).message, 'spec.address is empty: write host:port');
});
