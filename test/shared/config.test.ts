import test from 'ava';
import { Type } from '@sinclair/typebox';
import { envName, flagName, loadConfig, printableConfig } from '../../shared/config.ts';
import { isEdgeshifuError } from '../../shared/errors.ts';

const Schema = Type.Object({
  metricsPort: Type.Integer({ minimum: 1, maximum: 65535, default: 9090 }),
  namespace: Type.String({ default: 'deviceshifu' }),
  leaderElection: Type.Boolean({ default: true }),
  brokerPassword: Type.Optional(Type.String({ secret: true })),
  zones: Type.Array(Type.String(), { default: [] }),
});

test('keys map to --kebab-case flags and EDGESHIFU_ environment variables', (t) => {
  t.is(flagName('metricsPort'), 'metrics-port');
  t.is(envName('metricsPort'), 'EDGESHIFU_METRICS_PORT');
});

test('defaults, then environment, then flags', (t) => {
  t.deepEqual(loadConfig(Schema), { metricsPort: 9090, namespace: 'deviceshifu', leaderElection: true, zones: [] });
  const config = loadConfig(Schema, {
    env: { EDGESHIFU_METRICS_PORT: '9100', EDGESHIFU_NAMESPACE: 'edge', EDGESHIFU_ZONES: 'a, b' },
    argv: ['--metrics-port', '9200', '--no-leader-election'],
  });
  t.deepEqual(config, { metricsPort: 9200, namespace: 'edge', leaderElection: false, zones: ['a', 'b'] });
});

test('a bad value is an invalid error naming the key and its source', (t) => {
  const notNumber = t.throws(() => loadConfig(Schema, { env: { EDGESHIFU_METRICS_PORT: 'ninety' } }));
  t.true(isEdgeshifuError(notNumber, 'invalid'));
  t.regex(notNumber.message, /EDGESHIFU_METRICS_PORT must be a number, got "ninety"/);
  const outOfRange = t.throws(() => loadConfig(Schema, { argv: ['--metrics-port', '70000'] }));
  t.regex(outOfRange.message, /config\.metricsPort must be <= 65535/);
  const unknown = t.throws(() => loadConfig(Schema, { argv: ['--metric-port', '1'] }));
  t.regex(unknown.message, /bad command line: .*metric-port/);
});

test('the printable configuration masks secrets', (t) => {
  const config = loadConfig(Schema, { env: { EDGESHIFU_BROKER_PASSWORD: 'hunter2' } });
  t.is(config.brokerPassword, 'hunter2');
  t.is(printableConfig(Schema, config).brokerPassword, '[redacted]');
});
