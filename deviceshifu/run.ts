// Wires one deviceShifu: settings → gateway, the ConfigMap directory (watched), and the EdgeDevice
// from a file (standalone) or from the API (Kubernetes mode, watched with the Informer), and the
// status writer in Kubernetes mode. main.ts and the tests both start deviceShifu through here.
import { dirname } from 'node:path';
import type { AddressInfo } from 'node:net';
import { EdgeshifuError } from '../shared/errors.ts';
import { readText } from '../shared/files.ts';
import type { KubeClient } from '../shared/kube/client.ts';
import type { Logger } from '../shared/log.ts';
import { readConfigFiles } from './config/load.ts';
import { parseConfig } from './config/parse.ts';
import { DeviceShifu, type GatewayOptions } from './device-shifu.ts';
import type { Settings } from './settings.ts';
import { cachedServices } from './telemetry/service-cache.ts';
import { yaml } from '../shared/yaml.ts';
import { watchSource } from './watch-source.ts';

export interface RunOptions {
  readonly settings: Settings;
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  /** Kubernetes mode: the API client (default: $KUBECONFIG, else in-cluster). */
  readonly client?: KubeClient;
  /** How often sources are re-read in case a file event was missed. */
  readonly pollMs?: number;
}

export interface RunningDeviceShifu {
  readonly gateway: DeviceShifu;
  readonly address: AddressInfo;
  stop(): Promise<void>;
}

type Sources = Pick<GatewayOptions, 'secrets' | 'services' | 'patchPhase' | 'reportStatus'>;

function gatewayOptions(settings: Settings, logger: Logger, sources: Sources): GatewayOptions {
  return {
    port: settings.port, bindAddress: settings.bindAddress, bodyLimitBytes: settings.bodyLimitBytes,
    readyWindowMs: settings.readyWindowMs, probeIntervalMs: settings.probeIntervalMs, statusIntervalMs: settings.statusIntervalMs,
    driver: {
      bindAddress: settings.bindAddress,
      controlMsgsTimeoutMs: settings.controlMsgsTimeoutMs,
      ...(settings.tcpListenPort === undefined ? {} : { tcpListenPort: settings.tcpListenPort }),
      ...(settings.lwm2mListenPort === undefined ? {} : { lwm2mListenPort: settings.lwm2mListenPort }),
      ...(settings.mqttCaFile === undefined ? {} : { mqttCaFile: settings.mqttCaFile }),
      opcuaCertificateDir: settings.opcuaCertificateDir,
      ...(settings.opcuaPkiDir === undefined ? {} : { opcuaPkiDir: settings.opcuaPkiDir }),
    },
    logger, ...sources,
  };
}

async function applyConfig(gateway: DeviceShifu, snapshot: string, logger: Logger): Promise<void> {
  try {
    const config = parseConfig(JSON.parse(snapshot) as Record<string, string>);
    await gateway.update({ config });
    gateway.metrics.configReloads.inc({ source: 'configmap', result: 'ok' });
    logger.info({ instructions: [...config.instructions.keys()], telemetries: config.telemetries.map((t) => t.name) }, 'configuration applied');
  } catch (err) {
    gateway.metrics.configReloads.inc({ source: 'configmap', result: 'error' });
    logger.error({ err: (err as Error).message }, 'configuration rejected; the previous one stays in force');
  }
}

async function followConfigDir(gateway: DeviceShifu, options: RunOptions, signal: AbortSignal): Promise<void> {
  const dir = options.settings.configDir;
  const read = async (): Promise<string> => JSON.stringify(await readConfigFiles(dir));
  const initial = await read().catch((err: unknown) => { options.logger.error({ err: (err as Error).message }, 'no configuration yet'); return ''; });
  if (initial !== '') await applyConfig(gateway, initial, options.logger);
  watchSource({ dir, read, initial, pollMs: options.pollMs ?? 5000, logger: options.logger, signal, onChange: (s) => applyConfig(gateway, s, options.logger) });
}

async function followEdgeDeviceFile(gateway: DeviceShifu, path: string, options: RunOptions, signal: AbortSignal): Promise<void> {
  // Loaded only here: Kubernetes mode needs neither it nor the EdgeDevice spec's schema it holds
  const { edgeDeviceFromManifest } = await import('./standalone/edgedevice-file.ts');
  const apply = async (text: string): Promise<void> => {
    try {
      await gateway.update({ device: edgeDeviceFromManifest(yaml().parse(text), path) });
      gateway.metrics.configReloads.inc({ source: 'edgedevice', result: 'ok' });
    } catch (err) {
      gateway.metrics.configReloads.inc({ source: 'edgedevice', result: 'error' });
      options.logger.error({ err: (err as Error).message }, 'EdgeDevice rejected; the previous one stays in force');
    }
  };
  const read = (): Promise<string> => readText(path);
  const initial = await read();
  await apply(initial);
  watchSource({ dir: dirname(path), read, initial, pollMs: options.pollMs ?? 5000, logger: options.logger, signal, onChange: apply });
}

export async function runStandalone(options: RunOptions & { readonly edgedeviceFile: string }): Promise<RunningDeviceShifu> {
  const { settings, logger } = options;
  const [{ fileSecrets }, { fileTelemetryServices }] = await Promise.all([import('./standalone/secrets.ts'), import('./standalone/telemetry-services.ts')]);
  const gateway = new DeviceShifu(gatewayOptions(settings, logger, { secrets: fileSecrets(settings.secretsDir), services: fileTelemetryServices(settings.telemetryServicesFile) }));
  const stopper = new AbortController();
  await followConfigDir(gateway, options, stopper.signal);
  await followEdgeDeviceFile(gateway, options.edgedeviceFile, options, stopper.signal);
  const address = await gateway.listen();
  return { gateway, address, stop: async () => { stopper.abort(); await gateway.stop(); } };
}

export async function runInCluster(options: RunOptions): Promise<RunningDeviceShifu> {
  const { settings, logger, env } = options;
  const name = env.EDGEDEVICE_NAME;
  const namespace = env.EDGEDEVICE_NAMESPACE ?? 'devices';
  if (name === undefined || name === '') throw new EdgeshifuError('invalid', 'EDGEDEVICE_NAME is not set: name the EdgeDevice (or use --edgedevice-file for standalone mode)');
  // Loaded only here: standalone mode needs none of it.
  const [{ defaultEndpoint, KubeClient: Client }, { watchEdgeDevice }, { kubeSecrets }, { edgeDevicePhasePatcher, edgeDeviceStatusReporter }, { kubeTelemetryServices }] = await Promise.all([
    import('../shared/kube/client.ts'), import('./kube/edgedevice-watch.ts'), import('./kube/secrets.ts'), import('./kube/status.ts'), import('./kube/telemetry-services.ts'),
  ]);
  const client = options.client ?? new Client(defaultEndpoint(undefined, env));
  const gateway = new DeviceShifu(gatewayOptions(settings, logger, {
    secrets: kubeSecrets(client, settings.secretNamespace ?? namespace, env),
    services: cachedServices(kubeTelemetryServices(client, namespace), settings.telemetryServiceCacheMs),
    patchPhase: edgeDevicePhasePatcher(client, name, namespace),
    reportStatus: edgeDeviceStatusReporter(client, { name, namespace }, logger),
  }));
  const stopper = new AbortController();
  await followConfigDir(gateway, options, stopper.signal);
  const watch = watchEdgeDevice({ client, name, namespace, logger }, (device) => {
    void gateway.update({ device: device === null ? null : { name, namespace, spec: device.spec } });
    gateway.observedPhase(device?.status?.edgedevicephase);
  });
  const address = await gateway.listen();
  const first = await watch.initial;
  if (first === undefined) logger.warn({ name, namespace }, 'EdgeDevice not found yet; waiting for it');
  const stop = async (): Promise<void> => {
    stopper.abort();
    await watch.informer.stop();
    await gateway.stop();
    if (options.client === undefined) client.close();
  };
  return { gateway, address, stop };
}
