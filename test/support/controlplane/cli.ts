// `npm run cluster:up` / `cluster:down`: a local dev control plane that outlives the command, with
// a kubeconfig for kubectl. `npm start` (`up --foreground`) runs the local edge stack in the
// foreground (test/support/localstack/stack.ts) and stops it on Ctrl-C; `--clusters 2` adds the
// neighbour cluster edge-2 and a demo offload to it (DRONE).
import { mkdir, rm, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startCluster, saveState, stopFromState, type TestCluster } from './cluster.ts';
import { controlPlaneBinaries } from './binaries.ts';
import { Kube } from '../cluster.ts';
import { installCrds } from '../crds.ts';
import { startLocalStack, type LocalFederation, type LocalStack } from '../localstack/stack.ts';
import { startRealNodeCluster, stopRealNodeFromLock } from '../realnode/node.ts';
import { buildImage } from '../../../image/build.ts';

const HOME = resolve('.edgeshifu');
const DEV_DIR = join(HOME, 'dev-cluster');
const STATE = join(DEV_DIR, 'state.json');
const PORT = 8080;

async function linkKubectl(): Promise<string> {
  const link = join(HOME, 'bin', 'kubectl');
  await mkdir(join(HOME, 'bin'), { recursive: true });
  await rm(link, { force: true });
  await symlink(join(await controlPlaneBinaries(), 'kubectl'), link);
  return link;
}

function printHowTo(cluster: TestCluster, kubectlPath: string): void {
  console.log(`
control plane "${cluster.name}" is up at ${cluster.server} (logs in ${join(cluster.dir, 'logs')})
  export KUBECONFIG=${cluster.kubeconfigPath}
  ${kubectlPath} get nodes,edgedevices,edgenodes -A
  ${kubectlPath} apply -f <your EdgeDevice>.yaml`);
}

/** With `realNode`: a real node (containerd, kubelet, kube-proxy) with the image built here (realnode README). */
async function up(realNode: boolean): Promise<void> {
  if (await stopRealNodeFromLock(DEV_DIR)) console.log('stopped the previous real node');
  if (await stopFromState(STATE)) console.log('stopped the previous dev cluster');
  await rm(join(DEV_DIR, 'real-node'), { recursive: true, force: true });
  await mkdir(DEV_DIR, { recursive: true });
  const images = realNode ? [(await buildImage()).archive] : [];
  const cluster = realNode
    ? (await startRealNodeCluster({ name: 'edgeshifu-dev', dir: DEV_DIR, detach: true, images })).cluster
    : await startCluster({ name: 'edgeshifu-dev', dir: DEV_DIR, detach: true });
  await saveState(STATE, cluster.state());
  await installCrds(new Kube(cluster.kubeconfigPath));
  printHowTo(cluster, await linkKubectl());
  if (realNode) {
    console.log(`  ${await linkKubectl()} apply -k manifests/overlays/single-node    # the image ghcr.io/edgeshifu/edgeshifu:0.1.0 is on the node`);
  }
  console.log('\nstop it with: npm run cluster:down');
}

async function down(): Promise<void> {
  if (await stopRealNodeFromLock(DEV_DIR)) console.log('real node stopped, host restored');
  console.log(await stopFromState(STATE) ? 'dev cluster stopped' : 'no dev cluster was running');
}

function printLocalStack(stack: LocalStack, kubectlPath: string): void {
  printHowTo(stack.cluster, kubectlPath);
  console.log(`  ${kubectlPath} get deployments,pods -n deviceshifu -o wide

devices, each through its deviceShifu (run as a local process by the development runner, not a kubelet):`);
  for (const served of stack.devices) {
    console.log(`  curl ${served.url}/${served.device.tryInstruction}    # ${served.device.edgeDevice} (mock ${served.device.mock} on 127.0.0.1:${String(served.mockPort)})`);
  }
  console.log(`
  edgeMap: ${stack.edgeMapUrl}   (JSON: ${stack.edgeMapUrl.replace(/\/$/, '')}, Graphviz: ${stack.edgeMapUrl.replace(/\/$/, '')}.dot)
  logs: ${join(stack.cluster.dir, 'logs')}`);
  if (stack.federation !== undefined) printFederation(stack.federation, stack.cluster.kubeconfigPath, kubectlPath);
  console.log('\nCtrl-C stops everything.');
}

function printFederation(federation: LocalFederation, homeKubeconfig: string, kubectlPath: string): void {
  const { home, neighbour, demo } = federation;
  const on = (kubeconfig: string): string => `${kubectlPath} --kubeconfig ${kubeconfig}`;
  const there = neighbour.cluster.kubeconfigPath;
  console.log(`
federation (DRONE): this stack is cluster ${home}, its neighbour ${neighbour.id} is a second control plane
  ${neighbour.id}: kubeconfig ${there}, edgeMap ${neighbour.edgeMapUrl}, logs ${join(neighbour.cluster.dir, 'logs')}
  the demo app ${demo.namespace}/${demo.name} (db, then api) ${federation.demoRunning ? 'runs' : 'was sent to be run'} on ${neighbour.id}'s KWOK node ${neighbour.node}:
  its pods are KWOK pods (KWOK reports them Running; nothing executes, and nothing answers at their endpoints)
  ${on(homeKubeconfig)} get dfd,oreq -A    # phase, and where each component runs
  ${on(there)} get hreq -A    # what ${neighbour.id} runs for ${home}
  ${on(there)} get deployments,pods -n drone-${home} -o wide
  ${on(homeKubeconfig)} get federations    # CONNECTED: ${neighbour.id}'s slice adverts arrive
  ${on(there)} get federations`);
}

/**
 * The main job: the local edge stack (test/support/localstack/stack.ts) in the
 * foreground; everything stops on Ctrl-C.
 */
async function foreground(dir: string, port: number, clusters: number): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'logs'), { recursive: true });
  const stack = await startLocalStack({ dir, port, clusters, progress: (line) => { console.log(line); } });
  const stop = async (): Promise<void> => {
    console.log('\nstopping...');
    await stack.stop();
    console.log('stopped; nothing left running.');
  };
  try {
    printLocalStack(stack, await linkKubectl());
  } catch (err) {
    await stop();
    throw err;
  }
  // the children do not hold the event loop open (they are unref'd): this does, until a signal
  const keepAlive = setInterval(() => undefined, 60_000);
  // Ctrl-C reaches this process twice (from the terminal and relayed by tsx): every signal after
  // the first is absorbed so that the clean stop finishes
  await new Promise<void>((done) => {
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
  clearInterval(keepAlive);
  await stop();
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    foreground: { type: 'boolean' }, port: { type: 'string', default: String(PORT) }, dir: { type: 'string', default: join(HOME, 'local') },
    clusters: { type: 'string', default: '1' }, 'real-node': { type: 'boolean' },
  },
});
const command = positionals[0];
const clusters = Number(values.clusters);
if (clusters !== 1 && clusters !== 2) {
  console.error(`--clusters must be 1 or 2 (2 adds the neighbour cluster edge-2 and a demo offload), got "${values.clusters}"`);
  process.exitCode = 2;
} else if (command === 'up' && values.foreground === true) await foreground(resolve(values.dir), Number(values.port), clusters);
else if (command === 'up') await up(values['real-node'] === true);
else if (command === 'down') await down();
else {
  console.error('usage: cli.ts up [--real-node | --foreground [--port 8080] [--dir .edgeshifu/local] [--clusters 1|2]] | down');
  process.exitCode = 2;
}
