// What a real node needs from the host and changes on it: the Debian packages it runs, the
// private bridge its pods and the node's address live on, and the kernel settings the kubelet,
// the bridge plugin and kube-proxy set, recorded before and put back after.
import { execFile } from 'node:child_process';
import { access, readFile, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The node's network: a host bridge, its gateway is the node's (and the API server's) address. */
export const NETWORK = {
  bridge: 'esrn0',
  gateway: '10.244.0.1',
  podCidr: '10.244.0.0/24',
  serviceCidr: '10.96.0.0/16',
} as const;

/** Each file a real node runs, and the Debian package that brings it. */
export const HOST_PACKAGES: readonly (readonly [string, string])[] = [
  ['/usr/bin/containerd', 'containerd'],
  ['/usr/bin/ctr', 'containerd'],
  ['/usr/sbin/runc', 'runc'],
  ['/usr/lib/cni/bridge', 'containernetworking-plugins'],
  ['/usr/sbin/iptables', 'iptables'],
  ['/usr/sbin/conntrack', 'conntrack'],
  ['/bin/busybox', 'busybox-static'],
  ['/usr/lib/x86_64-linux-gnu/libc.a', 'libc6-dev'],
];

export class RealNodeUnavailable extends Error {
  override readonly name = 'RealNodeUnavailable';
}

/** Throws naming every missing Debian package, so the message says what to install. */
export async function checkHostPackages(): Promise<void> {
  const missing = new Set<string>();
  for (const [file, pkg] of HOST_PACKAGES) await access(file).catch(() => missing.add(pkg));
  if (missing.size > 0) {
    throw new RealNodeUnavailable(`a real node needs Debian packages that are not installed: apt-get install -y ${[...missing].join(' ')}`);
  }
  if (process.getuid?.() !== 0) throw new RealNodeUnavailable('a real node runs containerd and the kubelet: it needs root');
}

/** Kernel settings a real node changes (kubelet, bridge plugin, kube-proxy). */
const SYSCTLS = [
  'vm/overcommit_memory', 'kernel/panic', 'kernel/panic_on_oops', 'net/ipv4/ip_forward',
  'net/ipv4/conf/all/route_localnet', 'net/bridge/bridge-nf-call-iptables',
] as const;

export type HostState = ReadonlyMap<string, string>;

export async function recordHostState(): Promise<HostState> {
  const state = new Map<string, string>();
  for (const key of SYSCTLS) {
    const value = await readFile(`/proc/sys/${key}`, 'utf8').catch(() => undefined);
    if (value !== undefined) state.set(key, value.trim());
  }
  return state;
}

export async function restoreHostState(state: HostState): Promise<void> {
  for (const [key, value] of state) {
    const now = await readFile(`/proc/sys/${key}`, 'utf8').catch(() => value);
    if (now.trim() !== value) await writeFile(`/proc/sys/${key}`, value).catch(() => undefined);
  }
}

async function ip(args: readonly string[]): Promise<string> {
  return (await run('ip', args)).stdout;
}

/** The node's bridge with its gateway address; the bridge plugin attaches pods to it. */
export async function createBridge(): Promise<void> {
  const exists = await ip(['link', 'show', NETWORK.bridge]).then(() => true, () => false);
  if (!exists) await ip(['link', 'add', NETWORK.bridge, 'type', 'bridge']);
  const addresses = await ip(['-4', 'addr', 'show', 'dev', NETWORK.bridge]);
  if (!addresses.includes(`${NETWORK.gateway}/`)) await ip(['addr', 'add', `${NETWORK.gateway}/24`, 'dev', NETWORK.bridge]);
  await ip(['link', 'set', NETWORK.bridge, 'up']);
}

export async function deleteBridge(): Promise<void> {
  await ip(['link', 'del', NETWORK.bridge]).catch(() => undefined);
}

/** Every mount point under `dir`, deepest first (kubelet's own bind mount and pod volumes). */
export async function mountsUnder(dir: string): Promise<string[]> {
  const mounts = (await readFile('/proc/self/mounts', 'utf8')).split('\n').map((l) => l.split(' ')[1] ?? '').filter((m) => m === dir || m.startsWith(`${dir}/`));
  return mounts.map((m) => m.replace(/\\040/g, ' ')).sort((a, b) => b.length - a.length);
}

export async function unmountUnder(dir: string): Promise<void> {
  for (let round = 0; round < 5; round++) {
    const mounts = await mountsUnder(dir);
    if (mounts.length === 0) return;
    for (const mount of mounts) await run('umount', ['-l', mount]).catch(() => undefined);
  }
}

/** The bridge plugin's ipMasq rules and chains for pods whose CNI DEL never ran (by rule number). */
export async function removeCniMasquerade(): Promise<void> {
  const { stdout } = await run('iptables', ['-t', 'nat', '-L', 'POSTROUTING', '-n', '--line-numbers']).catch(() => ({ stdout: '' }));
  const rules = stdout.split('\n').map((line) => /^(\d+)\s+(CNI-\S+)/.exec(line)).filter((m) => m !== null);
  for (const rule of rules.reverse()) {
    await run('iptables', ['-t', 'nat', '-D', 'POSTROUTING', rule[1] ?? '']).catch(() => undefined);
    await run('iptables', ['-t', 'nat', '-F', rule[2] ?? '']).catch(() => undefined);
    await run('iptables', ['-t', 'nat', '-X', rule[2] ?? '']).catch(() => undefined);
  }
}

/** Chains the kubelet makes and never removes (its canary, the hint of the iptables mode, the firewall for 127/8). */
const KUBELET_CHAINS = ['KUBE-FIREWALL', 'KUBE-KUBELET-CANARY', 'KUBE-IPTABLES-HINT'];

export async function removeKubeletChains(): Promise<void> {
  for (const command of ['iptables', 'ip6tables']) {
    for (const table of ['filter', 'nat', 'mangle']) {
      const { stdout } = await run(command, ['-t', table, '-S']).catch(() => ({ stdout: '' }));
      const jumps = stdout.split('\n').filter((r) => r.startsWith('-A ') && KUBELET_CHAINS.some((c) => r.endsWith(`-j ${c}`)));
      for (const rule of jumps) await run(command, ['-t', table, '-D', ...rule.slice(3).split(' ')]).catch(() => undefined);
      for (const chain of KUBELET_CHAINS.filter((c) => stdout.includes(`-N ${c}`))) {
        await run(command, ['-t', table, '-F', chain]).catch(() => undefined);
        await run(command, ['-t', table, '-X', chain]).catch(() => undefined);
      }
    }
  }
}
