// `edgeshifu`, the command line: finds the command, parses its options, runs it, and
// turns every failure into one message and an exit code: 0 done, 1 failed, 2 bad command line.
import { renderHelp, renderOverview, locateCommand, parseInvocation, UsageError, wantsHelp, type CommandSpec } from './args.ts';
import { CliContext, type CliEnvironment, type Terminal } from './context.ts';
import * as up from './commands/up.ts';
import * as down from './commands/down.ts';
import * as status from './commands/status.ts';
import * as deviceAdd from './commands/device-add.ts';
import * as deviceList from './commands/device-list.ts';
import * as deviceRm from './commands/device-rm.ts';
import * as edgemap from './commands/edgemap.ts';
import * as call from './commands/call.ts';
import * as federationJoin from './commands/federation-join.ts';
import { errorMessage } from '../shared/errors.ts';

export interface Command {
  readonly spec: CommandSpec;
  run(ctx: CliContext): Promise<number>;
}

export const COMMANDS: readonly Command[] = [up, down, status, deviceAdd, deviceList, deviceRm, edgemap, call, federationJoin];
const SPECS = COMMANDS.map((c) => c.spec);

function usageFailure(err: UsageError, terminal: Terminal): number {
  const hint = err.command === undefined ? 'edgeshifu --help' : `edgeshifu ${err.command} --help`;
  terminal.err(`edgeshifu: ${err.message}\n(see \`${hint}\`)\n`);
  return 2;
}

/** No command matched: `edgeshifu`, a group (`device`), or a typo. */
function withoutCommand(words: readonly string[], rest: readonly string[], terminal: Terminal): number {
  const stray = rest.find((t) => !t.startsWith('-'));
  const group = words.join(' ');
  if (stray === undefined && wantsHelp(rest)) {
    terminal.out(renderOverview(SPECS, group));
    return 0;
  }
  const problem = stray === undefined
    ? (group === '' ? 'no command given' : `${group} needs a command: ${SPECS.filter((c) => c.name.startsWith(`${group} `)).map((c) => c.name.slice(group.length + 1)).join(', ')}`)
    : `unknown command "${[...words, stray].join(' ')}"`;
  terminal.err(`edgeshifu: ${problem}\n\n${renderOverview(SPECS, group)}`);
  return 2;
}

export async function runCli(argv: readonly string[], environment: CliEnvironment): Promise<number> {
  // `edgeshifu help device add` is `edgeshifu device add --help`
  if (argv[0] === 'help') return runCli([...argv.slice(1), '--help'], environment);
  const { words, rest } = locateCommand(argv, SPECS.map((c) => c.name));
  const command = COMMANDS.find((c) => c.spec.name === words.join(' '));
  if (command === undefined) return withoutCommand(words, rest, environment.terminal);
  let ctx: CliContext | undefined;
  try {
    const invocation = parseInvocation(command.spec, rest);
    if (invocation.help) {
      environment.terminal.out(renderHelp(command.spec));
      return 0;
    }
    ctx = new CliContext(invocation, environment);
    return await command.run(ctx);
  } catch (err) {
    if (err instanceof UsageError) return usageFailure(err, environment.terminal);
    environment.terminal.err(`edgeshifu: ${errorMessage(err)}\n`);
    if (environment.env.EDGESHIFU_DEBUG === '1' && err instanceof Error) environment.terminal.err(`${err.stack ?? ''}\n`);
    return 1;
  } finally {
    ctx?.close();
  }
}

export const processEnvironment: CliEnvironment = {
  env: process.env,
  terminal: {
    out: (text) => { process.stdout.write(text); },
    err: (text) => { process.stderr.write(text); },
  },
  now: () => new Date(),
};

/** Runs the command line of this process (the bin, or `tsx cli/main.ts`, or the bundle). */
export async function runFromProcess(): Promise<void> {
  // `edgeshifu edgemap -o json | head` closes stdout early: that ends the output, not in a stack trace
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(process.exitCode ?? 0);
  });
  process.exitCode = await runCli(process.argv.slice(2), processEnvironment);
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) await runFromProcess();
