import test from 'ava';
import { Writable } from 'node:stream';
import { createLogger, deferredChild } from '../../shared/log.ts';

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

test('a deferred child is made on its first line, and its lines carry the bindings and are censored', (t) => {
  const out = capture();
  const parent = createLogger('controller', { destination: out.stream });
  const made: unknown[] = [];
  // pino calls onChild with every child it makes
  parent.onChild = (child) => { made.push(child.bindings()); };
  const log = deferredChild(parent, { key: 'devices/thermo', reconcileId: 'r1' });
  t.deepEqual(made, [], 'nothing is made before a line');
  log.info({ password: 'p4ss' }, 'applied');
  log.debug('below the level');
  log.warn('again');
  log.child({ object: 'Deployment/x' }).info('nested');
  // one child for the reconcile however many lines, and the nested one made from it
  const reconcile = { component: 'controller', key: 'devices/thermo', reconcileId: 'r1' };
  t.deepEqual(made, [reconcile, { ...reconcile, object: 'Deployment/x' }]);
  const lines = out.lines();
  t.deepEqual(lines.map((l) => [l.msg, l.key, l.reconcileId, l.component]), [['applied', 'devices/thermo', 'r1', 'controller'], ['again', 'devices/thermo', 'r1', 'controller'], ['nested', 'devices/thermo', 'r1', 'controller']]);
  t.is(lines[2]?.object, 'Deployment/x');
  t.false(JSON.stringify(lines).includes('p4ss'));
  t.is(log.level, 'info');
});
