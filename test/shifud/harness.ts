// What the shifud tests share: a configuration with fast periods, shifud started against a real
// API server and stopped at the end, EdgeDevices to probe, and mock devices on 127.0.0.1:0.
import { createServer, type Server, type Socket } from 'node:net';
import type { ExecutionContext } from 'ava';
import type { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';
import { API_VERSION, EDGE_DEVICE, EDGE_NODE, GROUP, VERSION } from '../../shared/crds/resources.ts';
import type { Condition } from '../../shared/crds/schema.ts';
import { KubeClient } from '../../shared/kube/client.ts';
import { createLogger, type Logger } from '../../shared/log.ts';
import { loadShifudConfig, type ShifudConfig } from '../../shifud/config.ts';
import type { EdgeDevice } from '../../shared/crds/edgedevice.ts';
import type { EdgeNode } from '../../shifud/node-status.ts';
import type { NodeSample } from '../../shifud/sample.ts';
import { Shifud, type ShifudDeps } from '../../shifud/shifud.ts';
import type { Kube } from '../support/cluster.ts';
import { waitFor } from '../support/wait.ts';

export const quietLogger: Logger = createLogger('shifud-test', { level: 'silent' });

/** Defaults with periods short enough for tests; `overrides` win. */
export function fastConfig(nodeName: string, overrides: Partial<ShifudConfig> = {}): ShifudConfig {
  return {
    ...loadShifudConfig([], { EDGESHIFU_NODE_NAME: nodeName }),
    sampleIntervalSeconds: 0.2, heartbeatSeconds: 2, minWriteIntervalSeconds: 0,
    probeIntervalSeconds: 0.2, probeJitter: 0.2, probeTimeoutMs: 500, usbIntervalSeconds: 0.2,
    // a free port each, no host USB directories
    healthPort: 0, usbWatchPaths: [],
    ...overrides,
  };
}

/** A plausible sample; `over` replaces parts of it. */
export function nodeSample(over: Partial<NodeSample> = {}): NodeSample {
  return {
    takenAt: 0,
    cpu: { cores: 4, loadPercent: 10 },
    memory: { totalBytes: 8 * 2 ** 30, availableBytes: 6 * 2 ** 30 },
    disk: { totalBytes: 100 * 2 ** 30, availableBytes: 50 * 2 ** 30 },
    interfaces: [{ name: 'eth0', addresses: ['192.0.2.10/24'] }],
    ...over,
  };
}

/** shifud's own client (KubeClient) on the test cluster, closed when the test ends. */
export function kubeClient(t: ExecutionContext, kube: Kube): KubeClient {
  const client = KubeClient.fromKubeconfig(kube.kubeconfigPath);
  t.teardown(() => { client.close(); });
  return client;
}

export async function startShifud(t: ExecutionContext, kube: Kube, config: ShifudConfig, deps: Partial<ShifudDeps> = {}): Promise<Shifud> {
  const shifud = new Shifud(config, { client: deps.client ?? kubeClient(t, kube), logger: quietLogger, ...deps });
  t.teardown(async () => {
    await shifud.stop();
    await deleteEdgeNode(kube, config.nodeName);
  });
  await shifud.start();
  return shifud;
}

export async function readEdgeNode(kube: Kube, name: string): Promise<EdgeNode | undefined> {
  return kube.custom.getClusterCustomObject({ group: GROUP, version: VERSION, plural: EDGE_NODE.plural, name })
    .then((o) => o as EdgeNode, () => undefined);
}

export async function deleteEdgeNode(kube: Kube, name: string): Promise<void> {
  await kube.custom.deleteClusterCustomObject({ group: GROUP, version: VERSION, plural: EDGE_NODE.plural, name }).catch(() => undefined);
}

export async function createDevice(kube: Kube, namespace: string, name: string, spec: EdgeDeviceSpec): Promise<EdgeDevice> {
  const body = { apiVersion: API_VERSION, kind: EDGE_DEVICE.kind, metadata: { name, namespace }, spec };
  return await kube.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, plural: EDGE_DEVICE.plural, namespace, body }) as EdgeDevice;
}

export async function readDevice(kube: Kube, namespace: string, name: string): Promise<EdgeDevice> {
  return await kube.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: EDGE_DEVICE.plural, namespace, name }) as EdgeDevice;
}

export function reachable(device: EdgeDevice): Condition | undefined {
  return device.status?.conditions?.find((c) => c.type === 'Reachable');
}

/** Waits until the device's Reachable condition has this status (and reason, when given). */
export interface ReachableWanted {
  readonly status: Condition['status'];
  readonly reason?: string;
  readonly timeoutMs?: number;
}

export async function waitReachable(kube: Kube, namespace: string, name: string, { status, reason, timeoutMs = 30_000 }: ReachableWanted): Promise<Condition> {
  return waitFor(`${namespace}/${name} Reachable=${status}${reason === undefined ? '' : ` (${reason})`}`, async () => {
    const condition = reachable(await readDevice(kube, namespace, name));
    return condition?.status === status && (reason === undefined || condition.reason === reason) ? condition : undefined;
  }, { timeoutMs });
}

/**
 * A TCP device on 127.0.0.1: up() listens (on the same port each time), down() closes it and
 * every connection. `answer` replies to each connection; without it the device accepts and hangs.
 */
export class MockDevice {
  port = 0;
  /** Most connections open at once, and connections accepted in all: what the device saw of shifud. */
  readonly stats = { maxOpen: 0, accepted: 0 };
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly answer: ((socket: Socket) => void) | undefined;

  constructor(answer?: (socket: Socket) => void) {
    this.answer = answer;
  }

  async up(): Promise<this> {
    const server = createServer((socket) => {
      this.sockets.add(socket);
      this.stats.accepted += 1;
      this.stats.maxOpen = Math.max(this.stats.maxOpen, this.sockets.size);
      socket.on('error', () => undefined);
      socket.once('close', () => this.sockets.delete(socket));
      // a hanging device still reads, so it notices when shifud hangs up
      if (this.answer === undefined) socket.resume();
      else this.answer(socket);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => { resolve(); });
    });
    const address = server.address();
    if (typeof address === 'object' && address !== null) this.port = address.port;
    this.server = server;
    return this;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server !== undefined) await new Promise<void>((resolve) => { server.close(() => { resolve(); }); });
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }
}

/** Answers any request with an HTTP 200 and `body`. */
export function httpAnswer(body: string): (socket: Socket) => void {
  return (socket) => {
    socket.once('data', () => { socket.end(`HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`); });
  };
}
