// Kubernetes mode's EdgeDevice: read from the API and watched with the shared Informer (one
// object, by field selector), so a changed spec reaches the gateway without a restart.
import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import { GROUP, VERSION } from '../../shared/crds/group.ts';
import type { EdgeDevice } from '../../shared/crds/edgedevice.ts';
import type { KubeClient } from '../../shared/kube/client.ts';
import { Informer } from '../../shared/kube/informer.ts';
import type { Logger } from '../../shared/log.ts';

export type EdgeDeviceObject = EdgeDevice & KubernetesObject;

export interface EdgeDeviceWatch {
  readonly informer: Informer<EdgeDeviceObject>;
  /** Resolves once the first list is in: the device (or undefined when it does not exist yet). */
  readonly initial: Promise<EdgeDeviceObject | undefined>;
}

export interface EdgeDeviceRef {
  readonly client: KubeClient;
  readonly name: string;
  readonly namespace: string;
  readonly logger: Logger;
}

/** The namespaced collection of EdgeDevices: `/apis/shifu.edgenesis.io/v1alpha1/namespaces/<ns>/edgedevices`. */
export function edgeDevicesPath(namespace: string): string {
  return `/apis/${GROUP}/${VERSION}/namespaces/${encodeURIComponent(namespace)}/edgedevices`;
}

export function watchEdgeDevice(ref: EdgeDeviceRef, onChange: (device: EdgeDeviceObject | null) => void): EdgeDeviceWatch {
  const { client, name, namespace, logger } = ref;
  const path = edgeDevicesPath(namespace);
  // list and watch with resourceNames-limited RBAC need the metadata.name field selector
  const fieldSelector = `metadata.name=${name}`;
  const informer = new Informer<EdgeDeviceObject>({
    path, logger, fieldSelector, watch: client.watch,
    list: () => client.request<KubernetesListObject<EdgeDeviceObject>>('GET', path, { query: { fieldSelector } }),
  });
  informer.on('add', (device) => { onChange(device); });
  informer.on('update', (device) => { onChange(device); });
  informer.on('delete', () => { onChange(null); });
  const initial = informer.start().then(() => informer.get(name, namespace));
  return { informer, initial };
}
