// `edgeshifu up`: the local edge stack of `npm start` (test/support/localstack/stack.ts): the
// control plane, CRDs, controller with the edgeMap, shifud and three mock devices served through
// their deviceShifus by the development runner. By default it runs detached: this command returns
// once the stack serves, and `edgeshifu down` stops it. --foreground holds it here until Ctrl-C.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { EdgeshifuError } from '../../shared/errors.ts';
import { flag, numberOption, stringOption, UsageError, type CommandSpec } from '../args.ts';
import type { CliContext } from '../context.ts';
import { DEFAULT_STACK_PORT, defaultStackDir, edgeshifuHome, readStackState, REPO_ROOT, STACK_FILE, type StackState } from '../local-stack.ts';
import { checkCanStart } from '../stack-process.ts';

export const spec: CommandSpec = {
  name: 'up',
  summary: 'start the local edge stack (control plane, controller, shifud, mock devices and their deviceShifus)',
  details: [
    'The same stack as `npm start`. The first run on a machine builds the control plane (about 10 minutes).',
    'Detached by default: returns once every deviceShifu answers; `edgeshifu down` stops it. Its log: .edgeshifu/up.log.',
    'The deviceShifus run as local processes started by a development runner, not a kubelet.',
  ],
  positionals: [],
  options: {
    port: { type: 'string', value: 'port', default: String(DEFAULT_STACK_PORT), description: 'the controller\'s port on 127.0.0.1 (edgeMap)' },
    dir: { type: 'string', value: 'folder', default: '$EDGESHIFU_HOME/local, else .edgeshifu/local in the repository', description: 'the stack\'s folder: kubeconfig, logs, state (emptied first)' },
    foreground: { type: 'boolean', description: 'run in this terminal until Ctrl-C, as npm start does' },
    timeout: { type: 'string', value: 'seconds', default: '1800', description: 'how long to wait for the stack (the first run builds the control plane)' },
    clusters: { type: 'string', value: '1|2', default: '1', description: '2 adds a neighbour cluster edge-2 and shows a DRONE offload to it' },
  },
  examples: ['edgeshifu up && edgeshifu status', 'edgeshifu up --foreground --port 18080 --dir /tmp/stack', 'edgeshifu up --foreground --clusters 2'],
};

const LAUNCHER = join(REPO_ROOT, 'cli', 'edgeshifu.ts');
/** The first line of howTo(): `up` relays the detached stack's progress until it. */
const READY_LINE = 'the local edge stack is up';

/** How to run the CLI from this checkout: npm installs no `edgeshifu` on the PATH for a repository's own bin. */
export const RUN_CLI = 'npx edgeshifu';

export function howTo(state: StackState, kubectl: string): string {
  return [
    READY_LINE,
    `  controller and edgeMap: ${state.edgeMapUrl}`,
    `  kubeconfig: ${state.kubeconfig}`,
    `  kubectl:    ${kubectl} --kubeconfig ${state.kubeconfig} get edgedevices,edgenodes -A`,
    `  logs:       ${join(state.dir, 'logs')}`,
    '',
    'try (edgeshifu finds this stack by itself; run it from this checkout):',
    `  ${RUN_CLI} status`,
    ...state.devices.map((d) => `  ${RUN_CLI} call ${d.edgeDevice} ${d.tryInstruction}    # or: curl ${d.url}/${d.tryInstruction}`),
    `  ${RUN_CLI} edgemap`,
    `  ${RUN_CLI} device add my-thermometer --protocol HTTP --address <host:port> --instruction read_value:R --wait`,
  ].join('\n');
}

async function linkKubectl(home: string): Promise<string> {
  const { controlPlaneBinaries } = await import('../../test/support/controlplane/binaries.ts');
  const link = join(home, 'bin', 'kubectl');
  await mkdir(join(home, 'bin'), { recursive: true });
  await rm(link, { force: true });
  await symlink(join(await controlPlaneBinaries(), 'kubectl'), link);
  return link;
}

/** Resolves at the first SIGINT/SIGTERM; later ones are absorbed so the clean stop can finish. */
function untilSignalled(): Promise<void> {
  return new Promise((done) => {
    process.on('SIGINT', () => { done(); });
    process.on('SIGTERM', () => { done(); });
  });
}

async function foreground(ctx: CliContext, dir: string, port: number, clusters: number): Promise<number> {
  await checkCanStart(dir, port);
  // the stack starts each component from the source tree by relative path
  process.chdir(REPO_ROOT);
  ctx.note('building the edgeMap page...');
  const [{ buildEdgeMapPage }, { defaultPageDir }, { startLocalStack }] = await Promise.all([
    import('../../edgemap/build-page.ts'), import('../../edgemap/http/page-files.ts'), import('../../test/support/localstack/stack.ts'),
  ]);
  await buildEdgeMapPage(defaultPageDir());
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'logs'), { recursive: true });
  const stack = await startLocalStack({ dir, port, clusters, progress: (line) => { ctx.note(line); } });
  // until now a signal ends this process the default way, and the harness's reapers stop what it started
  const signalled = untilSignalled();
  // the children are unref'd: this keeps the process (and so the stack) alive until a signal
  const keepAlive = setInterval(() => undefined, 60_000);
  try {
    const state: StackState = {
      pid: process.pid, dir, kubeconfig: stack.cluster.kubeconfigPath, controllerUrl: `http://127.0.0.1:${String(port)}`, edgeMapUrl: stack.edgeMapUrl,
      startedAt: ctx.now().toISOString(), devices: stack.devices.map((d) => ({ edgeDevice: d.device.edgeDevice, url: d.url, tryInstruction: d.device.tryInstruction })),
    };
    await writeFile(join(dir, `${STACK_FILE}.tmp`), JSON.stringify(state, null, 2));
    await rename(join(dir, `${STACK_FILE}.tmp`), join(dir, STACK_FILE));
    ctx.print(`${howTo(state, await linkKubectl(edgeshifuHome(ctx.env)))}\n\nCtrl-C (or ${RUN_CLI} down) stops everything.`);
    await signalled;
  } finally {
    clearInterval(keepAlive);
    ctx.note('stopping...');
    await stack.stop();
    await rm(dir, { recursive: true, force: true });
    ctx.note('stopped; nothing left running.');
  }
  return 0;
}

/** New complete lines of the detached stack's log since `offset`. */
function newLines(log: string, offset: number): { lines: string[]; offset: number } {
  const text = readFileSync(log, 'utf8').slice(offset);
  const end = text.lastIndexOf('\n') + 1;
  return { lines: text.slice(0, end).split('\n').filter((l) => l !== ''), offset: offset + end };
}

async function detached(ctx: CliContext, where: { dir: string; port: number; clusters: number }, timeoutMs: number): Promise<number> {
  const { dir, port, clusters } = where;
  await checkCanStart(dir, port);
  const home = edgeshifuHome(ctx.env);
  await mkdir(home, { recursive: true });
  const log = join(home, 'up.log');
  const fd = openSync(log, 'w');
  const child = spawn(process.execPath, [LAUNCHER, 'up', '--foreground', '--port', String(port), '--dir', dir, '--clusters', String(clusters)], { cwd: REPO_ROOT, detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  child.unref();
  const deadline = Date.now() + timeoutMs;
  let offset = 0;
  let relaying = true;
  for (;;) {
    const read = newLines(log, offset);
    offset = read.offset;
    for (const line of read.lines) {
      if (line === READY_LINE) relaying = false;
      if (relaying) ctx.note(line);
    }
    const state = readStackState(dir);
    if (state !== undefined && state.pid === child.pid) {
      ctx.print(`${howTo(state, join(home, 'bin', 'kubectl'))}\n\nstop it with: ${RUN_CLI} down${dir === defaultStackDir(ctx.env) ? '' : ` --dir ${dir}`}`);
      return 0;
    }
    if (child.exitCode !== null || child.signalCode !== null) {
      // what it wrote last (its error) may have come after this round's read
      for (const line of newLines(log, offset).lines) ctx.note(line);
      throw new EdgeshifuError('unavailable', `the local stack did not start (its log: ${log})`);
    }
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new EdgeshifuError('timeout', `the local stack was not up after ${String(timeoutMs / 1000)} s; stopped it (see ${log})`);
    }
    await delay(500);
  }
}

export async function run(ctx: CliContext): Promise<number> {
  const { invocation } = ctx;
  const port = numberOption(invocation, 'port', DEFAULT_STACK_PORT, 1);
  const given = stringOption(invocation, 'dir');
  const dir = given === undefined ? defaultStackDir(ctx.env) : resolve(given);
  const timeoutMs = numberOption(invocation, 'timeout', 1800, 1) * 1000;
  const clusters = numberOption(invocation, 'clusters', 1, 1);
  if (clusters > 2) throw new UsageError(`--clusters must be 1 or 2, got ${String(clusters)}`, invocation.command.name);
  return flag(invocation, 'foreground') ? foreground(ctx, dir, port, clusters) : detached(ctx, { dir, port, clusters }, timeoutMs);
}
