// A container's proportional set size (PSS), beside the kubelet's working set and RSS: each page a
// process maps, divided by the number of processes that map it. The node binary's file pages,
// which the cgroup charges to the first container that read them, count here in every process
// that maps them, shared out among the containers of the same image. The kubelet has no PSS, so
// it is read from the kernel: the container's processes (`ctr tasks ps`, host pids, as root on
// the node) and each one's /proc/<pid>/smaps_rollup.
import { readFile } from 'node:fs/promises';
import { ctr } from '../test/support/realnode/containerd.ts';

/** MiB; the anonymous and file-backed parts of the PSS beside it. */
export interface Pss { readonly pss: number; readonly anon: number; readonly file: number }

const field = (rollup: string, name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(rollup)?.[1] ?? 0) / 1024;

/** The PSS of every process of a container (`containerd://` id or bare), or undefined when it has no task. */
export async function containerPss(containerId: string): Promise<Pss | undefined> {
  const id = containerId.replace(/^containerd:\/\//, '');
  const listed = await ctr(['tasks', 'ps', id]).catch(() => '');
  const pids = listed.split('\n').slice(1).map((l) => l.trim().split(/\s+/)[0] ?? '').filter((p) => /^\d+$/.test(p));
  if (pids.length === 0) return undefined;
  const rollups = await Promise.all(pids.map(async (pid) => readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '')));
  return rollups.reduce<Pss>((sum, r) => ({ pss: sum.pss + field(r, 'Pss'), anon: sum.anon + field(r, 'Pss_Anon'), file: sum.file + field(r, 'Pss_File') }), { pss: 0, anon: 0, file: 0 });
}
