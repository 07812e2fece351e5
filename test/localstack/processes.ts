// What a test of the local stack needs: `npm start` spawned as a child with its output, and to
// check that Ctrl-C leaves nothing behind, every descendant of it read from /proc while it runs
// and which of them still live.
import type { ExecutionContext } from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/controlplane/ports.ts';
import { killGroup } from '../support/controlplane/process.ts';
import { waitFor } from '../support/wait.ts';

/** A process identity that survives pid reuse: pid plus its start time (field 22 of /proc/<pid>/stat). */
export interface ProcessId { readonly pid: number; readonly start: string; readonly command: string }

async function stat(pid: number): Promise<{ ppid: number; state: string; start: string } | undefined> {
  const text = await readFile(`/proc/${String(pid)}/stat`, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  // the command name may hold spaces: fields start after its closing parenthesis
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', ppid: Number(fields[1]), start: fields[19] ?? '' };
}

/** Every live descendant of `root` (by parent links), read from /proc. */
export async function descendants(root: number): Promise<ProcessId[]> {
  const children = new Map<number, number[]>();
  const starts = new Map<number, string>();
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const s = await stat(pid);
    if (s === undefined) continue;
    children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
    starts.set(pid, s.start);
  }
  const found: ProcessId[] = [];
  const stack = [...(children.get(root) ?? [])];
  for (let pid = stack.pop(); pid !== undefined; pid = stack.pop()) {
    const command = (await readFile(`/proc/${String(pid)}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ').trim();
    found.push({ pid, start: starts.get(pid) ?? '', command });
    stack.push(...(children.get(pid) ?? []));
  }
  return found;
}

export async function stillRunning(processes: readonly ProcessId[]): Promise<ProcessId[]> {
  const alive: ProcessId[] = [];
  for (const p of processes) {
    const s = await stat(p.pid);
    if (s !== undefined && s.start === p.start && s.state !== 'Z') alive.push(p);
  }
  return alive;
}

/** `npm start` (cli.ts up --foreground) as a child with its output collected, stopped and cleaned up if the test ends first. */
export interface StackUnderTest {
  readonly child: ChildProcess;
  readonly dir: string;
  readonly port: number;
  readonly exited: Promise<[number | null, NodeJS.Signals | null]>;
  output(): string;
  /** Resolves once `text` is printed; fails at once if the stack exits. */
  printed(text: string, timeoutMs?: number): Promise<void>;
  /** Records every descendant now, for the check after Ctrl-C (and the teardown). */
  recordProcesses(): Promise<ProcessId[]>;
}

export async function spawnStack(t: ExecutionContext, extraArgs: readonly string[] = []): Promise<StackUnderTest> {
  const dir = await mkdtemp(join(tmpdir(), 'edgeshifu-localstack-'));
  const port = await freePort();
  const child = spawn(join('node_modules', '.bin', 'tsx'), ['test/support/controlplane/cli.ts', 'up', '--foreground', '--port', String(port), '--dir', dir, ...extraArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let seen: ProcessId[] = [];
  t.teardown(async () => {
    // only if the test failed before the clean stop: nothing it started may outlive it, including
    // the stack's own process under the tsx launcher (it leads no process group)
    const live = child.exitCode === null ? await descendants(child.pid ?? -1) : [];
    for (const p of await stillRunning([...seen, ...live])) {
      killGroup(p.pid, 'SIGKILL');
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    if (child.exitCode === null) child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });
  return {
    child, dir, port, exited,
    output: () => output,
    printed: async (text, timeoutMs = 14 * 60_000) => {
      await waitFor(`the stack to print "${text}"`, () => (output.includes(text) ? true : undefined), {
        timeoutMs, intervalMs: 500, abortIf: () => (child.exitCode === null ? undefined : `npm start exited:\n${output}`),
      });
    },
    recordProcesses: async () => {
      seen = await descendants(child.pid ?? -1);
      return seen;
    },
  };
}
