// Wires the shared host in Kubernetes mode: the assignment watch → NodeHost, each device fed from
// the API (kube-feed.ts), and the host's own small HTTP server on the admin port: /health for the
// kubelet's liveness probe, /devices for people (which device on which port, and any problem).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeClient } from '../../shared/kube/client.ts';
import type { Logger } from '../../shared/log.ts';
import { http } from '../../shared/node-http.ts';
import { sendJson, send } from '../http/reply.ts';
import { watchAssignments } from './assignments-watch.ts';
import { NodeHost } from './host.ts';
import { kubeFeed } from './kube-feed.ts';
import type { HostSettings } from './settings.ts';

export interface HostRunOptions {
  readonly settings: HostSettings;
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  /** The API client (default: $KUBECONFIG, else in-cluster). */
  readonly client?: KubeClient;
}

export interface RunningHost {
  readonly host: NodeHost;
  readonly address: AddressInfo;
  stop(): Promise<void>;
}

function adminServer(host: NodeHost): Server {
  return http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJson(res, 405, { error: { kind: 'method-not-allowed', message: 'the host\'s own paths answer GET and HEAD' } }, { allow: 'GET, HEAD' });
    } else if (path === '/health') {
      send(res, { status: 200, contentType: 'text/plain; charset=utf-8', body: 'ok' });
    } else if (path === '/devices') {
      sendJson(res, 200, host.list().map((d) => ({ ...d.assignment, listening: d.gateway !== undefined, ...(d.problem === undefined ? {} : { problem: d.problem }) })));
    } else {
      sendJson(res, 404, { error: { kind: 'not-found', message: 'the host serves /health and /devices here; each device answers on its own port' } });
    }
  });
}

export async function runHost(options: HostRunOptions): Promise<RunningHost> {
  const { settings, logger, env } = options;
  const { defaultEndpoint, KubeClient: Client } = await import('../../shared/kube/client.ts');
  // two watches per device (its ConfigMap and EdgeDevice) plus the assignment's: no socket cap
  const client = options.client ?? new Client(defaultEndpoint(undefined, env), { maxSockets: Infinity });
  const host = new NodeHost({
    bindAddress: settings.bindAddress, bodyLimitBytes: settings.bodyLimitBytes, readyWindowMs: settings.readyWindowMs,
    probeIntervalMs: settings.probeIntervalMs, statusIntervalMs: settings.statusIntervalMs, logger,
    driver: { controlMsgsTimeoutMs: settings.controlMsgsTimeoutMs, ...(settings.mqttCaFile === undefined ? {} : { mqttCaFile: settings.mqttCaFile }) },
    feedFor: (assignment, log) => kubeFeed({ client, configNamespace: settings.namespace, telemetryServiceCacheMs: settings.telemetryServiceCacheMs }, assignment, log),
  });
  const admin = adminServer(host);
  await new Promise<void>((resolve, reject) => {
    admin.once('error', reject);
    admin.listen(settings.adminPort, settings.bindAddress, () => { admin.off('error', reject); resolve(); });
  });
  const assignments = watchAssignments({ client, namespace: settings.namespace, hostId: settings.hostId, logger }, (list) => { host.assign(list); });
  await assignments.start();
  const address = admin.address() as AddressInfo;
  logger.info({ hostId: settings.hostId, address: `${address.address}:${String(address.port)}` }, 'deviceShifu host listening');
  return {
    host, address,
    stop: async () => {
      await assignments.stop();
      await host.stop();
      admin.closeAllConnections();
      await new Promise<void>((resolve) => { admin.close(() => { resolve(); }); });
      if (options.client === undefined) client.close();
    },
  };
}
