import test from 'ava';
import { Writable } from 'node:stream';
import { createLogger } from '../../shared/log.ts';

function capture(): { stream: Writable; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const stream = new Writable({ write(chunk: Buffer, _enc, done) { chunks.push(chunk.toString()); done(); } });
  return { stream, lines: () => chunks.join('').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) };
}

test('log lines are JSON with the component, level and an ISO time', (t) => {
  const out = capture();
  createLogger('controller', { destination: out.stream }).info({ device: 'thermo' }, 'placed');
  const [line] = out.lines();
  t.is(line?.component, 'controller');
  t.is(line?.level, 'info');
  t.is(line?.msg, 'placed');
  t.is(line?.device, 'thermo');
  t.regex(String(line?.time), /^\d{4}-\d\d-\d\dT/);
});

test('credentials are censored wherever they sit in a logged object', (t) => {
  const out = capture();
  const device = { spec: { protocolSettings: { MQTTSetting: { MQTTServerUserName: 'plant', MQTTServerPassword: 's3cret-mqtt' } } } };
  createLogger('deviceshifu', { destination: out.stream }).warn({ device, headers: { authorization: 'Bearer tok-123' }, password: 'p4ss' }, 'connect failed');
  const text = JSON.stringify(out.lines());
  for (const secret of ['s3cret-mqtt', 'tok-123', 'p4ss']) t.false(text.includes(secret), secret);
  t.true(text.includes('plant'), 'user names are not credentials');
  t.true(text.includes('[redacted]'));
});
