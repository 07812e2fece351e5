// shifud's entry point: configuration from flags/env (NODE_NAME from the downward API), the
// cluster's credentials (in-cluster, or KUBECONFIG), stop on SIGTERM/SIGINT.
import { KubeConfig } from '@kubernetes/client-node';
import { printableConfig } from '../shared/config.ts';
import { createLogger } from '../shared/log.ts';
import { ShifudConfig, loadShifudConfig } from './config.ts';
import { loggableUrl } from './mqttPublisher.ts';
import { Shifud } from './shifud.ts';

async function main(): Promise<number> {
  let config: ShifudConfig;
  try {
    config = loadShifudConfig(process.argv.slice(2), process.env);
  } catch (err) {
    console.error(`shifud: ${err instanceof Error ? err.message : String(err)}`);
    return 2;
  }
  const logger = createLogger('shifud', { level: config.logLevel });
  const printable = { ...printableConfig(ShifudConfig, config), ...(config.mqttUrl === undefined ? {} : { mqttUrl: loggableUrl(config.mqttUrl) }) };
  logger.info({ config: printable }, 'starting');
  const kc = new KubeConfig();
  try {
    kc.loadFromDefault();
  } catch (err) {
    logger.fatal({ err: err instanceof Error ? err.message : String(err) }, 'no cluster credentials: run in a pod with a ServiceAccount, or set KUBECONFIG to a readable kubeconfig');
    return 2;
  }
  const shifud = new Shifud(config, { kc, logger });
  await shifud.start();
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  logger.info('stopping');
  await shifud.stop();
  return 0;
}

process.exitCode = await main();
