// deviceVerifier (shifud design): from what was seen and what the EdgeDevice says,
// decide online / offline / mismatch — or invalid when the spec cannot be probed as written.
// Pure: a decision table over the observation.
import type { ProbeOutcome } from './probes/outcome.ts';
import type { ProbeTarget } from './target.ts';
import type { UsbMatch } from './usb-match.ts';

export type Observation =
  | { readonly kind: 'invalid'; readonly message: string }
  | { readonly kind: 'unprobed'; readonly why: string }
  | { readonly kind: 'probe'; readonly target: ProbeTarget; readonly outcome: ProbeOutcome }
  | { readonly kind: 'usb'; readonly match: UsbMatch; readonly described: string };

export type DeviceState = 'online' | 'offline' | 'mismatch' | 'invalid' | 'unknown';

export interface Verdict {
  readonly state: DeviceState;
  /** CamelCase, for the condition's reason. */
  readonly reason: string;
  readonly message: string;
}

const OFFLINE_REASONS: Readonly<Record<Exclude<ProbeOutcome['kind'], 'answered' | 'wrong-protocol'>, string>> = {
  refused: 'ConnectionRefused',
  unreachable: 'Unreachable',
  timeout: 'Timeout',
  hung: 'NoAnswer',
};

function verifyAnswer(target: ProbeTarget, outcome: Extract<ProbeOutcome, { kind: 'answered' }>): Verdict {
  if (target.kind !== 'http' || outcome.httpStatus === undefined) return { state: 'online', reason: 'Reachable', message: outcome.detail };
  if (outcome.httpStatus < 200 || outcome.httpStatus > 299) {
    return { state: 'offline', reason: 'Unhealthy', message: `${target.url} answered HTTP ${outcome.httpStatus}` };
  }
  if (target.expect !== undefined && !(outcome.body ?? '').includes(target.expect)) {
    return { state: 'mismatch', reason: 'IdentityMismatch', message: `${target.url} answered, but without "${target.expect}" (customMetadata.healthExpect): is this the right device?` };
  }
  return { state: 'online', reason: 'Healthy', message: outcome.detail };
}

function verifyUsb(match: UsbMatch, described: string): Verdict {
  switch (match.state) {
    case 'present':
      return { state: 'online', reason: 'Present', message: `${described} is plugged in` };
    case 'absent':
      return { state: 'offline', reason: 'NotPresent', message: `${described} is not on the USB bus` };
    case 'mismatch':
      return { state: 'mismatch', reason: 'IdentityMismatch', message: match.message };
  }
}

export function verify(observation: Observation): Verdict {
  switch (observation.kind) {
    case 'invalid':
      return { state: 'invalid', reason: 'InvalidSpec', message: observation.message };
    case 'unprobed':
      return { state: 'unknown', reason: 'NotProbed', message: observation.why };
    case 'usb':
      return verifyUsb(observation.match, observation.described);
    case 'probe': {
      const { outcome, target } = observation;
      if (outcome.kind === 'answered') return verifyAnswer(target, outcome);
      if (outcome.kind === 'wrong-protocol') return { state: 'mismatch', reason: 'WrongProtocol', message: outcome.detail };
      return { state: 'offline', reason: OFFLINE_REASONS[outcome.kind], message: outcome.detail };
    }
  }
}
