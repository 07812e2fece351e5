// `edgeshifu down`: stops the local stack `edgeshifu up` started, as Ctrl-C would (SIGTERM to the
// process holding it, which stops every component in reverse order), and removes its folder.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { EdgeshifuError } from '../../shared/errors.ts';
import { numberOption, stringOption, type CommandSpec } from '../args.ts';
import type { CliContext } from '../context.ts';
import { defaultStackDir, readStackState } from '../local-stack.ts';
import { isAlive, isStackProcess } from '../stack-process.ts';

export const spec: CommandSpec = {
  name: 'down',
  summary: 'stop the local edge stack started by `edgeshifu up`, leaving no process behind',
  details: ['A stack started by `npm start` or `edgeshifu up --foreground` also stops with Ctrl-C in its terminal.'],
  positionals: [],
  options: {
    dir: { type: 'string', value: 'folder', default: 'as for up', description: 'the stack\'s folder, as given to `up`' },
    timeout: { type: 'string', value: 'seconds', default: '90', description: 'how long to wait for a clean stop before killing it' },
  },
  examples: ['edgeshifu down'],
};

async function waitExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await delay(200);
  }
  return true;
}

export async function run(ctx: CliContext): Promise<number> {
  const given = stringOption(ctx.invocation, 'dir');
  const dir = given === undefined ? defaultStackDir(ctx.env) : resolve(given);
  const timeoutMs = numberOption(ctx.invocation, 'timeout', 90, 1) * 1000;
  const state = readStackState(dir);
  if (state === undefined) {
    ctx.print(`no local stack started by \`edgeshifu up\` in ${dir}${existsSync(dir) ? ' (a stack from `npm start` stops with Ctrl-C in its terminal)' : ''}`);
    return 0;
  }
  if (!isStackProcess(state.pid)) {
    // its components were stopped with it: the harness kills a process's children when it dies
    await rm(dir, { recursive: true, force: true });
    ctx.print(`the stack's process (pid ${String(state.pid)}) had already exited; removed ${dir}`);
    return 0;
  }
  ctx.note(`stopping the local stack (pid ${String(state.pid)})...`);
  process.kill(state.pid, 'SIGTERM');
  if (!(await waitExit(state.pid, timeoutMs))) {
    process.kill(-state.pid, 'SIGKILL');
    await waitExit(state.pid, 5000);
    await rm(dir, { recursive: true, force: true });
    throw new EdgeshifuError('timeout', `the stack did not stop within ${String(timeoutMs / 1000)} s: killed it (its components are killed with it); see .edgeshifu/up.log`);
  }
  await rm(dir, { recursive: true, force: true });
  ctx.print('stopped; nothing left running.');
  return 0;
}
