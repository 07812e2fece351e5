// deviceShifu entrypoint.
//   Kubernetes mode: EDGEDEVICE_NAME / EDGEDEVICE_NAMESPACE name the EdgeDevice (in-cluster or $KUBECONFIG).
//   Standalone mode: --config-dir <dir> --edgedevice-file <yaml>, no Kubernetes.
// Other settings: see settings.ts (flags --kebab-case or EDGESHIFU_* variables).
import { loadConfig, printableConfig } from '../shared/config.ts';
import { createJsonLogger } from '../shared/json-log.ts';
import { serveUntilSignal } from '../shared/serve.ts';
import { runInCluster, runStandalone, type RunningDeviceShifu } from './run.ts';
import settingsSchema from './schemas/settings.json' with { type: 'json' };
import type { Settings as SettingsSource } from './settings.ts';

// The schema as JSON, not built by TypeBox at start (schemas/render.ts)
const Settings = settingsSchema as unknown as typeof SettingsSource;

const logger = createJsonLogger('deviceshifu');

async function main(): Promise<RunningDeviceShifu> {
  const settings = loadConfig(Settings, { argv: process.argv.slice(2), env: process.env });
  logger.info({ settings: printableConfig(Settings, settings) }, 'deviceShifu starting');
  const options = { settings, env: process.env, logger };
  return settings.edgedeviceFile === undefined ? runInCluster(options) : runStandalone({ ...options, edgedeviceFile: settings.edgedeviceFile });
}

await serveUntilSignal(logger, 'deviceShifu', main);
