// EdgeNode, shifu.edgenesis.io/v1alpha1, cluster-scoped: an edge host of the cluster, named as
// its Kubernetes Node. shifud writes its status; the controller reads it for placement and the
// edgeMap (on EdgeNode events).
import { Type, type Static } from '@sinclair/typebox';
import { Lwm2mEndpointSeen } from './lwm2m-status.ts';
import { Conditions, LinkType, Location, Quantity, Timestamp } from './schema.ts';

export const NodeNeighbour = Type.Object({
  node: Type.String({ maxLength: 253, description: 'Name of the neighbouring EdgeNode.' }),
  linkType: LinkType,
  latencyMs: Type.Optional(Type.Number({ minimum: 0 })),
  bandwidthMbps: Type.Optional(Type.Number({ minimum: 0 })),
});

export const EdgeNodeSpec = Type.Object({
  location: Type.Optional(Location),
  neighbours: Type.Optional(Type.Array(NodeNeighbour, {
    'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['node'], maxItems: 256,
    description: 'Known links to other edge nodes, when the site knows them.',
  })),
});

export const NodeResources = Type.Object({
  cpu: Type.Optional(Quantity()),
  memory: Type.Optional(Quantity()),
  disk: Type.Optional(Quantity()),
});

export const SeenDevice = Type.Object({
  name: Type.String(),
  namespace: Type.String(),
  linkType: LinkType,
});

export const OpcuaServerSeen = Type.Object({
  target: Type.String({ description: 'host:port asked (shifud --discovery-opcua).' }),
  applicationUri: Type.String(),
  applicationName: Type.String(),
  endpoints: Type.Array(Type.Object({
    url: Type.String(),
    securityMode: Type.String({ description: 'None, Sign or SignAndEncrypt.' }),
    securityPolicy: Type.String({ description: 'e.g. Basic256Sha256.' }),
  }), { maxItems: 32 }),
});

export const EdgeNodeStatus = Type.Object({
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 0 })),
  capacity: Type.Optional(NodeResources),
  free: Type.Optional(NodeResources),
  lastHeartbeatTime: Type.Optional(Timestamp()),
  conditions: Type.Optional(Conditions),
  devices: Type.Optional(Type.Array(SeenDevice, { maxItems: 4096, description: 'EdgeDevices this node sees.' })),
  opcuaServers: Type.Optional(Type.Array(OpcuaServerSeen, { maxItems: 256, description: 'OPC UA servers shifud found at its configured discovery targets.' })),
  lwm2mEndpoints: Type.Optional(Type.Array(Lwm2mEndpointSeen, { maxItems: 4096, description: 'LwM2M clients registered with the deviceShifus on this node.' })),
});

export type EdgeNodeSpec = Static<typeof EdgeNodeSpec>;
export type EdgeNodeStatus = Static<typeof EdgeNodeStatus>;
