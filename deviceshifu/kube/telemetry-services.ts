// Shifu's TelemetryService objects (same group and version), looked up by name in the EdgeDevice's
// namespace when a telemetry pushes to one. An absent object: the push fails with a clear error.
import { GROUP, VERSION } from '../../shared/crds/group.ts';
import type { KubeClient } from '../../shared/kube/client.ts';
import { kubeStatusOf, toKubeError } from '../../shared/kube/errors.ts';
import type { ServiceResolver } from '../telemetry/pusher.ts';
import { targetOfService, type TelemetryServiceSpec } from '../telemetry/service.ts';

export function kubeTelemetryServices(client: KubeClient, namespace: string): ServiceResolver {
  const collection = `/apis/${GROUP}/${VERSION}/namespaces/${encodeURIComponent(namespace)}/telemetryservices`;
  return async (name) => {
    let object: { spec?: TelemetryServiceSpec };
    try {
      object = await client.request<{ spec?: TelemetryServiceSpec }>('GET', `${collection}/${encodeURIComponent(name)}`);
    } catch (err) {
      if (kubeStatusOf(err)?.code === 404) return undefined;
      throw toKubeError(err, `read TelemetryService ${namespace}/${name}`);
    }
    return targetOfService(name, object.spec ?? {});
  };
}
