// The process that holds a local stack started by `edgeshifu up`: is it (still) there, is it
// really ours (a pid can be reused), and the checks `up` makes before starting one.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { EdgeshifuError } from '../shared/errors.ts';
import { readStackState, REPO_ROOT, STACK_FILE, type StackState } from './local-stack.ts';

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pid runs `edgeshifu up --foreground` (read from /proc; where there is none, trust the pid). */
export function isStackProcess(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    const argv = readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8').split('\0');
    return argv.includes('up') && argv.includes('--foreground');
  } catch {
    return !existsSync('/proc/self');
  }
}

/** The stack recorded in `dir` whose process still runs, if any. */
export function runningStack(dir: string): StackState | undefined {
  const state = readStackState(dir);
  return state !== undefined && isStackProcess(state.pid) ? state : undefined;
}

async function portFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => { resolve(false); });
    server.listen(port, '127.0.0.1', () => { server.close(() => { resolve(true); }); });
  });
}

/** Something accepts connections on the API server address of the kubeconfig in `dir`. */
async function apiServerAnswers(dir: string): Promise<string | undefined> {
  let server: URL;
  try {
    const text = readFileSync(join(dir, 'admin.kubeconfig'), 'utf8');
    server = new URL(/server: (\S+)/.exec(text)?.[1] ?? '');
  } catch {
    return undefined;
  }
  const open = await new Promise<boolean>((resolve) => {
    const socket = connect({ host: server.hostname, port: Number(server.port) });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => { resolve(false); });
  });
  return open ? server.origin : undefined;
}

/** What `up` needs: the source tree (the stack runs the components from it), no stack there yet, a free port. */
export async function checkCanStart(dir: string, port: number): Promise<void> {
  for (const needed of ['test/support/localstack/stack.ts', 'node_modules/.bin/tsx']) {
    if (!existsSync(join(REPO_ROOT, needed))) {
      throw new EdgeshifuError('invalid', `edgeshifu up runs the local stack from a source checkout after \`npm ci\`: ${needed} is missing under ${REPO_ROOT}`);
    }
  }
  // the folder is emptied: never one that holds something else
  const entries = existsSync(dir) ? readdirSync(dir) : [];
  if (entries.length > 0 && !entries.some((e) => e === 'admin.kubeconfig' || e === STACK_FILE || e === 'logs')) {
    throw new EdgeshifuError('invalid', `${dir} is not empty and is not a local stack's folder: pass --dir with a new or empty folder`);
  }
  const running = runningStack(dir);
  if (running !== undefined) {
    throw new EdgeshifuError('conflict', `a local stack already runs from ${dir} (pid ${String(running.pid)}, controller ${running.controllerUrl}): \`npx edgeshifu down\` stops it`);
  }
  // a stack of `npm start` (no stack.json) may run there: never empty the folder under it
  const live = await apiServerAnswers(dir);
  if (live !== undefined) {
    throw new EdgeshifuError('conflict', `a local stack (npm start?) runs from ${dir}: its API server ${live} answers. Stop it (Ctrl-C in its terminal), or pass --dir`);
  }
  if (!(await portFree(port))) {
    throw new EdgeshifuError('conflict', `port ${String(port)} on 127.0.0.1 is in use (is \`npm start\` running?): stop what uses it, or pass --port`);
  }
}
