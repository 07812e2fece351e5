// The command line of `edgeshifu`, pure: finding the command among options, parsing, usage
// errors, and the help of every command.
import test from 'ava';
import { locateCommand, numberOption, parseInvocation, renderHelp, renderOverview, UsageError, type CommandSpec } from '../../cli/args.ts';
import { COMMANDS, runCli } from '../../cli/main.ts';
import type { CliEnvironment } from '../../cli/context.ts';

const NAMES = COMMANDS.map((c) => c.spec.name);

const located: readonly [string[], string[], string[]][] = [
  [['status'], ['status'], []],
  [['--kubeconfig', 'k', 'status', '-o', 'json'], ['status'], ['--kubeconfig', 'k', '-o', 'json']],
  [['-o', 'json', 'device', 'list'], ['device', 'list'], ['-o', 'json']],
  [['device', 'add', 'thermo', '--protocol', 'HTTP'], ['device', 'add'], ['thermo', '--protocol', 'HTTP']],
  // a device may be called like a command: once a command is complete, words are its arguments
  [['device', 'add', 'device'], ['device', 'add'], ['device']],
  [['call', 'status', 'read_value'], ['call'], ['status', 'read_value']],
  [['frobnicate'], [], ['frobnicate']],
  [['device'], ['device'], []],
  [['device', '--', 'add'], ['device'], ['--', 'add']],
  [['--kubeconfig=k', 'edgemap'], ['edgemap'], ['--kubeconfig=k']],
];

for (const [argv, words, rest] of located) {
  test(`locateCommand: ${argv.join(' ')}`, (t) => {
    t.deepEqual(locateCommand(argv, NAMES), { words, rest });
  });
}

function spec(name: string): CommandSpec {
  const found = COMMANDS.find((c) => c.spec.name === name)?.spec;
  if (found === undefined) throw new Error(`no command ${name}`);
  return found;
}

test('parseInvocation reads options, repeated options and the output format', (t) => {
  const invocation = parseInvocation(spec('call'), ['thermo', 'read_value', '-p', 'a=1', '--param', 'b=2', '-X', 'post', '-o', 'json', '--kubeconfig', 'k']);
  t.deepEqual(invocation.positionals, ['thermo', 'read_value']);
  t.deepEqual(invocation.values.param, ['a=1', 'b=2']);
  t.is(invocation.values.method, 'post');
  t.is(invocation.values.kubeconfig, 'k');
  t.is(invocation.output, 'json');
  t.false(invocation.help);
  t.is(parseInvocation(spec('status'), []).output, 'text', 'the first output is the default');
  t.is(parseInvocation(spec('up'), []).values.dir, undefined, 'a default in the help is not applied by the parser: the command tells "not given"');
});

const usageErrors: readonly [string, string[], RegExp][] = [
  ['call', ['thermo'], /^missing <instruction>$/],
  ['call', [], /^missing <device> <instruction>$/],
  ['status', ['extra'], /^unexpected argument: extra$/],
  ['status', ['--bogus'], /Unknown option '--bogus'/],
  ['status', ['-o', 'yaml'], /--output yaml is not offered here: use text, json/],
  ['down', ['-o', 'json'], /down has one output format/],
  ['device add', ['--from-dir'], /--from-dir/],
];

for (const [name, argv, message] of usageErrors) {
  test(`a usage error names what to fix: ${name} ${argv.join(' ')}`, (t) => {
    const err = t.throws(() => parseInvocation(spec(name), argv), { instanceOf: UsageError });
    t.regex(err.message, message);
    t.is(err.command, name);
  });
}

test('--help wins over every other mistake on the line', (t) => {
  t.true(parseInvocation(spec('call'), ['--bogus', '-h']).help);
  const literal = parseInvocation(spec('call'), ['a', '--', '--help']);
  t.false(literal.help, 'after -- it is an argument');
  t.deepEqual(literal.positionals, ['a', '--help']);
});

test('numberOption refuses what is not a whole number', (t) => {
  const invocation = parseInvocation(spec('up'), ['--port', 'eighty']);
  t.throws(() => numberOption(invocation, 'port', 8080, 1), { instanceOf: UsageError, message: '--port must be a whole number of at least 1, got "eighty"' });
  t.is(numberOption(parseInvocation(spec('up'), ['--port', '18080']), 'port', 8080, 1), 18080);
  t.is(numberOption(parseInvocation(spec('up'), []), 'port', 8080, 1), 8080);
});

test('every command has help naming each of its options, arguments and output formats', (t) => {
  t.true(COMMANDS.length >= 8);
  for (const { spec: command } of COMMANDS) {
    const help = renderHelp(command);
    t.true(help.startsWith(command.summary), command.name);
    t.regex(help, new RegExp(`usage: edgeshifu ${command.name}`), command.name);
    for (const [option, o] of Object.entries(command.options)) {
      t.true(help.includes(`--${option}`), `${command.name} --${option}`);
      t.true(o.description.length > 10, `${command.name} --${option} says what it does`);
    }
    for (const p of command.positionals) t.true(help.includes(`<${p.name}>`), `${command.name} <${p.name}>`);
    for (const global of ['--kubeconfig', '--controller', '--output', '--help']) t.true(help.includes(global));
    for (const output of command.outputs ?? []) t.true(help.includes(output));
  }
});

test('the overview lists every command, and a group lists its own', (t) => {
  const specs = COMMANDS.map((c) => c.spec);
  const overview = renderOverview(specs);
  for (const name of NAMES) t.true(overview.includes(`  ${name} `), name);
  const device = renderOverview(specs, 'device');
  t.true(device.includes('device add') && device.includes('device rm') && device.includes('device list'));
  t.false(device.includes('edgemap'));
});

function captured(): { environment: CliEnvironment; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { environment: { env: {}, now: () => new Date(0), terminal: { out: (s) => out.push(s), err: (s) => err.push(s) } }, out, err };
}

const dispatch: readonly [string[], number, RegExp, 'out' | 'err'][] = [
  [[], 2, /no command given/, 'err'],
  [['frobnicate'], 2, /unknown command "frobnicate"/, 'err'],
  [['device'], 2, /device needs a command: add, list, rm/, 'err'],
  [['device', 'remove', 'x'], 2, /unknown command "device remove"/, 'err'],
  [['--help'], 0, /usage: edgeshifu <command>/, 'out'],
  [['device', '--help'], 0, /usage: edgeshifu device <command>/, 'out'],
  [['help', 'device', 'add'], 0, /usage: edgeshifu device add/, 'out'],
  [['call', 'x'], 2, /missing <instruction>\n\(see `edgeshifu call --help`\)/, 'err'],
  [['edgemap', '--controller', 'not-a-url'], 2, /--controller must be an http:\/\/ or https:\/\/ address/, 'err'],
];

for (const [argv, code, message, stream] of dispatch) {
  test(`edgeshifu ${argv.join(' ') || '(nothing)'} exits ${String(code)}`, async (t) => {
    const { environment, out, err } = captured();
    t.is(await runCli(argv, environment), code);
    t.regex((stream === 'out' ? out : err).join(''), message);
  });
}
