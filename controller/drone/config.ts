// The DRONE agent's settings as the controller loads them (shared/config.ts: flags --drone-...,
// env EDGESHIFU_DRONE_...), validated in one place; the password is masked when printed.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId } from '../../shared/bus/envelope.ts';
import { DEFAULT_TIMERS, type DroneConfig } from './agent-core.ts';

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
  droneReplyTimeoutMs: Type.Integer({ minimum: 1, default: DEFAULT_TIMERS.replyTimeoutMs }),
  droneRetryMs: Type.Integer({ minimum: 1, default: DEFAULT_TIMERS.retryMs }),
  droneBatchMs: Type.Integer({ minimum: 0, default: DEFAULT_TIMERS.batchMs }),
});
export type DroneSettings = Static<typeof DroneSettings>;

/** The core's configuration from loaded settings and the Federation weights. */
export function droneConfig(s: DroneSettings, weights: ReadonlyMap<string, number>): DroneConfig {
  return {
    cluster: s.droneCluster, mode: s.droneMode, scalePercent: s.droneScalePercent, weights,
    agreementMs: s.droneAgreementMs, weakAgreementMs: s.droneWeakAgreementMs, gossipMs: s.droneGossipMs,
    advertIntervalMs: s.droneAdvertIntervalMs, advertTtlMs: s.droneAdvertTtlMs, replyTimeoutMs: s.droneReplyTimeoutMs,
    retryMs: s.droneRetryMs, batchMs: s.droneBatchMs,
  };
}
