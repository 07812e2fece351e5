// The custom resources of edgeshifu: names, scope, schema and printer columns, in one table that
// both the CRD manifests (crd.ts) and the typed clients read.
import type { TObject } from '@sinclair/typebox';
import type { V1ObjectMeta } from '@kubernetes/client-node';
import { EdgeDeviceSpec, EdgeDeviceStatus } from './edgedevice.ts';
import { EdgeNodeSpec, EdgeNodeStatus } from './edgenode.ts';
import { FederationSpec, FederationStatus } from './federation.ts';
import { TelemetryServiceSpec, TelemetryServiceStatus } from './telemetryservice.ts';
import { REAR_RESOURCES } from './rear-resources.ts';
import { DroneFederatedDeploymentSpec, DroneFederatedDeploymentStatus, HostRequestSpec, HostRequestStatus, OffloadRequestSpec, OffloadRequestStatus } from './drone.ts';
import { API_VERSION, GROUP, VERSION } from './group.ts';

export { API_VERSION, GROUP, VERSION };

export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  readonly jsonPath: string;
  readonly description?: string;
  readonly priority?: number;
}

export interface ResourceDefinition {
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly scope: 'Namespaced' | 'Cluster';
  readonly description: string;
  readonly spec: TObject;
  readonly status: TObject;
  readonly printerColumns: readonly PrinterColumn[];
}

const AGE: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

export const EDGE_DEVICE: ResourceDefinition = {
  kind: 'EdgeDevice',
  plural: 'edgedevices',
  singular: 'edgedevice',
  shortNames: ['edev'],
  scope: 'Namespaced',
  description: 'A physical device to be served over HTTP by its deviceShifu (Shifu-compatible).',
  spec: EdgeDeviceSpec,
  status: EdgeDeviceStatus,
  printerColumns: [
    { name: 'Protocol', type: 'string', jsonPath: '.spec.protocol' },
    { name: 'Address', type: 'string', jsonPath: '.spec.address' },
    { name: 'Node', type: 'string', jsonPath: '.status.nodeName' },
    { name: 'Phase', type: 'string', jsonPath: '.status.edgedevicephase' },
    { name: 'SKU', type: 'string', jsonPath: '.spec.sku', priority: 1 },
    AGE,
  ],
};

export const EDGE_NODE: ResourceDefinition = {
  kind: 'EdgeNode',
  plural: 'edgenodes',
  singular: 'edgenode',
  shortNames: ['enode'],
  scope: 'Cluster',
  description: 'An edge host of the cluster, named as its Kubernetes Node; status kept by shifud.',
  spec: EdgeNodeSpec,
  status: EdgeNodeStatus,
  printerColumns: [
    { name: 'Zone', type: 'string', jsonPath: '.spec.location.zone' },
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    { name: 'CPU', type: 'string', jsonPath: '.status.free.cpu', description: 'Free CPU' },
    { name: 'Memory', type: 'string', jsonPath: '.status.free.memory', description: 'Free memory' },
    { name: 'Heartbeat', type: 'date', jsonPath: '.status.lastHeartbeatTime' },
    AGE,
  ],
};

export const FEDERATION: ResourceDefinition = {
  kind: 'Federation',
  plural: 'federations',
  singular: 'federation',
  shortNames: ['fed'],
  scope: 'Cluster',
  description: 'A neighbour cluster of the DRONE federation: its broker, the credentials to reach it and its weight.',
  spec: FederationSpec,
  status: FederationStatus,
  printerColumns: [
    { name: 'Cluster', type: 'string', jsonPath: '.spec.clusterId' },
    { name: 'Broker', type: 'string', jsonPath: '.spec.brokerUrl' },
    { name: 'Weight', type: 'integer', jsonPath: '.spec.weight' },
    { name: 'Connected', type: 'string', jsonPath: '.status.conditions[?(@.type=="Connected")].status' },
    AGE,
  ],
};

export const DRONE_FEDERATED_DEPLOYMENT: ResourceDefinition = {
  kind: 'DroneFederatedDeployment',
  plural: 'dronefederateddeployments',
  singular: 'dronefederateddeployment',
  shortNames: ['dfd'],
  scope: 'Namespaced',
  description: 'Work that may run in a neighbouring cluster when this one has no room (DRONE offloading).',
  spec: DroneFederatedDeploymentSpec,
  status: DroneFederatedDeploymentStatus,
  printerColumns: [
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Components', type: 'string', jsonPath: '.spec.components[*].name', priority: 1 },
    { name: 'Reason', type: 'string', jsonPath: '.status.reason' },
    AGE,
  ],
};

export const OFFLOAD_REQUEST: ResourceDefinition = {
  kind: 'OffloadRequest',
  plural: 'offloadrequests',
  singular: 'offloadrequest',
  shortNames: ['oreq'],
  scope: 'Namespaced',
  description: 'One component of a DroneFederatedDeployment that a neighbouring cluster runs (offloading side).',
  spec: OffloadRequestSpec,
  status: OffloadRequestStatus,
  printerColumns: [
    { name: 'Component', type: 'string', jsonPath: '.spec.component' },
    { name: 'Cluster', type: 'string', jsonPath: '.spec.cluster' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Endpoint', type: 'string', jsonPath: '.status.endpoint' },
    AGE,
  ],
};

export const HOST_REQUEST: ResourceDefinition = {
  kind: 'HostRequest',
  plural: 'hostrequests',
  singular: 'hostrequest',
  shortNames: ['hreq'],
  scope: 'Namespaced',
  description: 'A component this cluster runs for a neighbouring cluster, within the slice it reserved (hosting side).',
  spec: HostRequestSpec,
  status: HostRequestStatus,
  printerColumns: [
    { name: 'Origin', type: 'string', jsonPath: '.spec.origin' },
    { name: 'Component', type: 'string', jsonPath: '.spec.component' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Endpoint', type: 'string', jsonPath: '.status.endpoint' },
    { name: 'Movable', type: 'boolean', jsonPath: '.spec.movable' },
    AGE,
  ],
};

export const TELEMETRY_SERVICE: ResourceDefinition = {
  kind: 'TelemetryService',
  plural: 'telemetryservices',
  singular: 'telemetryservice',
  shortNames: [],
  scope: 'Namespaced',
  description: 'Where deviceShifu pushes telemetry results: an HTTP endpoint or an MQTT topic (Shifu-compatible).',
  spec: TelemetryServiceSpec,
  status: TelemetryServiceStatus,
  printerColumns: [
    { name: 'Endpoint', type: 'string', jsonPath: '.spec.telemetrySeriveEndpoint' },
    { name: 'Broker', type: 'string', jsonPath: '.spec.serviceSettings.MQTTSetting.MQTTServerAddress' },
    { name: 'Topic', type: 'string', jsonPath: '.spec.serviceSettings.MQTTSetting.MQTTTopic' },
    AGE,
  ],
};

export const RESOURCES: readonly ResourceDefinition[] = [EDGE_DEVICE, EDGE_NODE, FEDERATION, DRONE_FEDERATED_DEPLOYMENT, OFFLOAD_REQUEST, HOST_REQUEST, TELEMETRY_SERVICE, ...REAR_RESOURCES];

/** A custom object as the API returns it. */
export interface CustomObject<Spec, Status> {
  apiVersion: typeof API_VERSION;
  kind: string;
  metadata: V1ObjectMeta;
  spec: Spec;
  status?: Status;
}
