// Shifu's TelemetryService objects (same group and version), looked up by name in the EdgeDevice's
// namespace when a telemetry pushes to one. Absent kind or object: the push fails with a clear error.
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import { kubeStatusOf, toKubeError } from '../../shared/kube/errors.ts';
import type { ServiceResolver } from '../telemetry/pusher.ts';
import { targetOfService, type TelemetryServiceSpec } from '../telemetry/service.ts';

export function kubeTelemetryServices(kc: KubeConfig, namespace: string): ServiceResolver {
  const custom = kc.makeApiClient(CustomObjectsApi);
  return async (name) => {
    try {
      const object = await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'telemetryservices', name }) as { spec?: TelemetryServiceSpec };
      return targetOfService(name, object.spec ?? {});
    } catch (err) {
      if (kubeStatusOf(err)?.code === 404) return undefined;
      throw toKubeError(err, `read TelemetryService ${namespace}/${name}`);
    }
  };
}
