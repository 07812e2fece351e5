// One control-plane process: its own process group (so its children die with it), output to a
// log file, and a stop that escalates from SIGTERM to SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { once } from 'node:events';

export interface ProcessSpec {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly logFile: string;
  /** Survive the parent (for `npm run cluster:up`); the caller records the pid. */
  readonly detach?: boolean;
  /** Added to this process's environment: secrets go here, never in argv (readable by anyone in /proc). */
  readonly env?: Readonly<Record<string, string>>;
}

// Processes started by this Node process and not yet stopped: killed synchronously if it exits
// without stopping them, so a crashed test never leaves a control plane behind.
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) killGroup(child.pid, 'SIGKILL');
});

/**
 * A process that is killed (SIGKILL, or a test runner ending its worker) runs no exit hook: a
 * detached watcher kills the child's process group once the parent is gone.
 */
function reapWhenGone(parent: number, child: number | undefined): ChildProcess | undefined {
  if (child === undefined) return undefined;
  const watcher = spawn('sh', ['-c', `while kill -0 ${parent} 2>/dev/null && kill -0 ${child} 2>/dev/null; do sleep 1; done; kill -KILL -${child} 2>/dev/null`],
    { detached: true, stdio: 'ignore' });
  watcher.unref();
  return watcher;
}

export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export class ManagedProcess {
  readonly spec: ProcessSpec;
  private child: ChildProcess | undefined;
  private reaper: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(spec: ProcessSpec) {
    this.spec = spec;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  start(): void {
    if (this.running) throw new Error(`${this.spec.name} is already running`);
    const fd = openSync(this.spec.logFile, 'a');
    const env = this.spec.env === undefined ? process.env : { ...process.env, ...this.spec.env };
    const child = spawn(this.spec.command, this.spec.args, { detached: true, stdio: ['ignore', fd, fd], env });
    closeSync(fd);
    this.child = child;
    this.exited = once(child, 'exit').then(() => {
      running.delete(child);
      // stopped or crashed while we watch: the reaper has nothing left to do
      killGroup(this.reaper?.pid, 'SIGKILL');
    });
    // never keeps this Node process alive; the exit hook above kills what was not stopped
    child.unref();
    if (this.spec.detach !== true) {
      running.add(child);
      this.reaper = reapWhenGone(process.pid, child.pid);
    }
  }

  /** Settles when the process started last exits, however it ends. */
  whenExited(): Promise<void> {
    return this.exited;
  }

  /** The last lines of the log, for error messages. */
  tail(lines = 25): string {
    try {
      return readFileSync(this.spec.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  async stop(graceMs = 5000): Promise<void> {
    const child = this.child;
    if (child === undefined || !this.running) return;
    killGroup(child.pid, 'SIGTERM');
    const timer = setTimeout(() => { killGroup(child.pid, 'SIGKILL'); }, graceMs);
    child.ref(); // keep this process alive until the exit is seen
    await this.exited;
    clearTimeout(timer);
    // children of the process (if any) must not outlive it
    killGroup(child.pid, 'SIGKILL');
  }

  /** Dies abruptly, as a crash would. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.child?.ref();
    killGroup(this.child?.pid, 'SIGKILL');
    await this.exited;
  }
}
