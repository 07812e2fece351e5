// The EdgeDevice phase written with a JSON merge patch to the status subresource: only
// status.edgedevicephase changes, nothing is read first (Shifu GETs and PUTs the whole object).
import type { KubeClient } from '../../shared/kube/client.ts';
import { toKubeError } from '../../shared/kube/errors.ts';
import type { PhasePatcher } from '../status/writer.ts';
import { edgeDevicesPath } from './edgedevice-watch.ts';

export function edgeDevicePhasePatcher(client: KubeClient, name: string, namespace: string): PhasePatcher {
  const path = `${edgeDevicesPath(namespace)}/${encodeURIComponent(name)}/status`;
  return async (phase) => {
    try {
      await client.request('PATCH', path, { contentType: 'application/merge-patch+json', body: { status: { edgedevicephase: phase } } });
    } catch (err) {
      throw toKubeError(err, `patch status of EdgeDevice ${namespace}/${name}`);
    }
  };
}
