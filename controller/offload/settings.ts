// The controller's DRONE settings (flags --drone-..., env EDGESHIFU_DRONE_...): off unless a
// cluster id is given. The auction's timers are the DRONE agent's own (controller/drone/config.ts).
import { Type, type Static } from '@sinclair/typebox';
import { EdgeshifuError } from '../../shared/errors.ts';
import { DroneSettings } from '../drone/config.ts';
import type { RateLimit, RateLimits } from '../../shared/bus/guard.ts';

/**
 * Well above what a member sends in normal work (one advert per 100 ms at most, a lease per
 * component every lease/3 s, votes in bursts when many jobs are put to auction at once), and far
 * below what a flood costs a receiver (bench/bus-flood.ts).
 */
export const DEFAULT_RATE_LIMITS = 'default=100/200,slice-advert=20/40,votes=100/200,sealed-vote=100/200,lease=50/100';
/** Every message a neighbour's login publishes on the embedded broker, all origins it relays together. */
export const DEFAULT_BROKER_PACE = '1000/1000';

const T = DroneSettings.properties;

export const OffloadSettings = Type.Object({
  droneCluster: Type.Optional(T.droneCluster),
  droneMode: T.droneMode,
  droneScalePercent: T.droneScalePercent,
  droneBrokerUrl: Type.Optional(Type.String({ pattern: '^(mqtt|mqtts|tcp|ssl|ws|wss)://', description: 'An external broker for this cluster; the embedded one when absent.' })),
  droneBrokerListen: Type.String({ default: '127.0.0.1:1883', description: 'host:port of the embedded broker (0.0.0.0:1883 in a pod, behind its Service).' }),
  droneUsername: Type.Optional(Type.String({ minLength: 1, description: 'This cluster\'s login on its broker; the cluster id when absent.' })),
  dronePassword: Type.Optional(Type.String({ minLength: 1, secret: true })),
  droneUsersSecret: Type.Optional(Type.String({ pattern: '^[a-z0-9-]+/[a-z0-9.-]+$', description: 'namespace/name of the Secret with the embedded broker\'s logins: one key per cluster id, its password as value.' })),
  // Transport and abuse (controller/drone/README.md, "Transport and abuse").
  droneTlsSecret: Type.Optional(Type.String({ pattern: '^[a-z0-9-]+/[a-z0-9.-]+$', description: 'namespace/name of the Secret with this member\'s broker certificate (tls.crt, tls.key) and the federation CA (ca.crt), as `edgeshifu federation member` makes it: the embedded broker serves mqtts with it, and an external broker is verified against ca.crt.' })),
  droneAllowInsecure: Type.Boolean({ default: false, description: 'Accept plain MQTT off loopback (an embedded broker listening on another address without --drone-tls-secret, or a plain --drone-broker-url to another host): passwords and messages cross the network in clear.' }),
  droneRateLimits: Type.String({ default: DEFAULT_RATE_LIMITS, description: 'Token buckets per neighbour, origin and kind: "kind=perSecond/burst,..." with "default" for the other kinds.' }),
  droneBrokerPace: Type.String({ default: DEFAULT_BROKER_PACE, pattern: '^\\d+(\\.\\d+)?/\\d+$', description: 'perSecond/burst: publishes the embedded broker takes from each neighbour login before it holds the rest (TCP backpressure slows the sender).' }),
  droneReplayWindowSeconds: Type.Integer({ minimum: 1, maximum: 86_400, default: 300, description: 'Messages whose sender timestamp is older than this (or more than a tenth of it ahead) are dropped as replays; members\' clocks must agree within that.' }),
  droneLeaseSeconds: Type.Integer({ minimum: 3, maximum: 86_400, default: 60, description: 'A host drops what an origin stopped renewing for this long; keep it well above a leader fail-over (about 16 s).' }),
  droneReleaseTimeoutSeconds: Type.Integer({ minimum: 1, default: 30, description: 'A deleted deployment waits this long for its hosts\' DEL_ACK.' }),
  droneRetrySeconds: Type.Integer({ minimum: 1, default: 30, description: 'A deployment no cluster could take is put to auction again after this long.' }),
  droneAllowedImages: Type.String({ default: '', description: 'A bound on every neighbour\'s image list, comma-separated prefixes (e.g. "registry.example/"): an image runs for a neighbour only when its Federation\'s spec.hosting.allowedImages lists it and, when this is set, it is under one of these too. Empty: no bound beyond the Federations\' lists.' }),
  dronePublicAddress: Type.Optional(Type.String({ minLength: 1, maxLength: 253, description: 'Address neighbours reach this cluster\'s NodePorts at; the first Ready node\'s InternalIP when absent.' })),
  droneSigningKey: Type.Optional(T.droneSigningKey),
  droneRequireSignatures: T.droneRequireSignatures,
  droneAgreementMs: T.droneAgreementMs,
  droneWeakAgreementMs: T.droneWeakAgreementMs,
  droneGossipMs: T.droneGossipMs,
  droneAdvertIntervalMs: T.droneAdvertIntervalMs,
  droneAdvertTtlMs: T.droneAdvertTtlMs,
  droneReplyTimeoutMs: T.droneReplyTimeoutMs,
  droneRetryMs: T.droneRetryMs,
  droneBatchMs: T.droneBatchMs,
  droneAdvertGapMs: T.droneAdvertGapMs,
  droneFanout: T.droneFanout,
});
export type OffloadSettings = Static<typeof OffloadSettings>;

/** host:port → its parts; a clear error otherwise. */
export function listenAddress(value: string): { host: string; port: number } {
  const at = value.lastIndexOf(':');
  const port = Number(value.slice(at + 1));
  if (at <= 0 || !Number.isInteger(port) || port < 0 || port > 65_535) throw new EdgeshifuError('invalid', `--drone-broker-listen must be host:port, got "${value}"`);
  return { host: value.slice(0, at), port };
}

/** "kind=perSecond/burst,..." → RateLimits; a clear error naming the entry otherwise. */
export function rateLimits(value: string): RateLimits {
  const byKind: Record<string, RateLimit> = {};
  for (const entry of value.split(',').map((e) => e.trim()).filter((e) => e !== '')) {
    const match = /^([a-z0-9-]+)=(\d+(?:\.\d+)?)\/(\d+)$/.exec(entry);
    if (match === null || Number(match[2]) <= 0 || Number(match[3]) < 1) throw new EdgeshifuError('invalid', `--drone-rate-limits entry "${entry}" must be kind=perSecond/burst with perSecond > 0 and burst >= 1, e.g. votes=500/1000`);
    byKind[match[1] ?? ''] = { perSecond: Number(match[2]), burst: Number(match[3]) };
  }
  const { default: fallback, ...rest } = byKind;
  return { default: fallback ?? { perSecond: 200, burst: 400 }, byKind: rest };
}

/** "perSecond/burst" → RateLimit. */
export function brokerPace(value: string): RateLimit {
  const [perSecond = Number.NaN, burst = Number.NaN] = value.split('/').map(Number);
  if (!(perSecond > 0) || !(burst >= 1)) throw new EdgeshifuError('invalid', `--drone-broker-pace must be perSecond/burst, e.g. 1000/1000, got "${value}"`);
  return { perSecond, burst };
}
