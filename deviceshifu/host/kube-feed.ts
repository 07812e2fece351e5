// A hosted device's feed in a pod: its ConfigMap and its EdgeDevice read and watched from the API
// (each by name, as the Roles the controller made for it allow), its phase written to the status
// subresource, its secrets and TelemetryServices read by name. The ConfigMap comes from the API
// and not from a volume: a volume would tie the host's Pod to each device's ConfigMap, and a new
// device would restart the host.
import type { KubernetesListObject, V1ConfigMap } from '@kubernetes/client-node';
import type { KubeClient } from '../../shared/kube/client.ts';
import { Informer } from '../../shared/kube/informer.ts';
import type { Logger } from '../../shared/log.ts';
import { parseConfig } from '../config/parse.ts';
import type { DeviceShifu } from '../device-shifu.ts';
import { watchEdgeDevice } from '../kube/edgedevice-watch.ts';
import { kubeSecrets } from '../kube/secrets.ts';
import { edgeDevicePhasePatcher, edgeDeviceStatusReporter } from '../kube/status.ts';
import { kubeTelemetryServices } from '../kube/telemetry-services.ts';
import { cachedServices } from '../telemetry/service-cache.ts';
import type { Assignment } from './assignment.ts';
import type { DeviceFeed } from './host.ts';

export interface KubeFeedOptions {
  readonly client: KubeClient;
  /** Where the ConfigMaps are (the deviceShifu namespace, the host's own). */
  readonly configNamespace: string;
  readonly telemetryServiceCacheMs: number;
}

/** Applies one ConfigMap's data; a broken one is logged and counted, and the running configuration stays. */
function applyConfigMap(gateway: DeviceShifu, cm: V1ConfigMap, logger: Logger): void {
  try {
    const config = parseConfig(cm.data ?? {});
    void gateway.update({ config });
    gateway.metrics.configReloads.inc({ source: 'configmap', result: 'ok' });
    logger.info({ configMap: cm.metadata?.name, instructions: [...config.instructions.keys()] }, 'configuration applied');
  } catch (err) {
    gateway.metrics.configReloads.inc({ source: 'configmap', result: 'error' });
    logger.error({ configMap: cm.metadata?.name, err: (err as Error).message }, 'configuration rejected; the previous one stays in force');
  }
}

function watchConfigMap(options: KubeFeedOptions, name: string, logger: Logger, onChange: (cm: V1ConfigMap) => void): Informer<V1ConfigMap> {
  const { client, configNamespace } = options;
  const path = `/api/v1/namespaces/${encodeURIComponent(configNamespace)}/configmaps`;
  // a Role limited by resourceNames allows list and watch only with this field selector
  const fieldSelector = `metadata.name=${name}`;
  const informer = new Informer<V1ConfigMap>({
    path, logger, fieldSelector, watch: client.watch,
    list: () => client.request<KubernetesListObject<V1ConfigMap>>('GET', path, { query: { fieldSelector } }),
  });
  informer.on('add', onChange);
  informer.on('update', onChange);
  informer.on('delete', () => { logger.warn({ configMap: name }, 'ConfigMap deleted; the configuration in force stays until it is back'); });
  return informer;
}

export function kubeFeed(options: KubeFeedOptions, assignment: Assignment, logger: Logger): DeviceFeed {
  const { client } = options;
  const { name, namespace } = assignment;
  return {
    sources: {
      secrets: kubeSecrets(client, namespace, {}),
      services: cachedServices(kubeTelemetryServices(client, namespace), options.telemetryServiceCacheMs),
      patchPhase: edgeDevicePhasePatcher(client, name, namespace),
      // a driver's own status (an LwM2M registration), as a dedicated deviceShifu writes it
      reportStatus: edgeDeviceStatusReporter(client, { name, namespace }, logger),
    },
    follow: async (gateway, signal) => {
      const configMap = watchConfigMap(options, assignment.configMap, logger, (cm) => { applyConfigMap(gateway, cm, logger); });
      const device = watchEdgeDevice({ client, name, namespace, logger }, (d) => {
        void gateway.update({ device: d === null ? null : { name, namespace, spec: d.spec } });
        gateway.observedPhase(d?.status?.edgedevicephase);
      });
      const stop = (): void => { void configMap.stop(); void device.informer.stop(); };
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop, { once: true });
      await Promise.all([configMap.start(), device.initial]);
      if (configMap.size === 0) logger.warn({ configMap: assignment.configMap }, 'ConfigMap not found yet; instructions answer 404 until it exists');
    },
  };
}
