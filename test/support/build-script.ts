// Runs a build script (controlplane/build.sh, realnode/build.sh) with its progress shown one line
// per phase (build-progress.ts) and everything else it and Go print kept in a log file, whose path
// is printed once the build starts and whose whole text is shown when the build fails. A script
// that finds everything cached prints nothing, and no log is made.
import { spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { BuildProgress } from './build-progress.ts';

export interface BuildScriptOptions {
  /** Shown in brackets before each line: `controlplane`, `realnode`. */
  readonly label: string;
  readonly script: string;
  readonly env?: NodeJS.ProcessEnv;
  /** A wrapper and its arguments, e.g. ['nice', '-n', '10']. */
  readonly wrapper?: readonly string[];
  readonly progress?: (text: string) => void;
  readonly now?: () => number;
}

export interface BuildScriptResult {
  readonly code: number | null;
  /** The script's last stdout line: the folder it built into. */
  readonly output: string;
  /** The script's own stderr, markers left out (for an error message's tail). */
  readonly stderr: string;
  readonly logPath?: string;
}

/** Where build logs go: beside the cached binaries (`EDGESHIFU_CACHE`, else ~/.cache/edgeshifu). */
export function buildLogDir(env: NodeJS.ProcessEnv): string {
  return join(env.EDGESHIFU_CACHE ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'edgeshifu'), 'logs');
}

export async function runBuildScript(options: BuildScriptOptions): Promise<BuildScriptResult> {
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now;
  const print = options.progress ?? ((text: string) => process.stderr.write(text));
  const argv = [...(options.wrapper ?? []), 'bash', options.script];
  const child = spawn(argv[0] ?? 'bash', argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const progress = new BuildProgress(options.label, now());
  let log: { path: string; stream: WriteStream } | undefined;
  const openLog = async (): Promise<{ path: string; stream: WriteStream }> => {
    if (log !== undefined) return log;
    const dir = buildLogDir(env);
    const path = join(dir, `${options.label}-${new Date(now()).toISOString().replace(/[:.]/g, '-')}.log`);
    await mkdir(dir, { recursive: true });
    log = { path, stream: createWriteStream(path) };
    print(`[${options.label}] building (first run on this machine); the script's and Go's output go to ${path}\n`);
    return log;
  };
  // the log is opened before the first line is written: lines wait on it in order
  let writes: Promise<unknown> = Promise.resolve();
  let stdout = '';
  let stderr = '';
  let partial = '';
  const onLine = (line: string): void => {
    writes = writes.then(async () => {
      const { stream } = await openLog();
      const shown = progress.line(line, now());
      if (shown !== undefined) print(`${shown}\n`);
      else {
        stderr += `${line}\n`;
        stream.write(`${line}\n`);
      }
    });
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    lines.forEach(onLine);
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (partial !== '') onLine(partial);
  await writes;
  const opened = log;
  if (opened !== undefined) await new Promise((resolve) => opened.stream.end(resolve));
  if (opened !== undefined && code === 0) print(`${progress.finish(now())} (log: ${opened.path})\n`);
  if (opened !== undefined && code !== 0) {
    print(`[${options.label}] the build failed (exit ${code ?? 'signal'}); its whole log, ${opened.path}:\n`);
    print(await readFile(opened.path, 'utf8'));
  }
  return { code, output: stdout.trim().split('\n').at(-1) ?? '', stderr, ...(opened === undefined ? {} : { logPath: opened.path }) };
}
