// Configuration from flags and environment, validated against a TypeBox schema: every key
// `fooBar` is `--foo-bar` on the command line or `EDGESHIFU_FOO_BAR` in the environment (flags
// win; booleans are --foo / --no-foo). Errors name the key and where it came from.
import type { Static, TObject } from '@sinclair/typebox';
import { EdgeshifuError, errorMessage } from './errors.ts';
import { Validator } from './validation.ts';

// parseArgs alone: an ESM `import … from 'node:util'` builds util's namespace, whose lazy exports
// load worker_threads, the diff and colour helpers and more (+0.35 MiB anonymous memory in a bare
// Node 24 with deviceShifu's flags, against +0.05 for this).
const { parseArgs } = process.getBuiltinModule('node:util');

export function flagName(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

export function envName(key: string, prefix = 'EDGESHIFU_'): string {
  return prefix + key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();
}

type PropertySchema = { type?: string; default?: unknown; secret?: boolean };

function coerce(raw: string, schema: PropertySchema, origin: string): unknown {
  switch (schema.type) {
    case 'integer':
    case 'number': {
      const value = Number(raw);
      if (raw.trim() === '' || Number.isNaN(value)) throw new EdgeshifuError('invalid', `${origin} must be a number, got "${raw}"`);
      return value;
    }
    case 'boolean':
      if (['true', '1', 'yes'].includes(raw)) return true;
      if (['false', '0', 'no'].includes(raw)) return false;
      throw new EdgeshifuError('invalid', `${origin} must be true or false, got "${raw}"`);
    case 'array':
      return raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
    default:
      return raw;
  }
}

export interface ConfigSources {
  readonly argv?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
}

/** Reads and validates a component's configuration; throws an 'invalid' EdgeshifuError naming each bad key. */
export function loadConfig<S extends TObject>(schema: S, sources: ConfigSources = {}): Static<S> {
  const properties = schema.properties as Record<string, PropertySchema>;
  const options = Object.fromEntries(Object.entries(properties).map(([key, p]) => [flagName(key), { type: p.type === 'boolean' ? 'boolean' as const : 'string' as const }]));
  let flags: Record<string, string | boolean | undefined>;
  try {
    flags = parseArgs({ args: [...(sources.argv ?? [])], options, strict: true, allowPositionals: false, allowNegative: true }).values;
  } catch (err) {
    throw new EdgeshifuError('invalid', `bad command line: ${errorMessage(err)}`);
  }
  const env = sources.env ?? {};
  const config: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(properties)) {
    const flag = flags[flagName(key)];
    const fromEnv = env[envName(key)];
    if (typeof flag === 'boolean') config[key] = flag;
    else if (flag !== undefined) config[key] = coerce(flag, property, `--${flagName(key)}`);
    else if (fromEnv !== undefined) config[key] = coerce(fromEnv, property, envName(key));
    else if (property.default !== undefined) config[key] = structuredClone(property.default);
  }
  return new Validator(schema, 'config').parse(config, 'configuration');
}

/** The configuration as it may be printed: keys whose schema says `secret: true` are masked. */
export function printableConfig<S extends TObject>(schema: S, config: Static<S>): Record<string, unknown> {
  const properties = schema.properties as Record<string, PropertySchema>;
  const values = config as Record<string, unknown>;
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, properties[k]?.secret === true && v !== undefined ? '[redacted]' : v]));
}
