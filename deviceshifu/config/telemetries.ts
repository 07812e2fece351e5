// The `telemetries` key: each telemetry gets its own initialDelayMs/intervalMs (Shifu parses and
// then ignores them), falling back to telemetrySettings, then to CONFIG_DEFAULTS.
import { Validator } from '../../shared/validation.ts';
import { CONFIG_DEFAULTS, MISSPELLED_INTERVAL } from './defaults.ts';
import schemas from '../schemas/config-files.json' with { type: 'json' };
import type { TelemetriesFile } from './schema.ts';
import type { Telemetry } from './types.ts';
import { placeErrors, type YamlProblem, type YamlSource } from './yaml-source.ts';

// the schema as JSON, not built by TypeBox at start (../schemas/render.ts)
const validator = new Validator(schemas.telemetries as unknown as typeof TelemetriesFile, 'telemetries');
type File = NonNullable<TelemetriesFile>;
type Settings = NonNullable<File['telemetrySettings']>;

function interval(settings: Settings, source: YamlSource, warnings: string[]): number {
  const misspelled = settings[MISSPELLED_INTERVAL];
  if (misspelled !== undefined) {
    const line = source.lineOf(['telemetrySettings', MISSPELLED_INTERVAL]);
    warnings.push(settings.telemetryUpdateIntervalInMilliseconds === undefined
      ? `telemetries line ${line}: ${MISSPELLED_INTERVAL} is misspelled; read as telemetryUpdateIntervalInMilliseconds (please fix the spelling)`
      : `telemetries line ${line}: ${MISSPELLED_INTERVAL} ignored: telemetryUpdateIntervalInMilliseconds is also set`);
  }
  return settings.telemetryUpdateIntervalInMilliseconds ?? misspelled ?? CONFIG_DEFAULTS.telemetryUpdateIntervalInMilliseconds;
}

interface Context {
  readonly source: YamlSource;
  readonly instructions: ReadonlySet<string>;
  readonly problems: YamlProblem[];
}

interface Defaults {
  readonly intervalMs: number;
  readonly initialDelayMs: number;
  readonly timeoutMs: number;
  readonly push: boolean;
  readonly service: string | undefined;
}

function defaultsOf(settings: Settings, context: Context, warnings: string[]): Defaults {
  return {
    intervalMs: interval(settings, context.source, warnings),
    initialDelayMs: settings.telemetryInitialDelayInMilliseconds ?? CONFIG_DEFAULTS.telemetryInitialDelayInMilliseconds,
    timeoutMs: settings.telemetryTimeoutInMilliseconds ?? CONFIG_DEFAULTS.telemetryTimeoutInMilliseconds,
    push: settings.defaultPushToServer ?? CONFIG_DEFAULTS.defaultPushToServer,
    service: settings.defaultTelemetryCollectionService ?? undefined,
  };
}

function pushTarget(settings: { pushToServer?: boolean; telemetryCollectionService?: string | null } | null | undefined, defaults: Defaults): string | undefined {
  const push = settings?.pushToServer ?? defaults.push;
  const service = settings?.telemetryCollectionService ?? defaults.service ?? '';
  return push && service !== '' ? service : undefined;
}

type Entry = NonNullable<File['telemetries']>[string];

function toTelemetry(name: string, entry: Entry, defaults: Defaults, context: Context): Telemetry | undefined {
  const p = entry?.properties ?? {};
  const instruction = p.instruction ?? '';
  if (instruction !== '' && !context.instructions.has(instruction)) {
    const line = context.source.lineOf(['telemetries', name, 'properties', 'instruction']);
    context.problems.push({ key: 'telemetries', line, message: `telemetry "${name}" polls instruction "${instruction}", which the instructions key does not define` });
    return undefined;
  }
  const pushTo = pushTarget(p.pushSettings, defaults);
  return {
    name,
    ...(instruction === '' ? {} : { instruction }),
    initialDelayMs: p.initialDelayMs ?? defaults.initialDelayMs,
    intervalMs: p.intervalMs ?? defaults.intervalMs,
    timeoutMs: defaults.timeoutMs,
    ...(pushTo === undefined ? {} : { pushTo }),
  };
}

function resolve(file: File, context: Context, warnings: string[]): Telemetry[] {
  const defaults = defaultsOf(file.telemetrySettings ?? {}, context, warnings);
  return Object.entries(file.telemetries ?? {}).flatMap(([name, entry]) => toTelemetry(name, entry, defaults, context) ?? []);
}

export function parseTelemetries(source: YamlSource | undefined, instructions: ReadonlySet<string>, problems: YamlProblem[], warnings: string[]): Telemetry[] {
  if (source === undefined) return [];
  const errors = validator.errors(source.value);
  if (errors.length > 0) {
    problems.push(...placeErrors(source, errors));
    return [];
  }
  const file = validator.parse(source.value, 'telemetries') ?? {};
  return resolve(file, { source, instructions, problems }, warnings);
}
