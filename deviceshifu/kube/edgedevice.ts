// Kubernetes mode's EdgeDevice: read from the API and watched with the shared Informer (one
// object, by field selector), so a changed spec reaches the gateway without a restart.
import { CustomObjectsApi, type KubeConfig, type KubernetesListObject, type KubernetesObject } from '@kubernetes/client-node';
import { GROUP, VERSION, type CustomObject } from '../../shared/crds/resources.ts';
import type { EdgeDeviceSpec, EdgeDeviceStatus } from '../../shared/crds/edgedevice.ts';
import { Informer } from '../../shared/kube/informer.ts';
import type { Logger } from '../../shared/log.ts';

export type EdgeDeviceObject = CustomObject<EdgeDeviceSpec, EdgeDeviceStatus> & KubernetesObject;

export interface EdgeDeviceWatch {
  readonly informer: Informer<EdgeDeviceObject>;
  /** Resolves once the first list is in: the device (or undefined when it does not exist yet). */
  readonly initial: Promise<EdgeDeviceObject | undefined>;
}

export interface EdgeDeviceRef {
  readonly kc: KubeConfig;
  readonly name: string;
  readonly namespace: string;
  readonly logger: Logger;
}

export function watchEdgeDevice(ref: EdgeDeviceRef, onChange: (device: EdgeDeviceObject | null) => void): EdgeDeviceWatch {
  const { kc, name, namespace, logger } = ref;
  const custom = kc.makeApiClient(CustomObjectsApi);
  const fieldSelector = `metadata.name=${name}`;
  const informer = new Informer<EdgeDeviceObject>({
    kc, logger, fieldSelector,
    path: `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/edgedevices`,
    list: async () => await custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'edgedevices', fieldSelector }) as KubernetesListObject<EdgeDeviceObject>,
  });
  informer.on('add', (device) => { onChange(device); });
  informer.on('update', (device) => { onChange(device); });
  informer.on('delete', () => { onChange(null); });
  const initial = informer.start().then(() => informer.get(name, namespace));
  return { informer, initial };
}
