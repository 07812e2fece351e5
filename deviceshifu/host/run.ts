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
import { NodeHost, type HostOptions } from './host.ts';
import { EdgeshifuError } from '../../shared/errors.ts';
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

async function listenAdmin(admin: Server, settings: HostSettings): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    admin.once('error', reject);
    admin.listen(settings.adminPort, settings.bindAddress, () => { admin.off('error', reject); resolve(); });
  });
  return admin.address() as AddressInfo;
}

function hostOptions(settings: HostSettings, logger: Logger, feedFor: HostOptions['feedFor']): HostOptions {
  return {
    bindAddress: settings.bindAddress, bodyLimitBytes: settings.bodyLimitBytes, readyWindowMs: settings.readyWindowMs,
    probeIntervalMs: settings.probeIntervalMs, statusIntervalMs: settings.statusIntervalMs, logger, feedFor,
    driver: { controlMsgsTimeoutMs: settings.controlMsgsTimeoutMs, ...(settings.mqttCaFile === undefined ? {} : { mqttCaFile: settings.mqttCaFile }) },
  };
}

async function closeAdmin(admin: Server): Promise<void> {
  admin.closeAllConnections();
  await new Promise<void>((resolve) => { admin.close(() => { resolve(); }); });
}

/** Without Kubernetes: the devices of --devices-dir, read once. */
export async function runHostFromDir(options: HostRunOptions & { readonly devicesDir: string }): Promise<RunningHost> {
  const { settings, logger } = options;
  const { fileFeed, readDevicesDir } = await import('./file-feed.ts');
  const assignments = await readDevicesDir(options.devicesDir);
  const host = new NodeHost(hostOptions(settings, logger, (a, log) => fileFeed(a, log, settings.secretsDir === undefined ? {} : { secretsDir: settings.secretsDir })));
  const admin = adminServer(host);
  const address = await listenAdmin(admin, settings);
  host.assign(assignments);
  await host.settled();
  logger.info({ devices: assignments.length, address: `${address.address}:${String(address.port)}` }, 'deviceShifu host listening');
  return { host, address, stop: async () => { await host.stop(); await closeAdmin(admin); } };
}

export async function runHost(options: HostRunOptions): Promise<RunningHost> {
  const { settings, logger, env } = options;
  if (settings.devicesDir !== undefined) return runHostFromDir({ ...options, devicesDir: settings.devicesDir });
  const hostId = settings.hostId;
  if (hostId === undefined) throw new EdgeshifuError('invalid', 'EDGESHIFU_HOST_ID is not set: name the host whose devices to serve (or use --devices-dir without Kubernetes)');
  const { defaultEndpoint, KubeClient: Client } = await import('../../shared/kube/client.ts');
  // two watches per device (its ConfigMap and EdgeDevice) plus the assignment's: no socket cap
  const client = options.client ?? new Client(defaultEndpoint(undefined, env), { maxSockets: Infinity });
  const host = new NodeHost(hostOptions(settings, logger, (assignment, log) => kubeFeed({ client, configNamespace: settings.namespace, telemetryServiceCacheMs: settings.telemetryServiceCacheMs }, assignment, log)));
  const admin = adminServer(host);
  const address = await listenAdmin(admin, settings);
  const assignments = watchAssignments({ client, namespace: settings.namespace, hostId, logger }, (list) => { host.assign(list); });
  await assignments.start();
  logger.info({ hostId, address: `${address.address}:${String(address.port)}` }, 'deviceShifu host listening');
  return {
    host, address,
    stop: async () => {
      await assignments.stop();
      await host.stop();
      await closeAdmin(admin);
      if (options.client === undefined) client.close();
    },
  };
}
