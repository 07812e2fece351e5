// deviceShifu as a Shifu user runs it: one process per device, the esbuild bundle with the flags its
// pod gets, an instruction of the bench's path pointing at the device. Standalone (ConfigMap
// directory and EdgeDevice file), or with --kube reading its EdgeDevice from a private control plane.
import { mkdir, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { deviceShifuNodeFlags, imageNodeFlags } from '../../node-flags.ts';
import { madeCgroup, spawnReady, stopChild, type BenchContext, type Target } from '../target.ts';

export function edgeDevice(name: string, address: string): string {
  return ['apiVersion: shifu.edgenesis.io/v1alpha1', 'kind: EdgeDevice', `metadata: {name: ${name}, namespace: devices}`,
    `spec: {sku: BenchDevice, connection: Ethernet, address: "${address}", protocol: HTTP}`, ''].join('\n');
}

/** Each deviceShifu target its own ConfigMap directory and EdgeDevice (`slug` names both). */
async function configFiles(context: BenchContext, slug: string): Promise<{ configDir: string; edgedevice: string; manifest: string; name: string }> {
  const configDir = join(context.dir, `${slug}-config`);
  await mkdir(configDir, { recursive: true });
  await writeFile(join(configDir, 'driverProperties'), 'driverSku: BenchDevice\ndriverImage: none\n');
  await writeFile(join(configDir, 'instructions'), `instructionSettings:\n  defaultTimeoutSeconds: 8\ninstructions:\n  ${context.path}:\n    readWrite: R\n`);
  const name = `edgedevice-bench-${slug}`;
  const manifest = edgeDevice(name, context.device);
  const edgedevice = join(context.dir, `${slug}-edgedevice.yaml`);
  await writeFile(edgedevice, manifest);
  return { configDir, edgedevice, manifest, name };
}

interface SharedCluster { readonly kubeconfig: string; readonly apply: (manifest: string) => Promise<void>; readonly stop: () => Promise<void> }
let shared: { cluster: Promise<SharedCluster>; users: number } | undefined;

/** Kubernetes mode: one private control plane for every deviceShifu target of the run (loaded only with --kube). */
async function startSharedCluster(): Promise<SharedCluster> {
  const [{ startCluster }, { Kube }, { installCrds }, { kubectl }] = await Promise.all([
    import('../../../test/support/controlplane/cluster.ts'), import('../../../test/support/cluster.ts'), import('../../../test/support/crds.ts'), import('../../../test/support/kubectl.ts'),
  ]);
  const cluster = await startCluster({ name: 'edgeshifu-bench-deviceshifu' });
  const kube = new Kube(cluster.kubeconfigPath);
  await installCrds(kube);
  await kube.core.createNamespace({ body: { metadata: { name: 'devices' } } });
  return {
    kubeconfig: cluster.kubeconfigPath,
    apply: async (manifest) => {
      const applied = await kubectl(kube.kubeconfigPath, ['apply', '-f', '-'], manifest);
      if (applied.code !== 0) throw new Error(applied.stderr);
    },
    stop: () => cluster.stop(),
  };
}

/** The shared control plane with `manifest` applied: the environment that names it, and how to let the cluster go. */
export async function kubeEnvironment(manifest: string, name: string): Promise<{ env: NodeJS.ProcessEnv; stop: () => Promise<void> }> {
  shared ??= { cluster: startSharedCluster(), users: 0 };
  const mine = shared;
  mine.users += 1;
  const cluster = await mine.cluster;
  await cluster.apply(manifest);
  return {
    env: { KUBECONFIG: cluster.kubeconfig, EDGEDEVICE_NAME: name, EDGEDEVICE_NAMESPACE: 'devices' },
    stop: async () => {
      mine.users -= 1;
      if (mine.users > 0) return;
      shared = undefined;
      await cluster.stop();
    },
  };
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
export const deviceShifuWith = (name: string, chosenFlags?: () => Promise<string[]>, compare = false): Target => ({
  name,
  ...(compare ? { needs: 'compare-bundle' as const } : {}),
  start: async (context) => {
    const bundle = compare ? context.compareBundle : context.bundle;
    if (bundle === undefined) throw new Error(`${name} needs --compare-bundle <dir>`);
    const flags = chosenFlags === undefined ? (context.nodeFlags ?? deviceShifuNodeFlags()) : await chosenFlags();
    const slug = name.toLowerCase().replace(/[^a-z]+/g, '-').replace(/^-|-$/g, '');
    const files = await configFiles(context, slug);
    const kube = context.kube ? await kubeEnvironment(files.manifest, files.name) : undefined;
    const args = [...flags, join(bundle, 'deviceshifu.js'), '--config-dir', files.configDir, '--port', '0', ...(kube === undefined ? ['--edgedevice-file', files.edgedevice] : [])];
    const cgroup = await context.cgroup(slug);
    const { child, line } = await spawnReady(process.execPath, args, (l) => l.msg === 'deviceShifu listening', { cgroup, env: { ...kube?.env, EDGESHIFU_LOG_LEVEL: 'info' } });
    const url = `http://${String(line.address)}/${context.path}`;
    await firstAnswer(url);
    return {
      urls: [url], pids: [child.pid ?? 0], devices: 1, ...madeCgroup(cgroup),
      describe: `dedicated, ${kube === undefined ? 'standalone' : 'Kubernetes mode'}: node ${process.version} ${flags.join(' ')} ${join(bundle, 'deviceshifu.js')}`,
      stop: async () => { await stopChild(child, cgroup); await kube?.stop(); },
    };
  },
});

export const deviceShifuDedicated = deviceShifuWith('deviceShifu');
/** Without --expose-gc, so without the collection after a load (shared/idle-collector.ts): the A/B of that trade. */
export const deviceShifuNoIdleGc = deviceShifuWith('deviceShifu no idle gc', () => Promise.resolve(deviceShifuNodeFlags().filter((f) => f !== '--expose-gc')));
/** The same with --compare-bundle's build: an A/B of a code change within one run. */
export const deviceShifuCompare = deviceShifuWith('deviceShifu (compare)', undefined, true);
/** The same bundle with the image's flags (--lite-mode), which deviceShifu ran with before it had its own. */
export const deviceShifuImageFlags = deviceShifuWith('deviceShifu (image flags)', imageNodeFlags);
