// shared/time.ts writes what V8's formatters write, without loading ICU's time zone data.
import test from 'ava';
import fc from 'fast-check';
import { http } from '../../shared/node-http.ts';
import { httpDate, isoTime, setDateHeader } from '../../shared/time.ts';

// 0001-01-01 to 9999-12-31: toISOString writes other years with a sign and six digits
const instant = fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 });

test('isoTime is toISOString', (t) => {
  t.is(isoTime(0), '1970-01-01T00:00:00.000Z');
  t.is(isoTime(Date.UTC(2026, 10, 23, 2, 34, 6, 7)), '2026-11-23T02:34:06.007Z');
  fc.assert(fc.property(instant, (ms) => isoTime(ms) === new Date(ms).toISOString()));
  t.pass();
});

test('httpDate is toUTCString (the HTTP Date format)', (t) => {
  t.is(httpDate(Date.UTC(2026, 10, 23, 2, 34, 6)), 'Mon, 23 Nov 2026 02:34:06 GMT');
  fc.assert(fc.property(instant, (ms) => httpDate(ms) === new Date(ms).toUTCString()));
  t.pass();
});

test('a server that sets its own Date header sends exactly one, in the HTTP format', async (t) => {
  const server = http.createServer((_req, res) => { setDateHeader(res); res.end('ok'); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  try {
    const before = Date.now() - 1000;
    const raw = await new Promise<string[]>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: '/' }, (res) => { res.resume(); resolve(res.rawHeaders); }).once('error', reject);
    });
    const dates = raw.filter((_v, i) => i % 2 === 0 && raw[i]?.toLowerCase() === 'date').length;
    t.is(dates, 1);
    const value = raw[raw.findIndex((v, i) => i % 2 === 0 && v.toLowerCase() === 'date') + 1] ?? '';
    t.regex(value, /^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT$/);
    t.true(Date.parse(value) >= Math.floor(before / 1000) * 1000);
  } finally {
    server.close();
  }
});
