// `npm run cluster:up` / `cluster:down`: a local dev control plane that outlives the command, with
// a kubeconfig for kubectl. `npm start` (until the local edge stack lands) runs one in the
// foreground with the CRDs and Shifu's thermometer EdgeDevice, and stops it on Ctrl-C.
import { mkdir, rm, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { startCluster, saveState, stopFromState, type TestCluster } from './cluster.ts';
import { ManagedProcess } from './process.ts';
import { controlPlaneBinaries } from './binaries.ts';
import { Kube } from '../cluster.ts';
import { installCrds } from '../crds.ts';
import { kubectl } from '../kubectl.ts';
import { shifuExample } from '../shifu/index.ts';

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

async function up(): Promise<void> {
  if (await stopFromState(STATE)) console.log('stopped the previous dev cluster');
  await mkdir(DEV_DIR, { recursive: true });
  const cluster = await startCluster({ name: 'edgeshifu-dev', dir: DEV_DIR, detach: true });
  await saveState(STATE, cluster.state());
  await installCrds(new Kube(cluster.kubeconfigPath));
  printHowTo(cluster, await linkKubectl());
  console.log('\nstop it with: npm run cluster:down');
}

async function down(): Promise<void> {
  console.log(await stopFromState(STATE) ? 'dev cluster stopped' : 'no dev cluster was running');
}

/**
 * The main job until the local edge stack lands (issue 9): a control plane with the CRDs, a KWOK
 * edge node, the controller serving the edgeMap, and Shifu's thermometer registered as a user
 * would; everything stops on Ctrl-C.
 */
async function foreground(): Promise<void> {
  const dir = join(HOME, 'local');
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'logs'), { recursive: true });
  console.log('starting the control plane (the first run on a machine builds it: about 10 minutes)...');
  const cluster = await startCluster({ name: 'edgeshifu-local', dir });
  const kube = new Kube(cluster.kubeconfigPath);
  const controller = new ManagedProcess({
    name: 'controller', command: join('node_modules', '.bin', 'tsx'), logFile: join(dir, 'logs', 'controller.log'),
    args: ['controller/main.ts', '--kubeconfig', cluster.kubeconfigPath, '--no-leader-election', '--port', String(PORT)],
  });
  const stop = async (): Promise<void> => {
    console.log('\nstopping...');
    await controller.stop();
    await cluster.stop();
    console.log('stopped; nothing left running.');
  };
  try {
    await installCrds(kube);
    for (const name of ['devices', 'deviceshifu']) await kube.core.createNamespace({ body: { metadata: { name } } });
    await kube.addNode('edge-local', { cpu: '4', memory: '4Gi' });
    await applyYaml(cluster.kubeconfigPath, shifuExample('thermometer-configmap'));
    controller.start();
    const device = shifuExample('thermometer')[0] as unknown as { spec: Record<string, unknown> };
    device.spec.configMapName = 'thermometer-configmap-0.0.1';
    await applyYaml(cluster.kubeconfigPath, [device]);
  } catch (err) {
    await stop();
    throw err;
  }
  printHowTo(cluster, await linkKubectl());
  console.log(`  ${join(HOME, 'bin', 'kubectl')} get deployments,services -n deviceshifu
  edgeMap: http://127.0.0.1:${PORT}/edgemap/   (JSON: /edgemap, Graphviz: /edgemap.dot)
  controller logs: ${controller.spec.logFile}

Ctrl-C stops everything.`);
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

async function applyYaml(kubeconfig: string, objects: readonly unknown[]): Promise<void> {
  const applied = await kubectl(kubeconfig, ['apply', '-f', '-'], objects.map((o) => stringify(o)).join('---\n'));
  if (applied.code !== 0) throw new Error(applied.stderr);
  console.log(applied.stdout.trim());
}

const { positionals, values } = parseArgs({ allowPositionals: true, options: { foreground: { type: 'boolean' } } });
const command = positionals[0];
if (command === 'up' && values.foreground === true) await foreground();
else if (command === 'up') await up();
else if (command === 'down') await down();
else {
  console.error('usage: cli.ts up [--foreground] | down');
  process.exitCode = 2;
}
