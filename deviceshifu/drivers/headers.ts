// Which caller headers may reach a device, and which device headers may reach the caller. The
// caller's credentials for deviceShifu are not the device's: Authorization and Cookie never pass,
// nor anything hop-by-hop (Shifu's deviceShifu forwards them, the cluster's token included).
// Headers travel as Node's raw lists (name, value, name, value…: IncomingMessage.rawHeaders), which
// node:http writes as they are: no header object is built on the request path.
const NEVER_TO_DEVICE = new Set([
  'authorization', 'proxy-authorization', 'cookie', 'host', 'content-length',
  'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-real-ip',
]);
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-connection', 'proxy-authenticate']);
const NEVER_TO_CALLER = new Set(['set-cookie']);

/** name, value, name, value…: names as sent (any case). */
export type RawHeaders = readonly string[];

/** The header names a Connection header lists (each hop-by-hop for this message alone). */
function connectionListed(raw: RawHeaders): Set<string> | undefined {
  let listed: Set<string> | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() !== 'connection') continue;
    for (const token of (raw[i + 1] ?? '').split(',')) {
      const name = token.trim().toLowerCase();
      if (name !== '') (listed ??= new Set()).add(name);
    }
  }
  return listed;
}

function kept(raw: RawHeaders, drop: ReadonlySet<string>): string[] {
  const listed = connectionListed(raw);
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? '';
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || drop.has(lower) || listed?.has(lower) === true) continue;
    out.push(name, raw[i + 1] ?? '');
  }
  return out;
}

/** Caller headers a device may see. */
export function deviceBoundHeaders(raw: RawHeaders): string[] {
  return kept(raw, NEVER_TO_DEVICE);
}

/** Device headers the caller may see. */
export function callerBoundHeaders(raw: RawHeaders): string[] {
  return kept(raw, NEVER_TO_CALLER);
}

/** The first value of a header (name in lower case), from a raw list or a header object. */
export function headerValue(headers: RawHeaders | Readonly<Record<string, string>>, name: string): string | undefined {
  if (!Array.isArray(headers)) return (headers as Readonly<Record<string, string>>)[name];
  const raw = headers as RawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]?.toLowerCase() === name) return raw[i + 1];
  return undefined;
}
