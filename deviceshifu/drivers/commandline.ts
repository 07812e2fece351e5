// The command line an HTTPCommandline device's stub runs: `<driverExecution> <instruction> k=v… flags`
// (Shifu's HTTPCommandline, README.md). The stub hands it to a shell, so every piece is checked here: names and
// flags must be plain words, values are bare when plain and single-quoted otherwise (literal in
// both sh and PowerShell), and anything that could break out of the quotes is refused.
import { EdgeshifuError } from '../../shared/errors.ts';

/** Shifu's query key that carries bare flags, comma separated: `flags_no_parameter=-a,--force`. */
export const FLAGS_PARAMETER = 'flags_no_parameter';
/** Shifu's instruction that sends only the flags (no executable, no instruction). */
export const RAW_INSTRUCTION = 'issue_cmd';
/** Shifu's instruction that checks the stub is alive. */
export const HEALTH_INSTRUCTION = 'stub_health';

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const BARE = /^[A-Za-z0-9_.,:/@%+=-]+$/;
const FLAG = /^-{1,2}[A-Za-z0-9][A-Za-z0-9_-]*(=[A-Za-z0-9_.,:/@%+-]*)?$/;
const QUOTABLE = /^[^'\u0000-\u001f\u007f`$\u2018\u2019\u201a\u201b]*$/;

function quote(name: string, value: string): string {
  if (value === '' || BARE.test(value)) return value;
  if (!QUOTABLE.test(value)) throw new EdgeshifuError('invalid', `argument ${name}: value contains a quote, backtick, $ or control character, which a command line cannot carry safely`);
  return `'${value}'`;
}

function flagsOf(values: readonly string[]): string[] {
  const flags = values.flatMap((v) => (values.length === 1 ? v.split(',') : [v])).map((f) => f.trim()).filter((f) => f !== '');
  for (const flag of flags) {
    if (!FLAG.test(flag)) throw new EdgeshifuError('invalid', `flag "${flag}" must look like -x, --name or --name=value (letters, digits, _ -)`);
  }
  return flags;
}

function argumentsOf(query: URLSearchParams): string[] {
  const args: string[] = [];
  for (const name of new Set(query.keys())) {
    if (name === FLAGS_PARAMETER) continue;
    if (!NAME.test(name)) throw new EdgeshifuError('invalid', `argument name "${name}" must be a plain word (letters, digits, _ . -)`);
    const values = query.getAll(name);
    if (values.length > 1) throw new EdgeshifuError('invalid', `argument ${name} is given ${values.length} times; give it once`);
    args.push(`${name}=${quote(name, values[0] ?? '')}`);
  }
  return args;
}

/**
 * Examples: ("python drv.py", "start", "time=10:00:00&flags_no_parameter=-a,-c") →
 * "python drv.py start time=10:00:00 -a -c"; ("x", "say", "text=hi there") → "x say text='hi there'".
 */
export function composeCommand(execution: string | undefined, instruction: string, query: URLSearchParams): string {
  const flags = flagsOf(query.getAll(FLAGS_PARAMETER));
  if (instruction === HEALTH_INSTRUCTION) return 'ls';
  if (instruction === RAW_INSTRUCTION) return flags.join(' ');
  if (execution === undefined || execution.trim() === '') {
    throw new EdgeshifuError('invalid', 'driverProperties.driverExecution is empty: an HTTPCommandline device needs the program to run');
  }
  return [execution.trim(), instruction, ...argumentsOf(query), ...flags].join(' ');
}
