// The local edge stack, what `npm start` runs: the test harness's control plane with the
// CRDs, a KWOK node `edge-local`, the controller (edgeMap), shifud for that node, mock devices
// registered as EdgeDevices, and the development runner (not a kubelet) that runs their
// deviceShifus as local processes. With `clusters: 2` it is DRONE cluster edge-1 of a federation
// with a second control plane edge-2, and offloads a demo app there (federation.ts). Everything
// it starts is stopped by stop(), in reverse order.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startCluster, type TestCluster } from '../controlplane/cluster.ts';
import { freePort } from '../controlplane/ports.ts';
import { ManagedProcess } from '../controlplane/process.ts';
import { Kube } from '../cluster.ts';
import { installCrds } from '../crds.ts';
import { kubectl } from '../kubectl.ts';
import { waitFor } from '../wait.ts';
import { createLogger } from '../../../shared/log.ts';
import { GROUP, VERSION } from '../../../shared/crds/resources.ts';
import { LOCAL_DEVICES, deviceManifests, startMock, type LocalDevice } from './devices.ts';
import { DevelopmentRunner } from './runner.ts';
import { Restarting } from './restarts.ts';
import {
  DEMO, demoManifests, droneArgs, droneEnv, federate, followOffload, heard, NEIGHBOUR_ID, NEIGHBOUR_NODE, planFederation, ROOMY_NODE, SMALL_NODE,
  type DroneMember,
} from './federation.ts';

export const LOCAL_NODE = 'edge-local';
const TSX = join('node_modules', '.bin', 'tsx');

export interface LocalStackOptions {
  /** Emptied by the caller; logs, the cluster and ConfigMap files go here. */
  readonly dir: string;
  /** The controller's HTTP port (edgeMap). */
  readonly port: number;
  readonly progress?: (line: string) => void;
  /** 2: also a neighbour cluster edge-2 and a demo offload to it (DRONE); 1 by default. */
  readonly clusters?: number;
}

export interface ServedDevice {
  readonly device: LocalDevice;
  /** The deviceShifu's base URL, e.g. http://127.0.0.1:40123 */
  readonly url: string;
  readonly mockPort: number;
}

/** The second cluster of `--clusters 2`: a control plane with one roomy KWOK node and its controller. */
export interface NeighbourCluster {
  readonly id: string;
  readonly cluster: TestCluster;
  readonly controller: Restarting;
  readonly node: string;
  readonly edgeMapUrl: string;
}

export interface LocalFederation {
  /** This stack's DRONE cluster id. */
  readonly home: string;
  readonly neighbour: NeighbourCluster;
  readonly demo: { readonly namespace: string; readonly name: string };
  /** Whether the demo reached RUNNING while the stack started. */
  readonly demoRunning: boolean;
}

export interface LocalStack {
  readonly cluster: TestCluster;
  readonly controller: Restarting;
  readonly shifud: Restarting;
  readonly devices: readonly ServedDevice[];
  readonly edgeMapUrl: string;
  readonly federation?: LocalFederation;
  stop(): Promise<void>;
}

type Stopper = () => Promise<void>;

async function stopAll(stoppers: Stopper[]): Promise<void> {
  for (const stop of stoppers.splice(0).reverse()) await stop().catch((err: unknown) => { console.error(`while stopping: ${(err as Error).message}`); });
}

export async function applyObjects(kubeconfig: string, objects: readonly unknown[]): Promise<string> {
  const applied = await kubectl(kubeconfig, ['apply', '-f', '-'], objects.map((o) => stringify(o)).join('---\n'));
  if (applied.code !== 0) throw new Error(applied.stderr);
  return applied.stdout.trim();
}

/** A component process, restarted when it crashes as the kubelet would restart its container. */
function component(name: string, logFile: string, env: Readonly<Record<string, string>>, args: readonly string[]): Restarting {
  const restarting = new Restarting(new ManagedProcess({ name, command: TSX, args, logFile, env }), createLogger('localstack', { destination: process.stderr }));
  restarting.start();
  return restarting;
}

function controllerArgs(kubeconfig: string, port: number): string[] {
  return ['controller/main.ts', '--kubeconfig', kubeconfig, '--no-leader-election', '--port', String(port),
    // a device waiting for room is looked at again within seconds, not the production minute
    '--resync-seconds', '10',
    // the development runner enforces no requests, and shifud measures this whole (often busy)
    // machine: at 0m free CPU a 10m request would leave every deviceShifu Pending
    '--cpu-request', '0'];
}

/** edge-2: its own control plane, a roomy KWOK node (no development runner: its pods are KWOK's), Secrets, Federation, controller. */
async function startNeighbour(self: DroneMember, home: DroneMember, dir: string, stoppers: Stopper[]): Promise<NeighbourCluster> {
  const neighbourDir = join(dir, self.id);
  const cluster = await startCluster({ name: `edgeshifu-${self.id}`, dir: neighbourDir });
  stoppers.push(() => cluster.stop());
  const kube = new Kube(cluster.kubeconfigPath);
  await installCrds(kube);
  await kube.core.createNamespace({ body: { metadata: { name: 'deviceshifu' } } });
  await kube.addNode(NEIGHBOUR_NODE, ROOMY_NODE);
  await federate(kube, self, home);
  const port = await freePort();
  const controller = component('controller', join(neighbourDir, 'logs', 'controller.log'), droneEnv(self), [...controllerArgs(cluster.kubeconfigPath, port), ...droneArgs(self)]);
  stoppers.push(() => controller.stop());
  return { id: self.id, cluster, controller, node: NEIGHBOUR_NODE, edgeMapUrl: `http://127.0.0.1:${String(port)}/edgemap/` };
}

/** The demo: both clusters hear each other, then the app is applied on edge-1 as a user would, and followed to RUNNING. */
async function offloadDemo(kube: Kube, neighbour: NeighbourCluster, home: string, progress: (line: string) => void): Promise<boolean> {
  progress(`waiting for ${home} and ${neighbour.id} to hear each other's slice adverts (kubectl get federations)...`);
  await Promise.all([heard(kube, neighbour.id), heard(new Kube(neighbour.cluster.kubeconfigPath), home)]);
  progress(`offloading a demo app: ${home}'s node is too small for it, so DRONE places it on ${neighbour.id}`);
  return followOffload(kube, progress, async () => { progress(await applyObjects(kube.kubeconfigPath, demoManifests())); });
}

async function healthy(url: string): Promise<boolean> {
  const reply = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
  return reply?.ok === true;
}

async function servedDevices(runner: DevelopmentRunner, mocks: readonly { device: LocalDevice; port: number }[]): Promise<ServedDevice[]> {
  return waitFor('every deviceShifu to run and answer /health', async () => {
    const served: ServedDevice[] = [];
    for (const { device, port } of mocks) {
      const local = runner.running().find((p) => p.env.EDGEDEVICE_NAME === device.edgeDevice);
      const url = local === undefined ? '' : `http://127.0.0.1:${String(local.port)}`;
      if (local === undefined || !(await healthy(url))) return undefined;
      served.push({ device, url, mockPort: port });
    }
    return served;
  }, { timeoutMs: 180_000, intervalMs: 500 });
}

async function startEdge(kube: Kube, dir: string, stoppers: Stopper[], progress: (line: string) => void): Promise<ServedDevice[]> {
  const logFile = createWriteStream(join(dir, 'logs', 'runner.log'), { flags: 'a' });
  stoppers.push(async () => { logFile.end(); await once(logFile, 'close'); });
  const runner = new DevelopmentRunner({
    kc: kube.kc, core: kube.core, kubeconfigPath: kube.kubeconfigPath, namespace: 'deviceshifu', nodeName: LOCAL_NODE, dir,
    logger: createLogger('localstack-runner', { destination: logFile }),
  });
  stoppers.push(() => runner.stop());
  await runner.start();
  progress('starting the mock devices...');
  const mocks = await Promise.all(LOCAL_DEVICES.map(async (device) => {
    const mock = await startMock(device, join(dir, 'logs'));
    stoppers.push(() => mock.process.stop());
    return mock;
  }));
  progress(await applyObjects(kube.kubeconfigPath, mocks.flatMap(deviceManifests)));
  progress('waiting for the deviceShifus (the development runner starts one per Pod on edge-local)...');
  return servedDevices(runner, mocks);
}

/** Brings the stack up; on failure stops what it started and rethrows. */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const { dir, port } = options;
  const progress = options.progress ?? ((): void => undefined);
  const plan = options.clusters === 2 ? await planFederation() : undefined;
  const stoppers: Stopper[] = [];
  try {
    progress('starting the control plane (the first run on a machine builds it: about 10 minutes)...');
    const cluster = await startCluster({ name: 'edgeshifu-local', dir });
    stoppers.push(() => cluster.stop());
    const kube = new Kube(cluster.kubeconfigPath);
    await installCrds(kube);
    for (const name of ['devices', 'deviceshifu']) await kube.core.createNamespace({ body: { metadata: { name } } });
    await kube.addNode(LOCAL_NODE, plan === undefined ? { cpu: '4', memory: '4Gi' } : SMALL_NODE);
    let neighbour: NeighbourCluster | undefined;
    if (plan !== undefined) {
      progress(`starting the neighbour cluster ${NEIGHBOUR_ID} (a second control plane) and joining both into a DRONE federation...`);
      await federate(kube, plan.home, plan.neighbour);
      neighbour = await startNeighbour(plan.neighbour, plan.home, dir, stoppers);
    }
    progress('starting the controller and shifud...');
    const controller = component('controller', join(dir, 'logs', 'controller.log'), plan === undefined ? {} : droneEnv(plan.home),
      [...controllerArgs(cluster.kubeconfigPath, port), ...(plan === undefined ? [] : droneArgs(plan.home))]);
    stoppers.push(() => controller.stop());
    const shifud = component('shifud', join(dir, 'logs', 'shifud.log'), { NODE_NAME: LOCAL_NODE, KUBECONFIG: cluster.kubeconfigPath }, ['shifud/main.ts']);
    stoppers.push(() => shifud.stop());
    // the controller places deviceShifus by what shifud measured: register devices once it has reported
    await waitFor(`shifud's EdgeNode ${LOCAL_NODE} to report free resources`, async () => {
      const edgeNode = await kube.custom.getClusterCustomObject({ group: GROUP, version: VERSION, plural: 'edgenodes', name: LOCAL_NODE }) as { status?: { free?: object } };
      return edgeNode.status?.free;
    }, { timeoutMs: 60_000, abortIf: () => (shifud.process.running ? undefined : `shifud exited:\n${shifud.process.tail()}`) });
    const devices = await startEdge(kube, dir, stoppers, progress);
    const federation = plan === undefined || neighbour === undefined ? undefined
      : { home: plan.home.id, neighbour, demo: DEMO, demoRunning: await offloadDemo(kube, neighbour, plan.home.id, progress) };
    return { cluster, controller, shifud, devices, edgeMapUrl: `http://127.0.0.1:${String(port)}/edgemap/`, ...(federation === undefined ? {} : { federation }), stop: () => stopAll(stoppers) };
  } catch (err) {
    await stopAll(stoppers);
    throw err;
  }
}
