// The I/O shell around plan.ts: finds which commands are missing, installs their Debian packages
// when it runs as root, and otherwise stops the run at its start with the command to type.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { EXTRA_PATH_DIRS, REQUIREMENTS, describeMissing, planPrerequisites, testPath, type Requirement } from './plan.ts';

export class PrerequisitesMissing extends Error {
  override readonly name = 'PrerequisitesMissing';
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether `command` is on `path` (a PATH string). */
export function onPath(command: string, path: string): boolean {
  return path.split(':').some((dir) => dir !== '' && executable(join(dir, command)));
}

export function missingRequirements(path: string, requirements: readonly Requirement[] = REQUIREMENTS): Requirement[] {
  return requirements.filter((r) => (r.command.startsWith('/') ? !executable(r.command) && !readable(r.command) : !onPath(r.command, path)));
}

function readable(file: string): boolean {
  try {
    accessSync(file, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/** Runs one step with its output in a log file; on failure the log is printed whole. */
async function logged(label: string, command: string, args: readonly string[], logFile: string): Promise<void> {
  const started = Date.now();
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  log.end();
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (code !== 0) {
    const text = spawnSync('cat', [logFile], { encoding: 'utf8' }).stdout;
    throw new PrerequisitesMissing(`${label} failed (exit ${code ?? 'signal'}) after ${seconds} s; its log, ${logFile}:\n${text}`);
  }
  console.error(`[setup] ${label}: done in ${seconds} s`);
}

/**
 * Makes sure every command the tests run is there. As root it installs the missing Debian
 * packages; otherwise it throws with the one command to run. Returns the PATH the tests use.
 */
export async function ensurePrerequisites(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const path = testPath(env.PATH ?? '', EXTRA_PATH_DIRS);
  const missing = missingRequirements(path);
  const plan = planPrerequisites(missing, process.getuid?.() === 0);
  if (plan.kind === 'ready') return path;
  const lines = describeMissing(plan.missing).join('\n');
  if (plan.kind === 'ask') {
    throw new PrerequisitesMissing(`the tests need these Debian packages, and installing them needs root:\n${lines}\nRun:\n  ${plan.command}\nthen run the tests again.`);
  }
  const dir = join(tmpdir(), 'edgeshifu-setup');
  mkdirSync(dir, { recursive: true });
  const logFile = join(dir, `apt-${Date.now()}.log`);
  console.error(`[setup] installing ${plan.packages.length} Debian package(s) the tests use (about 1-3 min; output in ${logFile}):\n${lines}`);
  await logged('apt-get update', 'apt-get', ['update', '-q'], logFile);
  await logged(`apt-get install ${plan.packages.join(' ')}`, 'apt-get', ['install', '-y', '-q', '--no-install-recommends', ...plan.packages], logFile);
  const still = missingRequirements(path);
  if (still.length > 0) throw new PrerequisitesMissing(`after apt-get install these are still missing:\n${describeMissing(still).join('\n')}\n(log: ${logFile})`);
  return path;
}
