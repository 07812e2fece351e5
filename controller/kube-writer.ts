// Every write the controller makes, behind one narrow interface (STYLE.md habit 5): server-side
// apply with a fixed field manager, deletes that tolerate "already gone", status and finalizer
// patches guarded by resourceVersion, and Events.
import { AppsV1Api, CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { Applier } from '../shared/kube/apply.ts';
import { kubeStatusOf, toKubeError } from '../shared/kube/errors.ts';
import { MERGE_PATCH } from '../shared/kube/patch.ts';
import { GROUP, VERSION } from '../shared/crds/resources.ts';
import type { EdgeDeviceStatus } from '../shared/crds/edgedevice.ts';
import type { EdgeDevice } from './world.ts';

export const FIELD_MANAGER = 'edgeshifu-controller';

export type BundleKind = 'Deployment' | 'Service' | 'ServiceAccount' | 'Role' | 'RoleBinding';

export interface KubeWriter {
  apply<T extends KubernetesObject>(object: T): Promise<T>;
  remove(kind: BundleKind, namespace: string, name: string): Promise<void>;
  /** Merge-patches the status; fails with a conflict if the device changed since `resourceVersion`. */
  patchStatus(device: EdgeDevice, status: EdgeDeviceStatus): Promise<EdgeDevice>;
  setFinalizers(device: EdgeDevice, finalizers: string[]): Promise<EdgeDevice>;
  event(device: EdgeDevice, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void>;
}

export class ApiWriter implements KubeWriter {
  private readonly applier: Applier;
  private readonly core: CoreV1Api;
  private readonly apps: AppsV1Api;
  private readonly rbac: RbacAuthorizationV1Api;
  private readonly custom: CustomObjectsApi;

  constructor(kc: KubeConfig) {
    this.applier = new Applier(kc);
    this.core = kc.makeApiClient(CoreV1Api);
    this.apps = kc.makeApiClient(AppsV1Api);
    this.rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    this.custom = kc.makeApiClient(CustomObjectsApi);
  }

  async apply<T extends KubernetesObject>(object: T): Promise<T> {
    return this.applier.apply(object, { fieldManager: FIELD_MANAGER, force: true });
  }

  async remove(kind: BundleKind, namespace: string, name: string): Promise<void> {
    const request = { namespace, name, propagationPolicy: 'Background' };
    try {
      switch (kind) {
        case 'Deployment': await this.apps.deleteNamespacedDeployment(request); break;
        case 'Service': await this.core.deleteNamespacedService(request); break;
        case 'ServiceAccount': await this.core.deleteNamespacedServiceAccount(request); break;
        case 'Role': await this.rbac.deleteNamespacedRole(request); break;
        case 'RoleBinding': await this.rbac.deleteNamespacedRoleBinding(request); break;
      }
    } catch (err) {
      if (kubeStatusOf(err)?.code === 404) return;
      throw toKubeError(err, `delete ${kind} ${namespace}/${name}`);
    }
  }

  async patchStatus(device: EdgeDevice, status: EdgeDeviceStatus): Promise<EdgeDevice> {
    const { name = '', namespace = '', resourceVersion } = device.metadata;
    try {
      return await this.custom.patchNamespacedCustomObjectStatus({
        group: GROUP, version: VERSION, plural: 'edgedevices', namespace, name, body: { metadata: { resourceVersion }, status },
      }, MERGE_PATCH) as EdgeDevice;
    } catch (err) {
      throw toKubeError(err, `write status of EdgeDevice ${namespace}/${name}`);
    }
  }

  async setFinalizers(device: EdgeDevice, finalizers: string[]): Promise<EdgeDevice> {
    const { name = '', namespace = '', resourceVersion } = device.metadata;
    try {
      return await this.custom.patchNamespacedCustomObject({
        group: GROUP, version: VERSION, plural: 'edgedevices', namespace, name, body: { metadata: { resourceVersion, finalizers } },
      }, MERGE_PATCH) as EdgeDevice;
    } catch (err) {
      throw toKubeError(err, `set finalizers of EdgeDevice ${namespace}/${name}`);
    }
  }

  async event(device: EdgeDevice, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    const { name = '', namespace = '', uid } = device.metadata;
    const now = new Date();
    try {
      await this.core.createNamespacedEvent({
        namespace,
        body: {
          metadata: { generateName: `${name}.` },
          involvedObject: { apiVersion: device.apiVersion, kind: 'EdgeDevice', name, namespace, uid },
          type, reason, message, source: { component: FIELD_MANAGER },
          firstTimestamp: now, lastTimestamp: now, count: 1, reportingComponent: FIELD_MANAGER,
        },
      });
    } catch (err) {
      throw toKubeError(err, `record event on EdgeDevice ${namespace}/${name}`);
    }
  }
}
