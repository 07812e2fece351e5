// The shared per-node deviceShifu host's entrypoint (image: `args: [deviceshifu-host]`): serves
// every device whose Service is labelled for this host's id, each on its own port. Settings: see
// settings.ts (flags --kebab-case or EDGESHIFU_* variables).
import { loadConfig, printableConfig } from '../../shared/config.ts';
import { createJsonLogger } from '../../shared/json-log.ts';
import { serveUntilSignal } from '../../shared/serve.ts';
import { runHost, type RunningHost } from './run.ts';
import { HostSettings } from './settings.ts';

const logger = createJsonLogger('deviceshifu-host');

async function main(): Promise<RunningHost> {
  const settings = loadConfig(HostSettings, { argv: process.argv.slice(2), env: process.env });
  logger.info({ settings: printableConfig(HostSettings, settings) }, 'deviceShifu host starting');
  return runHost({ settings, env: process.env, logger });
}

await serveUntilSignal(logger, 'deviceShifu host', main);
