// A component's memory as Kubernetes reads it, beside its RSS. The kubelet (cAdvisor) reports a
// container's working set as its memory cgroup's usage minus its inactive file pages; `kubectl top
// pod`, eviction and the OOM killer go by the cgroup, not by RSS. The two differ by the node
// binary's file pages: RSS counts every page a process maps, while the cgroup is charged for a page
// cache page only by the first cgroup that read it. All edgeshifu components run one image, so on
// a node the binary's pages are charged to the first edgeshifu container that read them; the bench
// runs its component in a fresh cgroup with those pages already cached, as for every later one.
import { mkdir, readFile, rmdir } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';

/** MiB. */
export interface ContainerMemory {
  /** What the kubelet reports (usage minus inactive file pages). */
  readonly workingSet: number;
  readonly usage: number;
  /** Highest usage since the cgroup was made. */
  readonly peak: number;
  readonly anon: number;
  readonly pageCache: number;
}

export interface MemoryCgroup {
  readonly path: string;
  /** The command that runs `command args` inside this cgroup (a shell that joins it, then execs). */
  wrap(command: string, args: readonly string[]): { command: string; args: string[] };
  read(): Promise<ContainerMemory>;
  /** Removes the cgroup once its processes have exited (waits up to 5 s for them). */
  remove(): Promise<void>;
}

const V1 = '/sys/fs/cgroup/memory';
const V2 = '/sys/fs/cgroup';
const MIB = 1024 * 1024;

async function text(path: string): Promise<string | undefined> {
  return readFile(path, 'utf8').catch(() => undefined);
}

function stat(content: string, key: string): number {
  return Number(new RegExp(`^${key} (\\d+)$`, 'm').exec(content)?.[1] ?? NaN);
}

interface Layout { readonly root: string; readonly usage: string; readonly peak: string; readonly figures: (stat: string) => { inactiveFile: number; anon: number; pageCache: number } }

const LAYOUTS: readonly Layout[] = [
  { root: V2, usage: 'memory.current', peak: 'memory.peak', figures: (s) => ({ inactiveFile: stat(s, 'inactive_file'), anon: stat(s, 'anon'), pageCache: stat(s, 'file') }) },
  { root: V1, usage: 'memory.usage_in_bytes', peak: 'memory.max_usage_in_bytes', figures: (s) => ({ inactiveFile: stat(s, 'total_inactive_file'), anon: stat(s, 'total_rss'), pageCache: stat(s, 'total_cache') }) },
];

async function layout(): Promise<Layout | undefined> {
  if ((await text(`${V2}/cgroup.controllers`))?.split(/\s+/).includes('memory') === true) return LAYOUTS[0];
  if ((await text(`${V1}/memory.usage_in_bytes`)) !== undefined) return LAYOUTS[1];
  return undefined;
}

/** A fresh memory cgroup named `name`, or why there is none (no memory controller, no right to make one). */
export async function memoryCgroup(name: string): Promise<MemoryCgroup | string> {
  const found = await layout();
  if (found === undefined) return 'no memory cgroup controller on this machine';
  const path = `${found.root}/${name}`;
  try {
    await mkdir(path);
  } catch (err) {
    return `cannot make a memory cgroup at ${path}: ${(err as Error).message}`;
  }
  return {
    path,
    wrap: (command, args) => ({ command: 'sh', args: ['-c', 'echo $$ > "$0" && exec "$@"', `${path}/cgroup.procs`, command, ...args] }),
    read: async () => {
      const usage = Number(await text(`${path}/${found.usage}`)) / MIB;
      const peak = Number(await text(`${path}/${found.peak}`)) / MIB;
      const figures = found.figures((await text(`${path}/memory.stat`)) ?? '');
      return { usage, peak, workingSet: usage - figures.inactiveFile / MIB, anon: figures.anon / MIB, pageCache: figures.pageCache / MIB };
    },
    remove: async () => {
      for (let i = 0; i < 50 && ((await text(`${path}/cgroup.procs`)) ?? '').trim() !== ''; i += 1) await delay(100);
      await rmdir(path).catch(() => undefined);
    },
  };
}

export function describeContainerMemory(m: ContainerMemory): string {
  const f = (n: number): string => `${n.toFixed(1)} MiB`;
  return `working set ${f(m.workingSet)} (cgroup usage ${f(m.usage)}: anonymous ${f(m.anon)}, page cache ${f(m.pageCache)}; peak ${f(m.peak)})`;
}
