// The shared per-node host serving N devices in one process: the esbuild bundle with the flags the
// controller gives the host's pod (HOST_NODE_FLAGS), devices from --devices-dir
// (deviceshifu/host/file-feed.ts), every device an instruction of the bench's path pointing at the
// same trivial device, each on a port of its own. Connection i calls device i mod N, so 16 and 64
// connections spread over the devices. With --kube the host reads its devices from a private
// control plane instead (host-kube.ts).
import { mkdir, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { HOST_NODE_FLAGS } from '../../../controller/bundle/host.ts';
import { madeCgroup, spawnReady, stopChild, type BenchContext, type Target } from '../target.ts';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => { server.listen(0, '127.0.0.1', resolve); });
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => { server.close(resolve); });
  return port;
}

/** Writes N device directories; answers the ports given. */
async function devicesDir(context: BenchContext, n: number): Promise<{ dir: string; ports: number[] }> {
  const dir = join(context.dir, `host-${String(n)}`);
  const ports: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const name = `bench-device-${String(i)}`;
    const device = join(dir, name);
    await mkdir(join(device, 'config'), { recursive: true });
    const port = await freePort();
    ports.push(port);
    await writeFile(join(device, 'port'), `${String(port)}\n`);
    await writeFile(join(device, 'edgedevice.yaml'), ['apiVersion: shifu.edgenesis.io/v1alpha1', 'kind: EdgeDevice', `metadata: {name: ${name}, namespace: devices}`,
      `spec: {sku: BenchDevice, connection: Ethernet, address: "${context.device}", protocol: HTTP}`, ''].join('\n'));
    await writeFile(join(device, 'config', 'driverProperties'), 'driverSku: BenchDevice\ndriverImage: none\n');
    await writeFile(join(device, 'config', 'instructions'), `instructionSettings:\n  defaultTimeoutSeconds: 8\ninstructions:\n  ${context.path}:\n    readWrite: R\n`);
  }
  return { dir, ports };
}

function statusOf(url: string, agent: Agent): Promise<number> {
  return new Promise<number>((resolve) => {
    request(url, { agent }, (res) => { res.resume(); resolve(res.statusCode ?? 0); }).once('error', () => { resolve(0); }).end();
  });
}

async function first200(url: string, agent: Agent, deadline: number): Promise<void> {
  for (;;) {
    const status = await statusOf(url, agent);
    if (status === 200) return;
    if (performance.now() > deadline) throw new Error(`the host did not answer ${url} with 200 within 30 s (last status ${String(status)})`);
    await delay(100);
  }
}

/** Every device's first 200 (30 s at most for all). */
async function firstAnswers(urls: readonly string[]): Promise<void> {
  const agent = new Agent();
  const deadline = performance.now() + 30_000;
  try {
    for (const url of urls) await first200(url, agent, deadline);
  } finally {
    agent.destroy();
  }
}

export function deviceShifuHost(devices: number, variant?: { name: string; flags: readonly string[] }): Target {
  return {
    name: `host ×${String(devices)}${variant === undefined ? '' : ` ${variant.name}`}`,
    start: async (context) => {
      const flags = variant === undefined ? context.nodeFlags ?? [...HOST_NODE_FLAGS] : [...variant.flags];
      const { dir, ports } = await devicesDir(context, devices);
      const kube = context.kube ? await (await import('./host-kube.ts')).hostInCluster(context, ports) : undefined;
      const cgroup = await context.cgroup(`host-${String(devices)}${variant === undefined ? '' : '-variant'}`);
      const args = [...flags, join(context.bundle, 'deviceshifu-host.js'), ...(kube?.args ?? ['--devices-dir', dir]), '--admin-port', '0'];
      const { child } = await spawnReady(process.execPath, args, (l) => l.msg === 'deviceShifu host listening', { cgroup, env: { ...kube?.env, EDGESHIFU_LOG_LEVEL: 'info' } });
      const urls = ports.map((p) => `http://127.0.0.1:${String(p)}/${context.path}`);
      await firstAnswers(urls);
      return {
        urls, pids: [child.pid ?? 0], devices, ...madeCgroup(cgroup),
        describe: `shared host, ${String(devices)} devices, ${kube === undefined ? 'standalone' : 'Kubernetes mode'}: node ${process.version} ${flags.join(' ')} dist/bundle/deviceshifu-host.js`,
        stop: async () => { await stopChild(child, cgroup); await kube?.stop(); },
      };
    },
  };
}
