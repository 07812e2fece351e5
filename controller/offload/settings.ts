// The controller's DRONE settings (flags --drone-..., env EDGESHIFU_DRONE_...): off unless a
// cluster id is given. The auction's timers are the DRONE agent's own (controller/drone/config.ts).
import { Type, type Static } from '@sinclair/typebox';
import { EdgeshifuError } from '../../shared/errors.ts';
import { DroneSettings } from '../drone/config.ts';

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
