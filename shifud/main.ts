// shifud's entry point: configuration from flags/env (NODE_NAME from the downward API), the
// cluster's credentials (--kubeconfig, KUBECONFIG, or in-cluster), stop on SIGTERM/SIGINT.
import { printableConfig } from '../shared/config.ts';
import { defaultEndpoint, KubeClient } from '../shared/kube/client.ts';
import { createLogger } from '../shared/log.ts';
import { ShifudConfig, loadShifudConfig } from './config.ts';
import { loggableUrl } from './mqtt-publisher.ts';
import { Shifud } from './shifud.ts';
import { errorMessage } from '../shared/errors.ts';

async function main(): Promise<number> {
  let config: ShifudConfig;
  try {
    config = loadShifudConfig(process.argv.slice(2), process.env);
  } catch (err) {
    console.error(`shifud: ${errorMessage(err)}`);
    return 2;
  }
  const logger = createLogger('shifud', { level: config.logLevel });
  const printable = { ...printableConfig(ShifudConfig, config), ...(config.mqttUrl === undefined ? {} : { mqttUrl: loggableUrl(config.mqttUrl) }) };
  logger.info({ config: printable }, 'starting');
  let client: KubeClient;
  try {
    client = new KubeClient(defaultEndpoint(config.kubeconfig, process.env));
  } catch (err) {
    logger.fatal({ err: errorMessage(err) }, 'no cluster credentials: run in a pod with a ServiceAccount, or set KUBECONFIG (or --kubeconfig) to a readable kubeconfig');
    return 2;
  }
  const shifud = new Shifud(config, { client, logger });
  await shifud.start();
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  logger.info('stopping');
  await shifud.stop();
  client.close();
  return 0;
}

process.exitCode = await main();
