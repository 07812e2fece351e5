// Takes a real node down and puts the host back: pod sandboxes stopped through the CRI (so the
// bridge plugin removes its addresses and masquerade rules), containerd and its shims stopped,
// kube-proxy's rules removed (kube-proxy --cleanup), kubepods cgroups, mounts, network namespaces
// and the bridge removed, kernel settings restored. Works from a record on disk, so
// `cluster:down` and a later run after a crash can do it too.
import { execFile } from 'node:child_process';
import { readdir, readFile, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isAlive, killGroup } from '../controlplane/process.ts';
import { waitFor } from '../wait.ts';
import { SOCKET, STATE_DIR } from './containerd.ts';
import { deleteBridge, removeCniMasquerade, removeKubeletChains, restoreHostState, unmountUnder } from './host.ts';

const run = promisify(execFile);

export interface NodeRecord {
  readonly dir: string;
  readonly binDir: string;
  readonly kubeProxyConfig: string;
  readonly pids: { readonly containerd?: number; readonly kubelet?: number; readonly kubeProxy?: number };
  readonly hostState: Readonly<Record<string, string>>;
}

async function stopPid(pid: number | undefined): Promise<void> {
  if (pid === undefined || !isAlive(pid)) return;
  killGroup(pid, 'SIGTERM');
  await waitFor(`process ${pid} to stop`, () => isAlive(pid) ? undefined : true, { timeoutMs: 15_000 })
    .catch(() => { killGroup(pid, 'SIGKILL'); });
}

/** Processes whose command line names this node's containerd socket (its shims). */
async function shimPids(): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes('containerd-shim') && cmdline.includes(SOCKET)) pids.push(Number(entry));
  }
  return pids;
}

async function removeCgroup(dir: string): Promise<void> {
  for (const pid of (await readFile(join(dir, 'cgroup.procs'), 'utf8').catch(() => '')).split('\n').filter(Boolean)) {
    try { process.kill(Number(pid), 'SIGKILL'); } catch { /* gone already */ }
  }
  const gone = (err: unknown): true | undefined => (err as NodeJS.ErrnoException).code === 'ENOENT' ? true : undefined;
  await waitFor(`cgroup ${dir} to be removed`, async () => rmdir(dir).then(() => true, gone), { timeoutMs: 10_000 }).catch(() => undefined);
}

/** Kills what is left in the kubepods cgroups, then removes them deepest first. */
async function removeKubepodsCgroups(): Promise<void> {
  for (const controller of await readdir('/sys/fs/cgroup').catch(() => [])) {
    const top = join('/sys/fs/cgroup', controller, 'kubepods');
    const dirs = (await readdir(top, { recursive: true, withFileTypes: true }).catch(() => []))
      .filter((e) => e.isDirectory()).map((e) => join(e.parentPath, e.name)).sort((a, b) => b.length - a.length);
    for (const dir of [...dirs, top]) await removeCgroup(dir);
  }
}

/** containerd's pod network namespaces (bind mounts under /var/run/netns named cni-*). */
async function removePodNetns(): Promise<void> {
  for (const name of (await readdir('/var/run/netns').catch(() => [])).filter((n) => n.startsWith('cni-'))) {
    await run('umount', ['-l', join('/var/run/netns', name)]).catch(() => undefined);
    await rm(join('/var/run/netns', name), { force: true });
  }
}

export async function teardownNode(record: NodeRecord): Promise<void> {
  await stopPid(record.pids.kubelet);
  if (record.pids.containerd !== undefined && isAlive(record.pids.containerd)) {
    // stops and removes every pod sandbox: the CNI DEL of each runs
    await run(join(record.binDir, 'crictl'), ['--runtime-endpoint', `unix://${SOCKET}`, '--timeout', '60s', 'rmp', '--all', '--force'], { timeout: 120_000 }).catch(() => undefined);
  }
  await stopPid(record.pids.containerd);
  for (const pid of await shimPids()) await stopPid(pid);
  await stopPid(record.pids.kubeProxy);
  await run(join(record.binDir, 'kube-proxy'), ['--cleanup', `--config=${record.kubeProxyConfig}`], { timeout: 60_000 }).catch(() => undefined);
  await removeKubepodsCgroups();
  await removePodNetns();
  await unmountUnder(record.dir);
  await unmountUnder(STATE_DIR);
  await removeCniMasquerade();
  await removeKubeletChains();
  await deleteBridge();
  await restoreHostState(new Map(Object.entries(record.hostState)));
  await rm(STATE_DIR, { recursive: true, force: true });
}
