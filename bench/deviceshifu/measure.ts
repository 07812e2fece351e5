// What the runner reads per target: a load run (the Go load generator), the CPU time of the
// gateway's processes (/proc/<pid>/stat), and their memory (working set from the cgroup, RSS).
import { execFile, execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { ContainerMemory } from '../container-memory.ts';
import type { Running } from './target.ts';

const run = promisify(execFile);
const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** The median; of an even count, the mean of the middle two. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid] ?? NaN : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
}

export interface LoadResult {
  /** Requests answered 200 after the warm-up, and with it. */
  readonly requests: number;
  readonly total: number;
  readonly errors: number;
  readonly rps: number;
  /** ms */
  readonly p50: number;
  readonly p99: number;
  /** Gateway CPU ms per request, over the whole run (warm-up included); NaN without a gateway. */
  readonly cpuPerRequest: number;
}

/** CPU ms (user + system) a process has used so far; 0 once it is gone. */
async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${String(pid)}/stat`, 'utf8').catch(() => '');
  // fields after the command (which may hold spaces) start at state; utime and stime are 14 and 15
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * TICK_MS;
}

const sum = async (pids: readonly number[], read: (pid: number) => Promise<number>): Promise<number> => (await Promise.all(pids.map(read))).reduce((a, b) => a + b, 0);

export interface LoadSpec { readonly connections: number; readonly seconds: number; readonly warmup: number }

export async function loadRun(loader: string, target: Running, spec: LoadSpec): Promise<LoadResult> {
  const { connections, seconds, warmup } = spec;
  const before = await sum(target.pids, cpuMs);
  const { stdout } = await run(loader, ['-c', String(connections), '-d', String(seconds), '-w', String(warmup), '-u', target.urls.join(',')]);
  const cpu = (await sum(target.pids, cpuMs)) - before;
  const r = JSON.parse(stdout) as { requests: number; total: number; errors: number; seconds: number; p50_us: number; p99_us: number };
  return {
    requests: r.requests, total: r.total, errors: r.errors, rps: r.requests / r.seconds, p50: r.p50_us / 1000, p99: r.p99_us / 1000,
    cpuPerRequest: target.pids.length === 0 ? NaN : cpu / Math.max(1, r.total),
  };
}

export interface Memory {
  /** MiB, summed over the target's processes. */
  readonly rss: number;
  readonly container?: ContainerMemory;
}

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${String(pid)}/status`, 'utf8').catch(() => '');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

export async function memoryOf(target: Running): Promise<Memory> {
  const rss = await sum(target.pids, rssMiB);
  return target.cgroup === undefined ? { rss } : { rss, container: await target.cgroup.read() };
}

/** Mean of one sample a second over `seconds`; the peak is the last one read. */
export async function meanMemory(target: Running, seconds: number): Promise<Memory> {
  const samples: Memory[] = [];
  for (let s = 0; s < seconds; s += 1) {
    samples.push(await memoryOf(target));
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const mean = (f: (m: Memory) => number): number => samples.reduce((a, m) => a + f(m), 0) / samples.length;
  const last = samples.at(-1);
  if (last?.container === undefined) return { rss: mean((m) => m.rss) };
  return { rss: mean((m) => m.rss), container: { ...last.container, workingSet: mean((m) => m.container?.workingSet ?? 0), usage: mean((m) => m.container?.usage ?? 0) } };
}
