// What a test of the local stack needs: `npm start` spawned as a child with its output, and what
// it started, recorded while it runs, so a test can check that Ctrl-C leaves nothing behind.
import type { ExecutionContext } from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/controlplane/ports.ts';
import { killGroup } from '../support/controlplane/process.ts';
import { descendants, stillRunning, type ProcessId } from '../support/process-tree.ts';
import { waitFor } from '../support/wait.ts';

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
