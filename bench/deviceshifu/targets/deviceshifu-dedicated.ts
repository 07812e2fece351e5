// deviceShifu as a Shifu user runs it: one process per device, the esbuild bundle with the flags its
// pod gets, an instruction of the bench's path pointing at the device. Standalone (ConfigMap
// directory and EdgeDevice file), or with --kube reading its EdgeDevice from a private control plane.
import { mkdir, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { deviceShifuNodeFlags, imageNodeFlags } from '../../node-flags.ts';
import { madeCgroup, spawnReady, stopChild, type BenchContext, type Target } from '../target.ts';

const NAME = 'edgedevice-bench';

function edgeDevice(address: string): string {
  return ['apiVersion: shifu.edgenesis.io/v1alpha1', 'kind: EdgeDevice', `metadata: {name: ${NAME}, namespace: devices}`,
    `spec: {sku: BenchDevice, connection: Ethernet, address: "${address}", protocol: HTTP}`, ''].join('\n');
}

async function configFiles(context: BenchContext): Promise<{ configDir: string; edgedevice: string; manifest: string }> {
  const configDir = join(context.dir, 'deviceshifu-config');
  await mkdir(configDir, { recursive: true });
  await writeFile(join(configDir, 'driverProperties'), 'driverSku: BenchDevice\ndriverImage: none\n');
  await writeFile(join(configDir, 'instructions'), `instructionSettings:\n  defaultTimeoutSeconds: 8\ninstructions:\n  ${context.path}:\n    readWrite: R\n`);
  const manifest = edgeDevice(context.device);
  const edgedevice = join(context.dir, 'edgedevice.yaml');
  await writeFile(edgedevice, manifest);
  return { configDir, edgedevice, manifest };
}

/** Kubernetes mode: a private control plane holding the EdgeDevice (loaded only with --kube). */
async function kubeEnvironment(manifest: string): Promise<{ env: NodeJS.ProcessEnv; stop: () => Promise<void> }> {
  const [{ startCluster }, { Kube }, { installCrds }, { kubectl }] = await Promise.all([
    import('../../../test/support/controlplane/cluster.ts'), import('../../../test/support/cluster.ts'), import('../../../test/support/crds.ts'), import('../../../test/support/kubectl.ts'),
  ]);
  const cluster = await startCluster({ name: 'edgeshifu-bench-deviceshifu' });
  const kube = new Kube(cluster.kubeconfigPath);
  await installCrds(kube);
  await kube.core.createNamespace({ body: { metadata: { name: 'devices' } } });
  const applied = await kubectl(kube.kubeconfigPath, ['apply', '-f', '-'], manifest);
  if (applied.code !== 0) throw new Error(applied.stderr);
  return { env: { KUBECONFIG: cluster.kubeconfigPath, EDGEDEVICE_NAME: NAME, EDGEDEVICE_NAMESPACE: 'devices' }, stop: () => cluster.stop() };
}

/** In Kubernetes mode the EdgeDevice arrives after the port opens: wait for the first 200 (30 s at most). */
async function firstAnswer(url: string): Promise<void> {
  const agent = new Agent();
  const deadline = performance.now() + 30_000;
  try {
    for (;;) {
      const status = await new Promise<number>((resolve) => {
        request(url, { agent }, (res) => { res.resume(); resolve(res.statusCode ?? 0); }).once('error', () => { resolve(0); }).end();
      });
      if (status === 200) return;
      if (performance.now() > deadline) throw new Error(`deviceShifu did not answer ${url} with 200 within 30 s (last status ${String(status)})`);
      await delay(200);
    }
  } finally {
    agent.destroy();
  }
}

/** deviceShifu with `flags` (default: --node-flags, else its own); `name` labels it in the tables. */
export const deviceShifuWith = (name: string, chosenFlags?: () => Promise<string[]>): Target => ({
  name,
  start: async (context) => {
    const flags = chosenFlags === undefined ? (context.nodeFlags ?? deviceShifuNodeFlags()) : await chosenFlags();
    const files = await configFiles(context);
    const kube = context.kube ? await kubeEnvironment(files.manifest) : undefined;
    const args = [...flags, join(context.bundle, 'deviceshifu.js'), '--config-dir', files.configDir, '--port', '0', ...(kube === undefined ? ['--edgedevice-file', files.edgedevice] : [])];
    const cgroup = await context.cgroup(name.replace(/[^a-z]+/gi, '-'));
    const { child, line } = await spawnReady(process.execPath, args, (l) => l.msg === 'deviceShifu listening', { cgroup, env: { ...kube?.env, EDGESHIFU_LOG_LEVEL: 'info' } });
    const url = `http://${String(line.address)}/${context.path}`;
    await firstAnswer(url);
    return {
      urls: [url], pids: [child.pid ?? 0], devices: 1, ...madeCgroup(cgroup),
      describe: `dedicated, ${kube === undefined ? 'standalone' : 'Kubernetes mode'}: node ${process.version} ${flags.join(' ')} dist/bundle/deviceshifu.js`,
      stop: async () => { await stopChild(child, cgroup); await kube?.stop(); },
    };
  },
});

export const deviceShifuDedicated = deviceShifuWith('deviceShifu');
/** The same bundle with the image's flags (--lite-mode), which deviceShifu ran with before it had its own. */
export const deviceShifuImageFlags = deviceShifuWith('deviceShifu, image flags', imageNodeFlags);
