// The ConfigMap parser: Shifu's demos as they are, defaults in one place, and errors that name
// the key and the line.
import test from 'ava';
import { parseConfig } from '../../deviceshifu/config/parse.ts';
import { CONFIG_DEFAULTS } from '../../deviceshifu/config/defaults.ts';
import { isEdgeshifuError } from '../../shared/errors.ts';
import { configMapData } from './support/configdir.ts';

const THERMOMETER = new URL('../support/shifu/thermometer-configmap.yaml', import.meta.url);

test('Shifu\'s thermometer ConfigMap parses with its own timeout and telemetry timing', async (t) => {
  const config = parseConfig(await configMapData(THERMOMETER));
  t.deepEqual(config.driver, { sku: 'Thermometer', image: 'edgenesis/thermometer:v0.0.1' });
  t.is(config.defaultTimeoutSeconds, 8);
  t.deepEqual([...config.instructions.keys()], ['get_status', 'read_value']);
  t.is(config.instructions.get('read_value')?.readWrite, 'R');
  t.deepEqual(config.telemetries, [{ name: 'device_health', instruction: 'get_status', initialDelayMs: 1000, intervalMs: 1000, timeoutMs: 3000 }]);
  t.deepEqual(config.warnings, []);
});

test('absent settings take the documented defaults', (t) => {
  const config = parseConfig({
    instructions: 'instructions:\n  get_status:\n',
    telemetries: 'telemetries:\n  health:\n    properties:\n      instruction: get_status\n',
  });
  t.is(config.defaultTimeoutSeconds, CONFIG_DEFAULTS.defaultTimeoutSeconds);
  t.is(config.instructions.get('get_status')?.readWrite, 'RW');
  const [health] = config.telemetries;
  t.is(health?.intervalMs, CONFIG_DEFAULTS.telemetryUpdateIntervalInMilliseconds);
  t.is(health?.initialDelayMs, CONFIG_DEFAULTS.telemetryInitialDelayInMilliseconds);
  t.is(health?.timeoutMs, CONFIG_DEFAULTS.telemetryTimeoutInMilliseconds);
  t.is(health?.pushTo, undefined);
});

test('newer demo keys (readWrite, description, hasSideEffects, riskLevel) are accepted', (t) => {
  const config = parseConfig({
    instructions: [
      'instructionSettings:', '  defaultTimeoutSeconds: 8', 'instructions:',
      '  sendsinglebit:', '    readWrite: W', '    description: Set one bit', '    hasSideEffects: true', '    riskLevel: RequireConfirmation',
      '    protocolPropertyList:', '      MQTTTopic: /test/test1', '      retries: 3',
    ].join('\n'),
    connectionInfo: 'HTTP protocol.',
  });
  const instruction = config.instructions.get('sendsinglebit');
  t.is(instruction?.readWrite, 'W');
  t.is(instruction?.description, 'Set one bit');
  t.deepEqual(instruction?.protocolProperties, { MQTTTopic: '/test/test1', retries: '3' });
  t.true(config.warnings.some((w) => w.startsWith('connectionInfo: not a key deviceShifu reads')));
});

test('the one-l misspelling of the update interval is read as an alias, with a warning', (t) => {
  const config = parseConfig({
    instructions: 'instructions:\n  cmd:\n    readWrite: RW\n',
    telemetries: 'telemetrySettings:\n  telemetryUpdateIntervalInMiliseconds: 1500\ntelemetries:\n  t1:\n    properties:\n      instruction: cmd\n',
  });
  t.is(config.telemetries[0]?.intervalMs, 1500);
  t.regex(config.warnings.join('\n'), /telemetries line 2: telemetryUpdateIntervalInMiliseconds is misspelled/);
});

test('controlMsgs and a telemetry with empty properties (Shifu\'s MQTT demo) parse', (t) => {
  const config = parseConfig({
    driverProperties: 'driverSku: testMQTT\ndriverImage:\n',
    instructions: 'instructions:\n  get_topicmsg1:\n    protocolPropertyList:\n      MQTTTopic: "/test/test1"\n',
    telemetries: 'telemetries:\n  device_health:\n    properties:\n',
    controlMsgs: 'moving_the_device: "device_finish_moving"\n',
  });
  t.deepEqual(config.controlMsgs, { moving_the_device: 'device_finish_moving' });
  t.is(config.telemetries[0]?.instruction, undefined);
  t.deepEqual(config.driver, { sku: 'testMQTT' });
});

test('instructions without the instructions: wrapper (Shifu\'s PowerShell demo) are read, with a warning', (t) => {
  const config = parseConfig({ instructions: 'issue_cmd:\nstub_health:\n' });
  t.deepEqual([...config.instructions.keys()], ['issue_cmd', 'stub_health']);
  t.regex(config.warnings.join('\n'), /top-level keys are read as instructions/);
});

test('per-telemetry push settings override the defaults', (t) => {
  const config = parseConfig({
    instructions: 'instructions:\n  status:\n',
    telemetries: [
      'telemetrySettings:', '  defaultPushToServer: true', '  defaultTelemetryCollectionService: push-endpoint-1',
      'telemetries:', '  a:', '    properties:', '      instruction: status',
      '  b:', '    properties:', '      instruction: status', '      pushSettings:', '        telemetryCollectionService: push-endpoint-2',
      '  c:', '    properties:', '      instruction: status', '      pushSettings:', '        pushToServer: false',
    ].join('\n'),
  });
  t.deepEqual(config.telemetries.map((x) => [x.name, x.pushTo]), [['a', 'push-endpoint-1'], ['b', 'push-endpoint-2'], ['c', undefined]]);
});

const BAD: ReadonlyArray<{ name: string; files: Record<string, string>; expect: RegExp }> = [
  { name: 'a YAML syntax error', files: { instructions: 'instructions:\n  a: [1,\n' }, expect: /instructions line 3: / },
  { name: 'a duplicate key', files: { instructions: 'instructions:\n  a:\n  a:\n' }, expect: /instructions line 2: Map keys must be unique/ },
  { name: 'an unknown readWrite', files: { instructions: 'instructions:\n  a:\n    readWrite: X\n' }, expect: /instructions line 3: instructions\.instructions\.a\.readWrite must be one of "R", "W", "RW"/ },
  { name: 'a timeout that is not a number', files: { instructions: 'instructionSettings:\n  defaultTimeoutSeconds: soon\n' }, expect: /instructions line 2: .*defaultTimeoutSeconds must be integer/ },
  { name: 'an instruction named health', files: { instructions: 'instructions:\n  ok:\n  health:\n    readWrite: R\n' }, expect: /instructions line 3: instruction "health" collides with the built-in path \/health/ },
  { name: 'an instruction named metrics', files: { instructions: 'instructions:\n  metrics:\n' }, expect: /collides with the built-in path \/metrics/ },
  { name: 'an instruction named instructions', files: { instructions: 'instructions:\n  instructions:\n' }, expect: /collides with the built-in path \/instructions/ },
  { name: 'an instruction named ready', files: { instructions: 'instructions:\n  ready:\n' }, expect: /collides with the built-in path \/ready/ },
  { name: 'an instruction with a slash', files: { instructions: 'instructions:\n  a/b:\n' }, expect: /must be one URL path segment/ },
  { name: 'a telemetry of an unknown instruction', files: { instructions: 'instructions:\n  a:\n', telemetries: 'telemetries:\n  t:\n    properties:\n      instruction: b\n' }, expect: /telemetries line 4: telemetry "t" polls instruction "b"/ },
  { name: 'a negative interval', files: { telemetries: 'telemetries:\n  t:\n    properties:\n      intervalMs: -5\n' }, expect: /telemetries line 4: .*intervalMs must be >= 1/ },
  { name: 'a controlMsgs list', files: { controlMsgs: '- a\n- b\n' }, expect: /controlMsgs line 1: controlMsgs must be/ },
  { name: 'a driverProperties string', files: { driverProperties: 'just text' }, expect: /driverProperties line 1: is a plain string, expected a YAML mapping/ },
];

for (const bad of BAD) {
  test(`${bad.name} is an invalid error naming the key and line`, (t) => {
    const error = t.throws(() => parseConfig(bad.files));
    t.true(isEdgeshifuError(error, 'invalid'));
    t.regex(error.message, bad.expect);
  });
}

test('every problem of every key is reported at once', (t) => {
  const error = t.throws(() => parseConfig({
    instructions: 'instructions:\n  health:\n  x:\n    readWrite: Q\n',
    controlMsgs: 'a: [1]\n',
  }));
  t.regex(error.message, /instructions line 2: .*health/);
  t.regex(error.message, /instructions line 4: .*readWrite/);
  t.regex(error.message, /controlMsgs line 1: /);
});
