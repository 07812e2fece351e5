// The DRONE agent's settings as the controller loads them (shared/config.ts: flags --drone-...,
// env EDGESHIFU_DRONE_...), validated in one place; the password and the signing key are masked
// when printed.
import type { KeyObject } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId } from '../../shared/bus/envelope.ts';
import { Keyring, privateKeyFrom } from '../../shared/bus/signing.ts';
import { EdgeshifuError } from '../../shared/errors.ts';
import { DEFAULT_TIMERS, type DroneConfig } from './agent-core.ts';
import { DEFAULT_FANOUT } from './auction/candidates.ts';
import { DEFAULT_ADVERT_GAP_MS } from './core/adverts.ts';

export const DroneSettings = Type.Object({
  droneCluster: ClusterId,
  droneMode: Type.Union([Type.Literal('open'), Type.Literal('sealed')], { default: 'open' }),
  droneScalePercent: Type.Number({ minimum: 0, maximum: 100, default: 50, description: 'Share of free capacity offered to the federation (thesis scale).' }),
  droneBrokerUrl: Type.String({ pattern: '^(mqtt|mqtts|tcp|ssl|ws|wss)://', description: 'This cluster\'s broker (embedded or external).' }),
  droneUsername: Type.String({ minLength: 1 }),
  dronePassword: Type.String({ minLength: 1, secret: true }),
  droneAgreementMs: Type.Integer({ minimum: 0, default: DEFAULT_TIMERS.agreementMs }),
  droneWeakAgreementMs: Type.Integer({ minimum: 1, default: DEFAULT_TIMERS.weakAgreementMs }),
  droneGossipMs: Type.Integer({ minimum: 1, default: DEFAULT_TIMERS.gossipMs }),
  droneAdvertIntervalMs: Type.Integer({ minimum: 100, default: DEFAULT_TIMERS.advertIntervalMs }),
  droneAdvertTtlMs: Type.Integer({ minimum: 100, default: DEFAULT_TIMERS.advertTtlMs }),
  droneAdvertGapMs: Type.Integer({ minimum: 0, default: DEFAULT_ADVERT_GAP_MS, description: 'A changed slice is advertised at most this soon after the previous advert: a burst of changes costs one.' }),
  droneReplyTimeoutMs: Type.Integer({ minimum: 1, default: DEFAULT_TIMERS.replyTimeoutMs }),
  droneRetryMs: Type.Integer({ minimum: 1, default: DEFAULT_TIMERS.retryMs }),
  droneBatchMs: Type.Integer({ minimum: 0, default: DEFAULT_TIMERS.batchMs }),
  droneFanout: Type.Integer({ minimum: 0, default: DEFAULT_FANOUT, description: 'Providers an origin calls to bid first, the best by their slice adverts; more only when those cannot place the job. 0: every provider.' }),
  droneSigningKey: Type.Optional(Type.String({ minLength: 1, secret: true, description: 'This cluster\'s Ed25519 private key, PEM (openssl genpkey -algorithm ed25519), from a Secret: every message it publishes is signed.' })),
  droneRequireSignatures: Type.Boolean({ default: false, description: 'Drop messages whose sender\'s signature cannot be checked (unsigned, or no public key in its Federation); a wrong signature is dropped regardless.' }),
});
export type DroneSettings = Static<typeof DroneSettings>;

/** The core's configuration from loaded settings and the Federation weights. */
export function droneConfig(s: DroneSettings, weights: ReadonlyMap<string, number>): DroneConfig {
  return {
    cluster: s.droneCluster, mode: s.droneMode, scalePercent: s.droneScalePercent, weights,
    agreementMs: s.droneAgreementMs, weakAgreementMs: s.droneWeakAgreementMs, gossipMs: s.droneGossipMs,
    advertIntervalMs: s.droneAdvertIntervalMs, advertTtlMs: s.droneAdvertTtlMs, advertGapMs: s.droneAdvertGapMs, replyTimeoutMs: s.droneReplyTimeoutMs,
    retryMs: s.droneRetryMs, batchMs: s.droneBatchMs, fanout: s.droneFanout,
  };
}

/**
 * The keyring for end-to-end signatures, or undefined when this cluster neither signs nor checks.
 * `peers` come from the Federation resources (neighbours.ts keysOf); replace them with setPeers.
 */
export function droneKeyring(s: Pick<DroneSettings, 'droneSigningKey' | 'droneRequireSignatures'>, peers: ReadonlyMap<string, KeyObject>): Keyring | undefined {
  if (s.droneRequireSignatures && s.droneSigningKey === undefined) {
    throw new EdgeshifuError('invalid', 'droneRequireSignatures needs droneSigningKey too (--drone-signing-key or EDGESHIFU_DRONE_SIGNING_KEY), or peers that require signatures drop this cluster\'s messages');
  }
  if (s.droneSigningKey === undefined && peers.size === 0) return undefined;
  const privateKey = s.droneSigningKey === undefined ? undefined : privateKeyFrom(s.droneSigningKey, 'droneSigningKey');
  return new Keyring({ ...(privateKey === undefined ? {} : { privateKey }), peers, require: s.droneRequireSignatures });
}
