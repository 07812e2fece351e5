// Federation, shifu.edgenesis.io/v1alpha1, cluster-scoped: one neighbour cluster of the DRONE
// federation (controller/drone/README.md, "Federation"): where its broker is, the Secret with the
// credentials this cluster logs in with there, its weight in the proportion policy and
// its public key, which end-to-end signatures of its messages are checked against.
// The relay pushes federation traffic to every Federation's broker; status says whether it can.
import { Type, type Static } from '@sinclair/typebox';
import { Conditions, StringEnum, Timestamp } from './schema.ts';

export const SecretRef = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 253 }),
  namespace: Type.String({ minLength: 1, maxLength: 63 }),
}, { description: 'A Secret with the keys username and password (and ca.crt for TLS, optional).' });

/** What this cluster runs for the neighbour (controller/offload/README.md, "What a neighbour may run here"). */
export const HostingPolicy = Type.Object({
  podSecurity: Type.Optional(StringEnum(['restricted', 'baseline'], {
    default: 'restricted',
    description: 'Pod Security level the neighbour\'s workloads run under here (restricted, or baseline at the lowest; never privileged).',
  })),
  allowedImages: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 512 }), {
    maxItems: 64, description: 'Image prefixes this cluster runs for the neighbour; none listed runs nothing.',
  })),
}, { description: 'What this cluster runs for the neighbour: deny by default.' });
export type HostingPolicy = Static<typeof HostingPolicy>;

export const FederationSpec = Type.Object({
  clusterId: Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', description: 'The neighbour\'s cluster id (its own configuration).' }),
  brokerUrl: Type.String({ minLength: 1, maxLength: 2048, pattern: '^(mqtt|mqtts|tcp|ssl|ws|wss)://', description: 'URL of the neighbour\'s MQTT broker, e.g. mqtts://edge-2.example:8883.' }),
  credentialsSecretRef: SecretRef,
  weight: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 1, description: 'Share of this cluster\'s slice the neighbour deserves relative to others (proportion policy).' })),
  maxHops: Type.Optional(Type.Integer({ minimum: 1, maximum: 255, default: 8, description: 'Relayed traffic stops after this many relays.' })),
  publicKey: Type.Optional(Type.String({
    minLength: 1, maxLength: 1024, pattern: '^-----BEGIN PUBLIC KEY-----',
    description: 'The neighbour\'s Ed25519 public key, PEM (openssl pkey -pubout): its messages are checked against it, relayed or not.',
  })),
  hosting: Type.Optional(HostingPolicy),
  // The bus's transport (controller/drone/README.md, "Transport and abuse"): kept in one block.
  insecure: Type.Optional(Type.Boolean({ default: false, description: 'Accept a plain mqtt:// brokerUrl to a host that is not loopback: the password and every message cross the network in clear. Use mqtts:// with the federation CA instead (edgeshifu federation).' })),
});

export const FederationStatus = Type.Object({
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 0 })),
  lastAdvertTime: Type.Optional(Timestamp({ description: 'When this neighbour\'s last slice advert arrived.' })),
  conditions: Type.Optional(Conditions),
});

export type FederationSpec = Static<typeof FederationSpec>;
export type FederationStatus = Static<typeof FederationStatus>;
