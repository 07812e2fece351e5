// The `instructions` key: defaults filled in, names checked against the gateway's own paths.
import { Validator } from '../../shared/validation.ts';
import { BUILTIN_PATHS, CONFIG_DEFAULTS } from './defaults.ts';
import schemas from '../schemas/config-files.json' with { type: 'json' };
import type { InstructionEntry, InstructionsFile } from './schema.ts';
import type { Instruction } from './types.ts';
import { placeErrors, type YamlProblem, type YamlSource } from './yaml-source.ts';

// the schema as JSON, not built by TypeBox at start (../schemas/render.ts)
const validator = new Validator(schemas.instructions as unknown as typeof InstructionsFile, 'instructions');
/** One URL path segment, so `/<instruction>` is unambiguous. */
const NAME = /^[A-Za-z0-9_.~-]+$/;
const KNOWN_TOP = new Set(['instructionSettings', 'instructions']);

export interface ParsedInstructions {
  readonly defaultTimeoutSeconds: number;
  readonly instructions: ReadonlyMap<string, Instruction>;
}

function strings(map: Record<string, unknown> | null | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(map ?? {}).filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => [k, String(v)]));
}

function toInstruction(name: string, entry: InstructionEntry): Instruction {
  const description = entry?.description ?? undefined;
  return {
    name,
    readWrite: entry?.readWrite ?? CONFIG_DEFAULTS.readWrite,
    ...(description === undefined || description === '' ? {} : { description }),
    protocolProperties: strings(entry?.protocolPropertyList),
    gatewayProperties: strings(entry?.gatewayPropertyList),
  };
}

function nameProblem(name: string): string | undefined {
  if ((BUILTIN_PATHS as readonly string[]).includes(name)) {
    return `instruction "${name}" collides with the built-in path /${name} (${BUILTIN_PATHS.join(', ')} are reserved): rename it`;
  }
  if (!NAME.test(name)) return `instruction name "${name}" must be one URL path segment (letters, digits, _ . ~ -)`;
  return undefined;
}

/** Shifu's PowerShell demo lists instructions at the top level, without the `instructions:` wrapper. */
function unwrap(value: unknown, warnings: string[]): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 0 || keys.some((k) => KNOWN_TOP.has(k))) return value;
  warnings.push('instructions: no "instructions:" mapping; the top-level keys are read as instructions (as Shifu\'s PowerShell demo writes them)');
  return { instructions: value };
}

function rawNames(value: unknown, wrapped: boolean): string[] {
  const instructions = wrapped ? value : (value as { instructions?: unknown } | null)?.instructions;
  return typeof instructions === 'object' && instructions !== null ? Object.keys(instructions) : [];
}

export function parseInstructions(source: YamlSource | undefined, problems: YamlProblem[], warnings: string[]): ParsedInstructions {
  const instructions = new Map<string, Instruction>();
  const empty = { defaultTimeoutSeconds: CONFIG_DEFAULTS.defaultTimeoutSeconds, instructions };
  if (source === undefined) return empty;
  const value = unwrap(source.value, warnings);
  const wrapped = value !== source.value;
  const before = problems.length;
  for (const name of rawNames(source.value, wrapped)) {
    const problem = nameProblem(name);
    if (problem !== undefined) problems.push({ key: 'instructions', line: source.lineOf(wrapped ? [name] : ['instructions', name]), message: problem });
  }
  const errors = validator.errors(value);
  problems.push(...placeErrors(wrapped ? { ...source, lineOf: (p) => source.lineOf(p.slice(1)) } : source, errors));
  if (problems.length > before) return empty;
  const file = validator.parse(value, 'instructions');
  for (const [name, entry] of Object.entries(file?.instructions ?? {})) instructions.set(name, toInstruction(name, entry));
  const timeout = file?.instructionSettings?.defaultTimeoutSeconds ?? CONFIG_DEFAULTS.defaultTimeoutSeconds;
  return { defaultTimeoutSeconds: timeout, instructions };
}
