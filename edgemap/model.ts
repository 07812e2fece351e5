// The edgeMap's vocabulary: an edgeVertex is an edgeNode, an edgeDevice or, for federation, a
// remoteCluster (a neighbour from a Federation) and a component this cluster offloaded to one; an
// edgeLink says how two vertices are connected. Written once in TypeBox so the same object types
// the code and validates input.
import { Type, type Static } from '@sinclair/typebox';
import { PHASES as DEVICE_PHASES } from '../shared/crds/edgedevice.ts';
import { LINK_TYPES as PHYSICAL_LINK_TYPES, Location, Quantity, StringEnum } from '../shared/crds/schema.ts';
import { COMPONENT_PHASES } from '../shared/crds/drone.ts';

export const VERTEX_KINDS = ['edgeNode', 'edgeDevice', 'remoteCluster', 'component'] as const;
export type VertexKind = (typeof VERTEX_KINDS)[number];

/**
 * Physical links from the CRDs, the cluster-to-cluster link the federation bus runs on, and
 * Offload: an offloaded component to the remoteCluster that runs it.
 */
export const LINK_TYPES = [...PHYSICAL_LINK_TYPES, 'Federation', 'Offload'] as const;
export type LinkType = (typeof LINK_TYPES)[number];

export { DEVICE_PHASES };
export const NODE_PHASES = ['Ready', 'NotReady', 'Unknown'] as const;
export const CLUSTER_PHASES = ['Peered', 'Unreachable', 'Unknown'] as const;
export { COMPONENT_PHASES };

const Name = Type.String({ minLength: 1, maxLength: 253 });
const Url = Type.String({ minLength: 1, maxLength: 2048, pattern: '^https?://' });

export const Resources = Type.Object({
  cpu: Type.Optional(Quantity()),
  memory: Type.Optional(Quantity()),
  disk: Type.Optional(Quantity()),
}, { additionalProperties: false });

export const NodeAttributes = Type.Object({
  location: Type.Optional(Location),
  phase: Type.Optional(StringEnum(NODE_PHASES)),
  capacity: Type.Optional(Resources),
  free: Type.Optional(Resources),
}, { additionalProperties: false });

export const DeviceAttributes = Type.Object({
  location: Type.Optional(Location),
  phase: Type.Optional(StringEnum(DEVICE_PHASES)),
  /** EdgeNode the deviceShifu is placed on (EdgeDevice status.nodeName). */
  nodeName: Type.Optional(Name),
  /** Where applications reach the device's deviceShifu. */
  deviceShifuUrl: Type.Optional(Url),
  protocol: Type.Optional(Type.String({ maxLength: 64 })),
}, { additionalProperties: false });

export const ClusterAttributes = Type.Object({
  location: Type.Optional(Location),
  phase: Type.Optional(StringEnum(CLUSTER_PHASES)),
  endpoint: Type.Optional(Url),
  /** The neighbour's MQTT broker (its Federation's brokerUrl). */
  broker: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, pattern: '^(mqtt|mqtts|tcp|ssl|ws|wss)://' })),
  /** Why the connection is in its phase (the Federation's Connected condition). */
  message: Type.Optional(Type.String({ maxLength: 1024 })),
}, { additionalProperties: false });

/** A component of a DroneFederatedDeployment that runs on a neighbour (key namespace/deployment/component). */
export const ComponentAttributes = Type.Object({
  /** Where it runs, when known (its cluster's location). */
  location: Type.Optional(Location),
  phase: Type.Optional(StringEnum(COMPONENT_PHASES)),
  /** The remoteCluster that runs it. */
  cluster: Type.String({ minLength: 1, maxLength: 63 }),
  /** Where this cluster reaches it (host:port). */
  endpoint: Type.Optional(Type.String({ maxLength: 300 })),
}, { additionalProperties: false });

export const LinkAttributes = Type.Object({
  latencyMs: Type.Optional(Type.Number({ minimum: 0 })),
  bandwidthMbps: Type.Optional(Type.Number({ minimum: 0 })),
}, { additionalProperties: false });

export type Location = Static<typeof Location>;
export type Resources = Static<typeof Resources>;
export type NodeAttributes = Static<typeof NodeAttributes>;
export type DeviceAttributes = Static<typeof DeviceAttributes>;
export type ClusterAttributes = Static<typeof ClusterAttributes>;
export type ComponentAttributes = Static<typeof ComponentAttributes>;
export type LinkAttributes = Static<typeof LinkAttributes>;

export type Vertex =
  | { readonly key: string; readonly kind: 'edgeNode'; readonly attributes: NodeAttributes }
  | { readonly key: string; readonly kind: 'edgeDevice'; readonly attributes: DeviceAttributes }
  | { readonly key: string; readonly kind: 'remoteCluster'; readonly attributes: ClusterAttributes }
  | { readonly key: string; readonly kind: 'component'; readonly attributes: ComponentAttributes };

/** An undirected link; `source` sorts before `target` so a link has one spelling. */
export interface Link extends LinkAttributes {
  readonly source: string;
  readonly target: string;
  readonly type: LinkType;
}

/** What a subscriber hears, in order, numbered by the map's sequence (the SSE event id). */
export type EdgeMapChange =
  | { readonly seq: number; readonly op: 'vertex-upserted'; readonly vertex: Vertex }
  | { readonly seq: number; readonly op: 'vertex-removed'; readonly key: string; readonly kind: VertexKind }
  | { readonly seq: number; readonly op: 'link-upserted'; readonly link: Link }
  | { readonly seq: number; readonly op: 'link-removed'; readonly source: string; readonly target: string };

export type EdgeMapListener = (change: EdgeMapChange) => void;
