// The EdgeDevice phase written with a JSON merge patch to the status subresource: only
// status.edgedevicephase changes, nothing is read first (Shifu GETs and PUTs the whole object).
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import { toKubeError } from '../../shared/kube/errors.ts';
import { MERGE_PATCH } from '../../shared/kube/patch.ts';
import type { PhasePatcher } from '../status/writer.ts';

export function edgeDevicePhasePatcher(kc: KubeConfig, name: string, namespace: string): PhasePatcher {
  const custom = kc.makeApiClient(CustomObjectsApi);
  return async (phase) => {
    try {
      await custom.patchNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, namespace, plural: 'edgedevices', name, body: { status: { edgedevicephase: phase } } }, MERGE_PATCH);
    } catch (err) {
      throw toKubeError(err, `patch status of EdgeDevice ${namespace}/${name}`);
    }
  };
}
