import test from 'ava';
import { Writable } from 'node:stream';
import { createJsonLogger } from '../../shared/json-log.ts';
import { createLogger } from '../../shared/log.ts';

function capture(): { stream: Writable; text: () => string; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const stream = new Writable({ write(chunk: Buffer, _enc, done) { chunks.push(chunk.toString()); done(); } });
  const text = (): string => chunks.join('');
  return { stream, text, lines: () => text().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) };
}

/** The same calls through pino (shared/log.ts) and the lean logger, lines with their time taken out. */
function both(calls: (log: ReturnType<typeof createJsonLogger>) => void): { pino: string[]; lean: string[] } {
  const pino = capture();
  const lean = capture();
  calls(createLogger('deviceshifu', { destination: pino.stream, level: 'debug' }));
  calls(createJsonLogger('deviceshifu', { destination: lean.stream, level: 'debug' }));
  const timeless = (text: string): string[] => text.trim().split('\n').map((l) => l.replace(/"time":"[^"]+"/, '"time":"T"'));
  return { pino: timeless(pino.text()), lean: timeless(lean.text()) };
}

test('a line is what pino writes for deviceShifu: the same keys in the same order, byte for byte', (t) => {
  const { pino, lean } = both((log) => {
    log.info({ settings: { port: 8080, bindAddress: '127.0.0.1' } }, 'deviceShifu starting');
    log.warn('EdgeDevice not found yet; waiting for it');
    log.child({ protocol: 'HTTP' }).child({ instruction: 'read_value' }).error({ err: 'connect ECONNREFUSED', status: 502 }, 'device call failed');
    log.debug({ instructions: ['a', 'b'], telemetries: [] }, 'configuration applied');
    log.info({ nothing: undefined, n: 1.5, yes: true, none: null }, 'values');
  });
  t.deepEqual(lean, pino);
  t.is(lean.length, 5);
  t.regex(lean[0] ?? '', /^\{"level":"info","time":"T","component":"deviceshifu","settings":/);
});

test('credentials are censored at any depth, user names are not, and the logged object is left as it was', (t) => {
  const out = capture();
  const device = { spec: { protocolSettings: { MQTTSetting: { MQTTServerUserName: 'plant', MQTTServerPassword: 's3cret-mqtt' } } } };
  const deep = { a: { b: { c: { d: { e: { f: { token: 'deep-tok' } } } } } } };
  const fields = { device, deep, headers: { authorization: 'Bearer tok-123' }, password: 'p4ss', list: [{ secret: 'in-array' }] };
  createJsonLogger('deviceshifu', { destination: out.stream }).warn(fields, 'connect failed');
  const text = out.text();
  for (const secret of ['s3cret-mqtt', 'tok-123', 'p4ss', 'deep-tok', 'in-array']) t.false(text.includes(secret), secret);
  t.true(text.includes('plant'), 'user names are not credentials');
  const [line] = out.lines();
  t.is((line?.headers as Record<string, unknown>).authorization, '[redacted]');
  t.is(device.spec.protocolSettings.MQTTSetting.MQTTServerPassword, 's3cret-mqtt', 'the caller\'s object is untouched');
});

test('levels below the logger\'s are not written; a child keeps its own level; an unknown level is refused', (t) => {
  const out = capture();
  const log = createJsonLogger('deviceshifu', { destination: out.stream, level: 'warn' });
  log.info('dropped');
  log.debug({ x: 1 }, 'dropped');
  log.warn('kept');
  const child = log.child({ device: 'thermo' });
  child.level = 'debug';
  child.debug('child debug');
  log.debug('parent still at warn');
  t.is(log.level, 'warn');
  t.is(child.level, 'debug');
  t.deepEqual(out.lines().map((l) => [l.level, l.msg, l.device]), [['warn', 'kept', undefined], ['debug', 'child debug', 'thermo']]);
  t.throws(() => createJsonLogger('deviceshifu', { level: 'verbose' }), { message: /unknown log level "verbose": use one of trace, debug, info/ });
  const silent = capture();
  createJsonLogger('deviceshifu', { destination: silent.stream, level: 'silent' }).fatal('nothing');
  t.is(silent.text(), '');
});

test('errors are written as type, message and stack; a cycle or a bigint does not lose the line', (t) => {
  const out = capture();
  const log = createJsonLogger('deviceshifu', { destination: out.stream });
  log.error(new TypeError('bad device reply'));
  log.error({ err: new RangeError('out of range') }, 'with a message');
  const cyclic: Record<string, unknown> = { name: 'a', password: 'cyc-pass' };
  cyclic.self = cyclic;
  log.info({ cyclic, big: 12n }, 'cycle');
  const [alone, withMessage, cycle] = out.lines();
  t.is(alone?.msg, 'bad device reply');
  t.like(alone?.err, { type: 'TypeError', message: 'bad device reply' });
  t.regex(String((alone?.err as Record<string, unknown>).stack), /TypeError: bad device reply/);
  t.is(withMessage?.msg, 'with a message');
  t.like(withMessage?.err, { type: 'RangeError', message: 'out of range' });
  t.deepEqual(cycle?.cyclic, { name: 'a', password: '[redacted]', self: '[Circular]' });
  t.is(cycle?.big, '12');
  t.is(cycle?.msg, 'cycle');
});
