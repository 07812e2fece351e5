// containerd from Debian's package, configured for this host and started by hand (no systemd):
// runc with cgroupfs, the CNI plugins of Debian's containernetworking-plugins, a pause image
// imported locally, and its own root, state and socket so that it touches no other containerd.
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ManagedProcess } from '../controlplane/process.ts';
import { waitFor } from '../wait.ts';
import { NETWORK } from './host.ts';

const run = promisify(execFile);

/** Short: shim sockets live below the state directory and a unix socket path has 108 bytes. */
export const STATE_DIR = '/run/esrn';
export const SOCKET = `${STATE_DIR}/containerd.sock`;
export const CNI_BIN_DIR = '/usr/lib/cni';

export interface ContainerdLayout { readonly dir: string; readonly sandboxImage: string; readonly detach: boolean }

/**
 * `restrict_oom_score_adj` is required here: root on these machines lacks CAP_SYS_RESOURCE, and
 * without it runc cannot lower the sandbox's oom_score_adj and every pod sandbox fails with
 * "can't get final child's PID from pipe: EOF".
 */
function config({ dir, sandboxImage }: ContainerdLayout): string {
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  return `version = 2
root = "${join(dir, 'containerd', 'root')}"
state = "${join(STATE_DIR, 'containerd')}"
[grpc]
  address = "${SOCKET}"
[ttrpc]
  address = "${STATE_DIR}/containerd-ttrpc.sock"
[${cri}]
  sandbox_image = "${sandboxImage}"
  restrict_oom_score_adj = true
  [${cri}.containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [${cri}.containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [${cri}.containerd.runtimes.runc.options]
        SystemdCgroup = false
  [${cri}.cni]
    bin_dir = "${CNI_BIN_DIR}"
    conf_dir = "${join(dir, 'cni', 'net.d')}"
`;
}

/** Pods on the host bridge: host-local addresses, the gateway masquerades, portmap for hostPorts. */
function cniConflist(dir: string): string {
  return JSON.stringify({
    cniVersion: '1.0.0', name: 'edgeshifu-real-node', plugins: [
      { type: 'bridge', bridge: NETWORK.bridge, isGateway: true, ipMasq: true, hairpinMode: true,
        ipam: { type: 'host-local', ranges: [[{ subnet: NETWORK.podCidr, gateway: NETWORK.gateway }]], routes: [{ dst: '0.0.0.0/0' }], dataDir: join(dir, 'cni', 'ipam') } },
      { type: 'portmap', capabilities: { portMappings: true } },
    ],
  }, null, 2);
}

export async function startContainerd(layout: ContainerdLayout): Promise<ManagedProcess> {
  const configFile = join(layout.dir, 'containerd', 'config.toml');
  await mkdir(join(layout.dir, 'containerd'), { recursive: true });
  await mkdir(join(layout.dir, 'cni', 'net.d'), { recursive: true });
  await mkdir(STATE_DIR, { recursive: true, mode: 0o700 });
  await writeFile(configFile, config(layout));
  await writeFile(join(layout.dir, 'cni', 'net.d', '10-edgeshifu.conflist'), cniConflist(layout.dir));
  const containerd = new ManagedProcess({ name: 'containerd', command: '/usr/bin/containerd', args: ['--config', configFile],
    logFile: join(layout.dir, 'logs', 'containerd.log'), detach: layout.detach });
  containerd.start();
  await waitFor('containerd to answer', async () => (await ctr(['version']).then(() => true, () => undefined)), {
    timeoutMs: 60_000, intervalMs: 200, abortIf: () => containerd.running ? undefined : `containerd exited:\n${containerd.tail()}`,
  });
  return containerd;
}

/** `ctr` against this containerd, in the namespace the CRI plugin uses. */
export async function ctr(args: readonly string[]): Promise<string> {
  return (await run('/usr/bin/ctr', ['--address', SOCKET, '--namespace', 'k8s.io', ...args], { maxBuffer: 1 << 24 })).stdout;
}

export async function importImage(archive: string): Promise<void> {
  await ctr(['images', 'import', archive]);
}
