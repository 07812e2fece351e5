// deviceShifu checks its settings, ConfigMap keys and EdgeDevice file against schemas written out
// as JSON from their TypeBox sources (deviceshifu/schemas/render.ts), so TypeBox's builders are not
// in what it loads. The JSON must say what the TypeBox source says.
import test from 'ava';
import { readFile } from 'node:fs/promises';
import { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';
import { Validator } from '../../shared/validation.ts';
import { renderSchemaFiles } from '../../deviceshifu/schemas/render.ts';
import { InstructionsFile } from '../../deviceshifu/config/schema.ts';
import configFiles from '../../deviceshifu/schemas/config-files.json' with { type: 'json' };
import edgeDeviceSpec from '../../deviceshifu/schemas/edgedevice-spec.json' with { type: 'json' };

test('the committed schema files are exactly what their TypeBox sources render', async (t) => {
  const files = renderSchemaFiles();
  t.deepEqual(files.map(([file]) => file).sort(), ['config-files.json', 'edgedevice-spec.json', 'settings.json']);
  for (const [file, text] of files) {
    const committed = await readFile(new URL(`../../deviceshifu/schemas/${file}`, import.meta.url), 'utf8');
    t.is(committed, text, `deviceshifu/schemas/${file} is stale: run npm run schemas:generate`);
  }
});

test('a check against the JSON gives the errors a check against the TypeBox source gives', (t) => {
  const spec = { sku: 'x', connection: 'Bluetooth', address: 7, protocol: 'HTTP', protocolSettings: { SocketSetting: { encoding: 'ebcdic' } }, extra: true };
  const fromJson = new Validator(edgeDeviceSpec as unknown as typeof EdgeDeviceSpec, 'spec').errors(spec);
  t.true(fromJson.length >= 3, JSON.stringify(fromJson));
  t.deepEqual(fromJson, new Validator(EdgeDeviceSpec, 'spec').errors(spec));
  const instructions = { instructions: { read: { readWrite: 'X', protocolPropertyList: { a: [] } } }, instructionSettings: { defaultTimeoutSeconds: 'ten' } };
  const fromConfigJson = new Validator(configFiles.instructions as unknown as typeof InstructionsFile, 'instructions').errors(instructions);
  const fields = fromConfigJson.map((e) => e.field);
  for (const field of ['instructions.instructionSettings.defaultTimeoutSeconds', 'instructions.instructions.read.readWrite', 'instructions.instructions.read.protocolPropertyList.a']) t.true(fields.includes(field), `${field} in ${fields.join(', ')}`);
  t.deepEqual(fromConfigJson, new Validator(InstructionsFile, 'instructions').errors(instructions));
});
