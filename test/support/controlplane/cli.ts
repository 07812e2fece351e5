// `npm run cluster:up` / `cluster:down`: a local dev control plane that outlives the command, with
// a kubeconfig for kubectl. `npm start` (until the local edge stack lands) runs one in the
// foreground with the CRDs and Shifu's thermometer EdgeDevice, and stops it on Ctrl-C.
import { mkdir, rm, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startCluster, saveState, stopFromState, type TestCluster } from './cluster.ts';
import { controlPlaneBinaries } from './binaries.ts';
import { Kube } from '../cluster.ts';
import { installCrds } from '../crds.ts';
import { kubectl } from '../kubectl.ts';
import { shifuExample } from '../shifu/index.ts';

const HOME = resolve('.edgeshifu');
const DEV_DIR = join(HOME, 'dev-cluster');
const STATE = join(DEV_DIR, 'state.json');

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

/** The placeholder main job: a control plane with the CRDs and a Shifu device, until Ctrl-C. */
async function foreground(): Promise<void> {
  const dir = join(HOME, 'local');
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  console.log('starting the control plane (the first run on a machine builds it: about 10 minutes)...');
  const cluster = await startCluster({ name: 'edgeshifu-local', dir });
  const kube = new Kube(cluster.kubeconfigPath);
  await installCrds(kube);
  await kube.core.createNamespace({ body: { metadata: { name: 'devices' } } });
  const applied = await kubectl(cluster.kubeconfigPath, ['apply', '-f', '-'], JSON.stringify(shifuExample('thermometer')[0]));
  console.log(applied.stdout.trim() || applied.stderr.trim());
  printHowTo(cluster, await linkKubectl());
  console.log('\nCtrl-C stops everything.');
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  console.log('\nstopping...');
  await cluster.stop();
  console.log('stopped; nothing left running.');
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
