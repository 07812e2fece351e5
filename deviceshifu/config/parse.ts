// The mounted ConfigMap (one text per key) → DeviceShifuConfig, or one 'invalid' error that lists
// every problem as "key line N: what is wrong". Pure: the directory is read in load.ts.
import type { Static, TSchema } from '@sinclair/typebox';
import { EdgeshifuError } from '../../shared/errors.ts';
import { Validator } from '../../shared/validation.ts';
import { CONFIG_KEYS, IGNORED_KEYS } from './defaults.ts';
import { parseInstructions } from './instructions.ts';
import schemas from '../schemas/config-files.json' with { type: 'json' };
import type { ControlMsgsFile, DriverPropertiesFile } from './schema.ts';
import { parseTelemetries } from './telemetries.ts';
import type { DeviceShifuConfig } from './types.ts';
import { formatProblem, parseYamlSource, placeErrors, type YamlProblem, type YamlSource } from './yaml-source.ts';

// the schemas as JSON, not built by TypeBox at start (../schemas/render.ts)
const driverValidator = new Validator(schemas.driverProperties as unknown as typeof DriverPropertiesFile, 'driverProperties');
const controlValidator = new Validator(schemas.controlMsgs as unknown as typeof ControlMsgsFile, 'controlMsgs');

function sources(files: Readonly<Record<string, string>>, problems: YamlProblem[], warnings: string[]): Map<string, YamlSource> {
  const parsed = new Map<string, YamlSource>();
  for (const [key, text] of Object.entries(files)) {
    if (!(CONFIG_KEYS as readonly string[]).includes(key)) {
      if (!key.startsWith('.')) warnings.push(`${key}: not a key deviceShifu reads${(IGNORED_KEYS as readonly string[]).includes(key) ? ' (a Shifu feature not supported here)' : ''}; ignored`);
      continue;
    }
    const result = parseYamlSource(key, text);
    problems.push(...result.problems);
    if (result.source !== undefined) parsed.set(key, result.source);
  }
  return parsed;
}

function validated<S extends TSchema>(validator: Validator<S>, source: YamlSource | undefined, problems: YamlProblem[]): Static<S> | undefined {
  if (source === undefined) return undefined;
  const errors = validator.errors(source.value);
  problems.push(...placeErrors(source, errors));
  return errors.length === 0 ? validator.parse(source.value, source.key) : undefined;
}

export function parseConfig(files: Readonly<Record<string, string>>): DeviceShifuConfig {
  const problems: YamlProblem[] = [];
  const warnings: string[] = [];
  const parsed = sources(files, problems, warnings);
  const driver = validated(driverValidator, parsed.get('driverProperties'), problems);
  const { defaultTimeoutSeconds, instructions } = parseInstructions(parsed.get('instructions'), problems, warnings);
  const telemetries = parseTelemetries(parsed.get('telemetries'), new Set(instructions.keys()), problems, warnings);
  const controlMsgs = validated(controlValidator, parsed.get('controlMsgs'), problems);
  if (!parsed.has('instructions') && problems.length === 0) warnings.push('instructions: key missing: the device has no instructions');
  if (problems.length > 0) {
    throw new EdgeshifuError('invalid', `deviceShifu ConfigMap is invalid:\n  ${problems.map(formatProblem).join('\n  ')}`);
  }
  return {
    driver: {
      ...(driver?.driverSku ? { sku: driver.driverSku } : {}),
      ...(driver?.driverImage ? { image: driver.driverImage } : {}),
      ...(driver?.driverExecution ? { execution: driver.driverExecution } : {}),
    },
    defaultTimeoutSeconds,
    instructions,
    telemetries,
    controlMsgs: controlMsgs ?? {},
    warnings,
  };
}
