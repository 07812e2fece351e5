// A real Kubernetes control plane on loopback, as in k3s: kine on sqlite as the datastore,
// kube-apiserver, kube-controller-manager (ReplicaSets, Pods, garbage collection), kube-scheduler,
// and KWOK so that nodes and their pods exist without a kubelet (build.sh builds them).
import { randomBytes } from 'node:crypto';
import { request } from 'node:https';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { controlPlaneBinaries } from './binaries.ts';
import { writeKubeconfig } from './kubeconfig.ts';
import { makePki, type Pki } from './pki.ts';
import { freePorts } from './ports.ts';
import { ManagedProcess, isAlive, killGroup } from './process.ts';
import { waitFor } from '../wait.ts';

export const COMPONENTS = ['kine', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok'] as const;
export type Component = (typeof COMPONENTS)[number];

/** Annotation that tells this cluster's KWOK to manage a node. */
export const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';

export interface ClusterOptions {
  /** Names the kubeconfig context and the temp folder. */
  readonly name?: string;
  /** Where certificates, the database and logs go; a fresh temp folder by default. */
  readonly dir?: string;
  /** Let the processes outlive this Node process (`npm run cluster:up`). */
  readonly detach?: boolean;
  /**
   * The one address the API server binds and advertises; 127.0.0.1 by default. A real node's pods
   * reach the API through the `kubernetes` Service, which leads to the advertised address, so a
   * cluster with a real node uses the node's private bridge address here (never 0.0.0.0).
   */
  readonly apiAddress?: string;
  /**
   * kube-controller-manager's and kube-scheduler's client rate (`--kube-api-qps`, burst twice it);
   * their default, 20 and 50, caps how fast Deployments become Pods (a benchmark at scale raises it).
   */
  readonly kubeApiQps?: number;
  /**
   * The folder for kine's sqlite file; the cluster's folder by default. A benchmark at scale puts
   * it on tmpfs so that the shared disk's fsync latency does not pace every write.
   */
  readonly datastoreDir?: string;
}

interface Ports {
  readonly kine: number;
  readonly kineMetrics: number;
  readonly apiserver: number;
  readonly controllerManager: number;
  readonly scheduler: number;
  readonly kwok: number;
}

/** What `cluster:down` needs to find a detached cluster again. */
export interface ClusterState {
  readonly name: string;
  readonly dir: string;
  readonly server: string;
  readonly kubeconfig: string;
  readonly pids: Partial<Record<Component, number>>;
}

interface Layout { readonly dir: string; readonly pki: Pki; readonly ports: Ports; readonly binDir: string; readonly apiAddress: string; readonly kubeApiQps?: number | undefined; readonly datastoreDir?: string | undefined }

function componentArgs(component: Component, { dir, pki, ports, binDir, apiAddress, kubeApiQps, datastoreDir }: Layout): string[] {
  const kubeconfig = join(dir, 'admin.kubeconfig');
  const rate = kubeApiQps === undefined ? [] : [`--kube-api-qps=${kubeApiQps}`, `--kube-api-burst=${kubeApiQps * 2}`];
  const serving = [`--tls-cert-file=${pki.servingCert}`, `--tls-private-key-file=${pki.servingKey}`];
  switch (component) {
    case 'kine':
      return [`--listen-address=127.0.0.1:${ports.kine}`, `--metrics-bind-address=127.0.0.1:${ports.kineMetrics}`,
        `--endpoint=sqlite://${join(datastoreDir ?? dir, 'kine.db')}?_journal=WAL&cache=shared&_busy_timeout=30000`];
    case 'kube-apiserver':
      return [`--etcd-servers=http://127.0.0.1:${ports.kine}`, `--bind-address=${apiAddress}`, `--advertise-address=${apiAddress}`,
        `--secure-port=${ports.apiserver}`, ...serving,
        `--kubelet-client-certificate=${pki.kubeletClientCert}`, `--kubelet-client-key=${pki.kubeletClientKey}`,
        // a node's name need not resolve (a real node's is not in DNS): reach kubelets by address
        '--kubelet-preferred-address-types=InternalIP,Hostname',
        `--client-ca-file=${pki.caCert}`, `--service-account-key-file=${pki.serviceAccountPub}`,
        `--service-account-signing-key-file=${pki.serviceAccountKey}`,
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local', '--authorization-mode=Node,RBAC',
        '--service-cluster-ip-range=10.96.0.0/16', '--allow-privileged=true', '--profiling=false',
        '--enable-priority-and-fairness=false', '--storage-backend=etcd3', '--v=1'];
    case 'kube-controller-manager':
      return [`--kubeconfig=${kubeconfig}`, `--authentication-kubeconfig=${kubeconfig}`, `--authorization-kubeconfig=${kubeconfig}`,
        '--bind-address=127.0.0.1', `--secure-port=${ports.controllerManager}`, '--leader-elect=false', ...serving,
        `--service-account-private-key-file=${pki.serviceAccountKey}`, `--root-ca-file=${pki.caCert}`,
        '--controllers=*,-nodeipam,-cloud-node-lifecycle,-service-lb-controller,-node-route-controller',
        ...rate, '--profiling=false', '--v=1'];
    case 'kube-scheduler':
      return [`--kubeconfig=${kubeconfig}`, `--authentication-kubeconfig=${kubeconfig}`, `--authorization-kubeconfig=${kubeconfig}`,
        '--bind-address=127.0.0.1', `--secure-port=${ports.scheduler}`, '--leader-elect=false', ...serving, ...rate, '--profiling=false', '--v=1'];
    case 'kwok':
      return [`--kubeconfig=${kubeconfig}`, '--manage-all-nodes=false',
        `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=fake`, '--cidr=10.0.0.1/16',
        '--node-ip=10.0.0.1', `--server-address=127.0.0.1:${ports.kwok}`, '--node-lease-duration-seconds=40',
        `--config=${join(binDir, 'kwok-stages.yaml')}`];
  }
}

export class TestCluster {
  readonly name: string;
  readonly dir: string;
  readonly server: string;
  readonly kubeconfigPath: string;
  private readonly pki: Pki;
  private readonly ports: Ports;
  readonly apiAddress: string;
  private readonly processes: ReadonlyMap<Component, ManagedProcess>;

  constructor(init: Layout & { name: string; detach: boolean }) {
    this.name = init.name;
    this.dir = init.dir;
    this.pki = init.pki;
    this.ports = init.ports;
    this.apiAddress = init.apiAddress;
    this.server = `https://${init.apiAddress}:${init.ports.apiserver}`;
    this.kubeconfigPath = join(init.dir, 'admin.kubeconfig');
    this.processes = new Map(COMPONENTS.map((component) => [component, new ManagedProcess({
      name: component,
      command: join(init.binDir, component),
      args: componentArgs(component, init),
      logFile: join(init.dir, 'logs', `${component}.log`),
      detach: init.detach,
    })]));
  }

  /** A fresh client configuration for the admin user. */
  kubeConfig(): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromFile(this.kubeconfigPath);
    return kc;
  }

  process(component: Component): ManagedProcess {
    const managed = this.processes.get(component);
    if (managed === undefined) throw new Error(`unknown component ${component}`);
    return managed;
  }

  state(): ClusterState {
    const pids: Partial<Record<Component, number>> = {};
    for (const [component, managed] of this.processes) if (managed.pid !== undefined) pids[component] = managed.pid;
    return { name: this.name, dir: this.dir, server: this.server, kubeconfig: this.kubeconfigPath, pids };
  }

  async startComponent(component: Component): Promise<void> {
    this.process(component).start();
    await this.waitHealthy(component);
  }

  /** Stops one component the way an operator would (SIGTERM), or kills it as a crash would. */
  async stopComponent(component: Component, how: 'stop' | 'kill' = 'stop'): Promise<void> {
    const managed = this.process(component);
    await (how === 'kill' ? managed.kill() : managed.stop());
  }

  async restartComponent(component: Component): Promise<void> {
    await this.stopComponent(component);
    await this.startComponent(component);
  }

  async stop(options: { keepDir?: boolean } = {}): Promise<void> {
    for (const component of [...COMPONENTS].reverse()) await this.process(component).stop();
    if (options.keepDir !== true) await rm(this.dir, { recursive: true, force: true });
  }

  /** kine's Prometheus metrics (its SQL statements' counts and times), plain HTTP on loopback. */
  get kineMetricsUrl(): string { return `http://127.0.0.1:${this.ports.kineMetrics}/metrics`; }

  /** The cluster's CA and keys (a real node's certificates are signed by this CA). */
  get certificates(): Pki { return this.pki; }

  /** Status code of GET https://<host>:<port><path> as the admin. */
  async get(port: number, path: string, host = '127.0.0.1'): Promise<number> {
    const [ca, cert, key] = await Promise.all([this.pki.caCert, this.pki.adminCert, this.pki.adminKey].map((f) => readFile(f)));
    return new Promise((resolve, reject) => {
      const req = request({ host, port, path, ca, cert, key, timeout: 5000 }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      req.end();
    });
  }

  private async probe(component: Component): Promise<boolean> {
    switch (component) {
      case 'kine': return canConnect(this.ports.kine);
      case 'kube-apiserver': return (await this.get(this.ports.apiserver, '/readyz', this.apiAddress)) === 200;
      case 'kube-controller-manager': return (await this.get(this.ports.controllerManager, '/healthz')) === 200;
      case 'kube-scheduler': return (await this.get(this.ports.scheduler, '/healthz')) === 200;
      case 'kwok': return (await plainGet(this.ports.kwok, '/healthz')) === 200;
    }
  }

  private async waitHealthy(component: Component): Promise<void> {
    const managed = this.process(component);
    await waitFor(`${component} of cluster ${this.name} to become healthy`, async () => (await this.probe(component)) ? true : undefined, {
      timeoutMs: 120_000,
      intervalMs: 200,
      abortIf: () => managed.running ? undefined : `${component} exited; its log ends with:\n${managed.tail()}`,
    });
  }
}

async function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => { resolve(false); });
  });
}

async function plainGet(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, timeout: 5000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** Starts a whole control plane and waits until every component is healthy. */
export async function startCluster(options: ClusterOptions = {}): Promise<TestCluster> {
  const name = options.name ?? `edgeshifu-test-${process.pid}-${randomBytes(3).toString('hex')}`;
  const dir = options.dir ?? await mkdtemp(join(tmpdir(), `${name}-`));
  await mkdir(join(dir, 'logs'), { recursive: true });
  const apiAddress = options.apiAddress ?? '127.0.0.1';
  const [binDir, pki, portList] = await Promise.all([controlPlaneBinaries(), makePki(join(dir, 'pki'), apiAddress), freePorts(6)]);
  const [kine, kineMetrics, apiserver, controllerManager, scheduler, kwok] = portList as [number, number, number, number, number, number];
  const ports: Ports = { kine, kineMetrics, apiserver, controllerManager, scheduler, kwok };
  const cluster = new TestCluster({ name, dir, pki, ports, binDir, apiAddress, kubeApiQps: options.kubeApiQps, datastoreDir: options.datastoreDir, detach: options.detach === true });
  await writeKubeconfig(cluster.kubeconfigPath, {
    server: cluster.server, caCert: pki.caCert, clientCert: pki.adminCert, clientKey: pki.adminKey, contextName: name,
  });
  try {
    await cluster.startComponent('kine');
    await cluster.startComponent('kube-apiserver');
    await Promise.all((['kube-controller-manager', 'kube-scheduler', 'kwok'] as const).map((c) => cluster.startComponent(c)));
  } catch (err) {
    await cluster.stop({ keepDir: true });
    throw err;
  }
  return cluster;
}

/** Records a detached cluster so `cluster:down` can stop it from another process. */
export async function saveState(path: string, state: ClusterState): Promise<void> {
  await writeFile(path, JSON.stringify(state, null, 2));
}

/** Stops a detached cluster recorded by saveState; true when something was running. */
export async function stopFromState(path: string): Promise<boolean> {
  let state: ClusterState;
  try {
    state = JSON.parse(await readFile(path, 'utf8')) as ClusterState;
  } catch {
    return false;
  }
  const pids = COMPONENTS.map((c) => state.pids[c]).filter((pid): pid is number => pid !== undefined).reverse();
  for (const pid of pids) killGroup(pid, 'SIGTERM');
  await waitFor('the dev cluster to stop', () => pids.every((pid) => !isAlive(pid)) ? true : undefined, { timeoutMs: 15_000 })
    .catch(() => { for (const pid of pids) killGroup(pid, 'SIGKILL'); });
  await rm(path, { force: true });
  return true;
}
