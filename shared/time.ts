// Timestamps written from Date's UTC getters. V8's own formatters (toISOString, toJSON,
// toUTCString) load ICU's time zone data on first use, UTC or not: about 0.8 MB of RSS in
// deviceShifu and shifud for what these few lines write as well. Node's HTTP
// server formats its Date header with toUTCString, so servers set that header themselves.

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `2026-11-23T02:34:06.123Z`, as Date.prototype.toISOString writes it (years 0 to 9999). */
export function isoTime(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}Z`;
}

/** `Mon, 23 Nov 2026 02:34:06 GMT` (RFC 9110 IMF-fixdate), as Date.prototype.toUTCString writes it. */
export function httpDate(ms: number): string {
  const d = new Date(ms);
  return `${DAYS[d.getUTCDay()] ?? ''}, ${pad(d.getUTCDate())} ${MONTHS[d.getUTCMonth()] ?? ''} ${pad(d.getUTCFullYear(), 4)} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} GMT`;
}

/** For a node:http response: the Date header from httpDate instead of Node's toUTCString. */
export function setDateHeader(res: { sendDate: boolean; setHeader(name: string, value: string): unknown }, now = Date.now()): void {
  res.sendDate = false;
  res.setHeader('Date', httpDate(now));
}

let cachedSecond = -1;
let cachedDate = '';

/** httpDate of now, formatted once a second (a reply path asks for it on every response). */
export function currentHttpDate(now = Date.now()): string {
  const second = Math.floor(now / 1000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedDate = httpDate(now);
  }
  return cachedDate;
}
