// What the deviceShifu bench runs against: a target is one way to reach the trivial device (the
// device itself, a Go reverse proxy, deviceShifu...). Each target module exports a Target; the
// runner (bench/deviceshifu.ts) starts every target, then interleaves targets × connection counts.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { MemoryCgroup } from '../container-memory.ts';

export interface BenchContext {
  /** The trivial Go device every target calls, host:port on loopback. */
  readonly device: string;
  /** The device path the load calls (also the instruction name deviceShifu serves). */
  readonly path: string;
  /** A scratch directory for config files, removed after the run. */
  readonly dir: string;
  /** Directory of the esbuild bundles (dist/bundle). */
  readonly bundle: string;
  /** --compare-bundle: another build's bundles (say, main's), run beside `bundle` as an A/B in the same rounds. */
  readonly compareBundle?: string;
  /** Flags for node targets that do not choose their own (--node-flags). */
  readonly nodeFlags?: readonly string[];
  /** Kubernetes mode (--kube): deviceShifu reads its EdgeDevice from a private control plane. */
  readonly kube: boolean;
  /** A fresh memory cgroup for one process of a target, or why there is none. */
  cgroup(name: string): Promise<MemoryCgroup | string>;
}

export interface Running {
  /** The URLs the load calls; connection i calls urls[i % urls.length]. */
  readonly urls: readonly string[];
  /** The gateway's processes: their CPU is this target's cost (empty for the device itself). */
  readonly pids: readonly number[];
  /** The memory cgroup the gateway runs in (its working set), absent when none could be made. */
  readonly cgroup?: MemoryCgroup;
  /** Devices served, to give the memory per device (1 unless a target serves several). */
  readonly devices: number;
  /** One line on how this target runs (flags, binary). */
  readonly describe: string;
  stop(): Promise<void>;
}

export interface Target {
  /** Short label in the tables. */
  readonly name: string;
  /** Runs only when the run has it: --kube (the API server), --compare-bundle (a second bundle). */
  readonly needs?: 'kube' | 'compare-bundle';
  start(context: BenchContext): Promise<Running>;
}

export interface Spawned {
  readonly child: ChildProcess;
  /** The first JSON line of stdout that `ready` accepted. */
  readonly line: Record<string, unknown>;
}

/** Spawns a program (inside `cgroup` when given) and resolves with its first stdout JSON line that `ready` accepts. */
export async function spawnReady(command: string, args: readonly string[], ready: (line: Record<string, unknown>) => boolean, options: { env?: NodeJS.ProcessEnv; cgroup?: MemoryCgroup | string } = {}): Promise<Spawned> {
  const cgroup = typeof options.cgroup === 'object' ? options.cgroup : undefined;
  const wrapped = cgroup === undefined ? { command, args: [...args] } : cgroup.wrap(command, args);
  const child = spawn(wrapped.command, wrapped.args, { env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'inherit'] });
  for await (const text of createInterface({ input: child.stdout })) {
    let line: Record<string, unknown>;
    try { line = JSON.parse(text) as Record<string, unknown>; } catch { continue; }
    if (ready(line)) {
      child.stdout.resume();
      return { child, line };
    }
  }
  throw new Error(`${command} exited before it was ready`);
}

/** Stops a child and waits for it to exit, then removes its cgroup. */
export async function stopChild(child: ChildProcess, cgroup?: MemoryCgroup | string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  if (typeof cgroup === 'object') await cgroup.remove();
}

/** The cgroup if one was made, for Running.cgroup. */
export function madeCgroup(cgroup: MemoryCgroup | string): { cgroup?: MemoryCgroup } {
  return typeof cgroup === 'string' ? {} : { cgroup };
}
