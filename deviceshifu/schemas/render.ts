// The schemas deviceShifu checks at run time, written out as plain JSON from
// their TypeBox sources by `npm run schemas:generate` (test/deviceshifu/schemas.test.ts fails when a
// file is stale). Building them with TypeBox at start kept its builders' code in every deviceShifu
// for the process's life, used once (deviceshifu/README.md, "What deviceShifu adds over its
// floor"); TypeBox stays for the types, the CRDs and the tests.
import type { TSchema } from '@sinclair/typebox';
import { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';
import { ControlMsgsFile, DriverPropertiesFile, InstructionsFile, TelemetriesFile } from '../config/schema.ts';
import { Settings } from '../settings.ts';

/** Each file (in this directory) and the schema, or the record of schemas, it holds. */
const SCHEMA_FILES: ReadonlyArray<readonly [string, TSchema | Readonly<Record<string, TSchema>>]> = [
  ['settings.json', Settings],
  ['config-files.json', { driverProperties: DriverPropertiesFile, instructions: InstructionsFile, telemetries: TelemetriesFile, controlMsgs: ControlMsgsFile }],
  ['edgedevice-spec.json', EdgeDeviceSpec],
];

/**
 * [file name, text] for every schema file. The JSON is what shared/validation.ts made of the
 * TypeBox object before (a JSON copy: TypeBox's symbols go, key order stays), so the checks and
 * their error messages are the same.
 */
export function renderSchemaFiles(): Array<[string, string]> {
  return SCHEMA_FILES.map(([file, schema]) => [file, `${JSON.stringify(schema, null, 2)}\n`]);
}
