// The controller process: configuration, logs, metrics and health server, leader election, and
// the reconcilers once elected. Stateless: everything is rebuilt from the API server at start.
import { hostname } from 'node:os';
import { loadConfig, printableConfig } from '../shared/config.ts';
import { defaultEndpoint, KubeClient } from '../shared/kube/client.ts';
import { createLogger } from '../shared/log.ts';
import { CollectedGauge, Gauge } from '../shared/prometheus.ts';
import { ControllerConfig } from './config.ts';
import { LeaderElector, processIdentity } from './leader.ts';
import { Controller } from './manager.ts';
import { controllerRegistry } from './metrics.ts';
import { controllerServer, listen } from './server.ts';
import { EdgeMap } from '../edgemap/index.ts';
import { edgeMapRouter } from '../edgemap/http/router.ts';
import { EdgeMapTopology } from './edgemap-topology.ts';
import { kubeReviewer, TokenGate, tokenGuard } from './http-auth.ts';
import { errorMessage } from '../shared/errors.ts';


export async function runController(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const logger = createLogger('controller');
  const config = loadConfig(ControllerConfig, { argv, env });
  logger.info({ config: printableConfig(ControllerConfig, config) }, 'effective configuration');
  const client = new KubeClient(defaultEndpoint(config.kubeconfig, env));
  const registry = controllerRegistry();
  const map = new EdgeMap({ onListenerError: (err) => { logger.warn({ err: errorMessage(err) }, 'edgeMap listener failed'); } });
  const shutdown = new AbortController();
  const controller = new Controller({ client, config, logger, registry, topology: new EdgeMapTopology(map, logger.child({ part: 'edgemap' })) });
  const identity = processIdentity(config.identity ?? env.HOSTNAME ?? hostname());
  const elector = new LeaderElector({ client, namespace: config.leaseNamespace, name: config.leaseName, identity, logger });
  const leaderGauge = new Gauge({ name: 'edgeshifu_leader', help: '1 while this replica leads', registers: [registry] });
  new CollectedGauge({ name: 'edgeshifu_edgemap_vertices', help: 'Vertices (nodes, devices, clusters) on the edgeMap', registers: [registry], read: () => map.order });
  new CollectedGauge({ name: 'edgeshifu_edgemap_links', help: 'Links on the edgeMap', registers: [registry], read: () => map.size });
  const app = controllerServer({
    registry,
    logger,
    routes: [edgeMapRouter(map, { signal: shutdown.signal, logger, registry }), controller.rearRoute],
    ...(config.edgemapAuth ? { guard: tokenGuard(new TokenGate({ reviewer: kubeReviewer(client), logger })) } : {}),
    ready: () => !controller.synced ? { ok: false, detail: 'filling caches' }
      : { ok: true, detail: controller.leading ? 'leading' : 'caches synced; standing by for the lease' },
  });
  const { server, port } = await listen(app, config.listenAddress, config.port);
  logger.info({ address: config.listenAddress, port }, 'serving /healthz, /readyz, /metrics, /edgemap');

  const stop = (): void => { elector.stop(); };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  let outcome: 'lost' | 'stopped';
  await controller.start();
  if (config.leaderElection) {
    outcome = await elector.run(() => { leaderGauge.set({}, 1); controller.lead(); return Promise.resolve(); });
  } else {
    controller.lead();
    await new Promise<void>((resolve) => { process.once('SIGTERM', resolve); process.once('SIGINT', resolve); });
    outcome = 'stopped';
  }
  leaderGauge.set({}, 0);
  await controller.stop();
  shutdown.abort();
  server.close();
  client.close();
  logger.info({ outcome }, 'controller stopped');
  return outcome === 'lost' ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  try {
    process.exitCode = await runController(process.argv.slice(2), process.env);
  } catch (err) {
    // bad configuration or kubeconfig: say what to fix, no stack trace
    createLogger('controller').fatal({ err: errorMessage(err) }, 'cannot start');
    process.exitCode = 2;
  }
}
