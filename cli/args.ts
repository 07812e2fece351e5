// The command line of `edgeshifu`, pure: which command the words name, its options
// parsed with node:util parseArgs (no dependency), and the help text, all from one spec per
// command. A mistake in the command line is a UsageError (exit 2) naming what to fix.
import { parseArgs } from 'node:util';

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly multiple?: boolean;
  /** The value's placeholder in the help, e.g. `host:port`. */
  readonly value?: string;
  readonly default?: string;
  readonly description: string;
}

export interface PositionalSpec {
  readonly name: string;
  readonly description: string;
  readonly optional?: boolean;
}

export interface CommandSpec {
  /** The words that name it: `status`, `device add`. */
  readonly name: string;
  readonly summary: string;
  /** More lines of help after the usage line. */
  readonly details?: readonly string[];
  readonly positionals: readonly PositionalSpec[];
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Values --output takes; the first is the default. Absent: the command has one output. */
  readonly outputs?: readonly string[];
  readonly examples?: readonly string[];
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** The command whose help says more, when known. */
  readonly command: string | undefined;
  constructor(message: string, command?: string) {
    super(message);
    this.command = command;
  }
}

/** Options every command takes. */
export const GLOBAL_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  kubeconfig: { type: 'string', value: 'file', description: 'kubeconfig to use (default: $KUBECONFIG, then the local stack\'s, then ~/.kube/config)' },
  context: { type: 'string', value: 'name', description: 'the kubeconfig context to use (default: its current-context)' },
  controller: { type: 'string', value: 'url', description: 'the controller\'s HTTP address, e.g. http://127.0.0.1:8080 (default: the local stack\'s, else through the API server\'s service proxy)' },
  output: { type: 'string', short: 'o', value: 'format', description: 'output format, where the command offers several (text, json, ...)' },
  help: { type: 'boolean', short: 'h', description: 'show help' },
};

export type OptionValue = string | boolean | string[] | undefined;

export interface Invocation {
  readonly command: CommandSpec;
  readonly values: Readonly<Record<string, OptionValue>>;
  readonly positionals: readonly string[];
  /** The chosen --output, or '' when the command has one output. */
  readonly output: string;
  readonly help: boolean;
}

export interface Located {
  /** The command words found, e.g. ['device', 'add'] (possibly a group like ['device'] or nothing). */
  readonly words: readonly string[];
  /** Everything else, in order, for the command's parser. */
  readonly rest: readonly string[];
}

function takesValue(token: string, options: Readonly<Record<string, OptionSpec>>): boolean {
  if (token.includes('=')) return false;
  const spec = token.startsWith('--') ? options[token.slice(2)] : Object.values(options).find((o) => token === `-${o.short ?? ''}`);
  return spec?.type === 'string';
}

/**
 * Picks the command words out of argv: the leading non-option words that spell (a prefix of) a
 * command name. Global options may come anywhere; a command's own options come after its name.
 */
export function locateCommand(argv: readonly string[], names: readonly string[]): Located {
  const words: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const token = argv[i] ?? '';
    if (token === '--') { rest.push(...argv.slice(i)); break; }
    if (token.startsWith('-')) {
      rest.push(token);
      if (takesValue(token, GLOBAL_OPTIONS) && i + 1 < argv.length) { rest.push(argv[i + 1] ?? ''); i += 1; }
      continue;
    }
    const candidate = [...words, token].join(' ');
    const complete = names.includes(words.join(' '));
    if (!complete && names.some((n) => n === candidate || n.startsWith(`${candidate} `))) words.push(token);
    else rest.push(token);
  }
  return { words, rest };
}

/** True when -h/--help appears before any `--`: help wins over every other mistake. */
export function wantsHelp(rest: readonly string[]): boolean {
  const end = rest.indexOf('--');
  return (end === -1 ? rest : rest.slice(0, end)).some((t) => t === '--help' || t === '-h');
}

function checkPositionals(command: CommandSpec, positionals: readonly string[]): void {
  const required = command.positionals.filter((p) => p.optional !== true);
  const missing = required.slice(positionals.length);
  if (missing.length > 0) {
    throw new UsageError(`missing ${missing.map((p) => `<${p.name}>`).join(' ')}`, command.name);
  }
  const extra = positionals.slice(command.positionals.length);
  if (extra.length > 0) throw new UsageError(`unexpected argument${extra.length > 1 ? 's' : ''}: ${extra.join(' ')}`, command.name);
}

/** Parses what follows the command words; UsageError on anything the command does not take. */
export function parseInvocation(command: CommandSpec, rest: readonly string[]): Invocation {
  // `default` is for the help only: a command applies its own default, so it can tell "not given"
  const options = Object.fromEntries(Object.entries({ ...GLOBAL_OPTIONS, ...command.options }).map(([name, o]) => [name, {
    type: o.type, ...(o.short === undefined ? {} : { short: o.short }), ...(o.multiple === undefined ? {} : { multiple: o.multiple }),
  }]));
  if (wantsHelp(rest)) return { command, values: {}, positionals: [], output: command.outputs?.[0] ?? '', help: true };
  let parsed: { values: Record<string, OptionValue>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...rest], options, allowPositionals: true, strict: true }) as typeof parsed;
  } catch (err) {
    // parseArgs' messages name the option ("Unknown option '--foo'", "Option '--port <value>' argument missing")
    if (!String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) throw err;
    throw new UsageError((err as Error).message, command.name);
  }
  checkPositionals(command, parsed.positionals);
  const output = outputOf(command, parsed.values.output);
  return { command, values: parsed.values, positionals: parsed.positionals, output, help: false };
}

function outputOf(command: CommandSpec, value: OptionValue): string {
  const outputs = command.outputs ?? [];
  if (value === undefined) return outputs[0] ?? '';
  if (typeof value !== 'string' || !outputs.includes(value)) {
    const choices = outputs.length === 0 ? `${command.name} has one output format` : `use ${outputs.join(', ')}`;
    throw new UsageError(`--output ${String(value)} is not offered here: ${choices}`, command.name);
  }
  return value;
}

/** A string option, or undefined. */
export function stringOption(invocation: Invocation, name: string): string | undefined {
  const value = invocation.values[name];
  return typeof value === 'string' ? value : undefined;
}

export function listOption(invocation: Invocation, name: string): string[] {
  const value = invocation.values[name];
  return Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
}

export function flag(invocation: Invocation, name: string): boolean {
  return invocation.values[name] === true;
}

/** A whole number of at least `min` from a string option, or UsageError naming the option. */
export function numberOption(invocation: Invocation, name: string, fallback: number, min = 0): number {
  const raw = stringOption(invocation, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(value) || value < min) {
    throw new UsageError(`--${name} must be a whole number of at least ${String(min)}, got "${raw}"`, invocation.command.name);
  }
  return value;
}

function optionLine(name: string, spec: OptionSpec): [string, string] {
  const short = spec.short === undefined ? '    ' : `-${spec.short}, `;
  const value = spec.type === 'string' ? ` <${spec.value ?? 'value'}>` : '';
  const more = [spec.multiple === true ? 'repeatable' : '', spec.default === undefined ? '' : `default ${spec.default}`].filter((s) => s !== '');
  return [`  ${short}--${name}${value}`, `${spec.description}${more.length > 0 ? ` (${more.join('; ')})` : ''}`];
}

function columns(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `${left.padEnd(width)}  ${right}`);
}

function usageLine(command: CommandSpec): string {
  const positionals = command.positionals.map((p) => (p.optional === true ? `[<${p.name}>]` : `<${p.name}>`));
  return ['edgeshifu', command.name, ...positionals, '[options]'].join(' ');
}

/** `edgeshifu <command> --help`. */
export function renderHelp(command: CommandSpec): string {
  const lines = [command.summary, '', `usage: ${usageLine(command)}`, ...(command.details ?? []).map((d) => (d === '' ? '' : `  ${d}`))];
  if (command.positionals.length > 0) {
    lines.push('', 'arguments:', ...columns(command.positionals.map((p) => [`  <${p.name}>`, p.description])));
  }
  const own = Object.entries(command.options).map(([name, spec]) => optionLine(name, spec));
  if (own.length > 0) lines.push('', 'options:', ...columns(own));
  const outputs = command.outputs === undefined ? [] : [`output formats (-o): ${command.outputs.join(', ')} (default ${command.outputs[0] ?? ''})`];
  lines.push('', 'global options:', ...columns(Object.entries(GLOBAL_OPTIONS).map(([name, spec]) => optionLine(name, spec))), ...outputs);
  if (command.examples !== undefined) lines.push('', 'examples:', ...command.examples.map((e) => `  ${e}`));
  return `${lines.join('\n')}\n`;
}

/** `edgeshifu --help`, or the help of a group such as `device`. */
export function renderOverview(commands: readonly CommandSpec[], group = ''): string {
  const shown = commands.filter((c) => group === '' || c.name.startsWith(`${group} `));
  const head = group === ''
    ? ['edgeshifu: the local edge stack, devices, the edgeMap and device calls from the command line', '', 'usage: edgeshifu <command> [options]']
    : [`usage: edgeshifu ${group} <command> [options]`];
  const footer = `run \`edgeshifu ${group === '' ? '' : `${group} `}<command> --help\` for a command's options; exit codes: 0 done, 1 failed, 2 bad command line`;
  return `${[...head, '', 'commands:', ...columns(shown.map((c) => [`  ${c.name}`, c.summary])), '', footer].join('\n')}\n`;
}
