// The shared per-node deviceShifu host's entrypoint (image: `args: [deviceshifu-host]`): serves
// every device whose Service is labelled for this host's id, each on its own port. Settings: see
// settings.ts (flags --kebab-case or EDGESHIFU_* variables).
import { loadConfig, printableConfig } from '../../shared/config.ts';
import { isEdgeshifuError } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import { runHost, type RunningHost } from './run.ts';
import { HostSettings } from './settings.ts';

const logger = createLogger('deviceshifu-host');

async function main(): Promise<RunningHost> {
  const settings = loadConfig(HostSettings, { argv: process.argv.slice(2), env: process.env });
  logger.info({ settings: printableConfig(HostSettings, settings) }, 'deviceShifu host starting');
  return runHost({ settings, env: process.env, logger });
}

try {
  const running = await main();
  const stop = (): void => { void running.stop().then(() => process.exit(0)); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (err) {
  logger.error({ err: (err as Error).message }, 'deviceShifu host failed to start');
  process.exitCode = isEdgeshifuError(err, 'invalid') ? 2 : 1;
}
