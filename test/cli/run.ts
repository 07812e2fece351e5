// Runs `edgeshifu` as a user does: its bin (cli/edgeshifu.ts) as a process of its own, with an
// environment that holds only what the test gives it (no KUBECONFIG or controller of the machine).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export const LAUNCHER = join(process.cwd(), 'cli', 'edgeshifu.ts');

/**
 * An empty folder for EDGESHIFU_HOME (`.edgeshifu`), so no local stack or dev cluster of this
 * machine is picked by default. HOME stays: the control-plane binaries are cached under it.
 */
export const EMPTY_HOME = mkdtempSync(join(tmpdir(), 'edgeshifu-cli-home-'));
process.once('exit', () => { rmSync(EMPTY_HOME, { recursive: true, force: true }); });

const DROPPED = ['KUBECONFIG', 'EDGESHIFU_CONTROLLER', 'EDGESHIFU_HOME', 'EDGESHIFU_TEST_KUBECONFIG'];

export function cliEnv(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !DROPPED.includes(k)));
  return { ...base, EDGESHIFU_HOME: join(EMPTY_HOME, '.edgeshifu'), ...env };
}

export async function edgeshifu(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [LAUNCHER, ...args], { env: cliEnv(env), maxBuffer: 16 << 20, timeout: 300_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** For assertion messages: what the command printed. */
export function shown(result: CliResult): string {
  return `exit ${String(result.code)}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}
