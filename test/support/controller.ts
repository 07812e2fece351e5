// Runs the real controller against a test cluster: in-process (to look inside), or as its own
// process (to kill it, or to run two for leader election).
import { Writable } from 'node:stream';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import type { Registry } from '../../shared/prometheus.ts';
import { loadConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/log.ts';
import { controllerRegistry } from '../../controller/metrics.ts';
import { ControllerConfig } from '../../controller/config.ts';
import { Controller } from '../../controller/manager.ts';
import { KubeClient } from '../../shared/kube/client.ts';
import { EdgeMap } from '../../edgemap/index.ts';
import { EdgeMapTopology } from '../../controller/edgemap-topology.ts';
import { ManagedProcess } from './controlplane/process.ts';
import type { Kube } from './cluster.ts';

export interface RunningController {
  readonly controller: Controller;
  readonly registry: Registry;
  readonly map: EdgeMap;
  readonly logs: string[];
}

/** Settings that make a test converge quickly. */
export const FAST = ['--resync-seconds', '2', '--reschedule-cooldown-seconds', '0', '--workers', '4'];

/** The controller in this process, as the admin or with `client` (e.g. its ServiceAccount's token). */
export async function startController(t: ExecutionContext, kube: Kube, argv: readonly string[] = [], client = KubeClient.fromKubeconfig(kube.kubeconfigPath)): Promise<RunningController> {
  const logs: string[] = [];
  const sink = new Writable({ write(chunk: Buffer, _e, done) { logs.push(chunk.toString()); done(); } });
  const logger = createLogger('controller', { destination: sink, level: 'debug' });
  const config = loadConfig(ControllerConfig, { argv: [...FAST, '--no-leader-election', ...argv], env: {} });
  const map = new EdgeMap();
  const registry = controllerRegistry();
  const controller = new Controller({ client, config, logger, registry, topology: new EdgeMapTopology(map, logger) });
  t.teardown(async () => { await controller.stop(); client.close(); });
  await controller.start();
  controller.lead();
  return { controller, registry, map, logs };
}

const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');

/** The controller as its own process (`tsx controller/main.ts`), logging to a file. */
export function controllerProcess(kube: Kube, logFile: string, argv: readonly string[]): ManagedProcess {
  return new ManagedProcess({
    name: 'controller',
    command: TSX,
    args: ['controller/main.ts', '--kubeconfig', kube.kubeconfigPath, '--port', '0', ...FAST, ...argv],
    logFile,
  });
}


/** A metric's samples summed over their labels, read from the scrape text. */
export function sampleSum(registry: Registry, name: string): number {
  let sum = 0;
  for (const line of registry.metrics().split('\n')) {
    const match = /^(\w+)(?:\{.*\})? (\S+)$/.exec(line);
    if (match?.[1] === name) sum += Number(match[2]);
  }
  return sum;
}

/** Reconciles done so far, all results together. */
export function reconcileCount(registry: Registry): Promise<number> {
  return Promise.resolve(sampleSum(registry, 'edgeshifu_reconcile_total'));
}
