// Which caller headers may reach a device, and which device headers may reach the caller. The
// caller's credentials for deviceShifu are not the device's: Authorization and Cookie never pass,
// nor anything hop-by-hop (REFERENCE.md §2: Shifu may send the cluster's token to devices).
const NEVER_TO_DEVICE = new Set([
  'authorization', 'proxy-authorization', 'cookie', 'host', 'content-length',
  'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-real-ip',
]);
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-connection', 'proxy-authenticate']);

type IncomingHeaders = Readonly<Record<string, string | string[] | undefined>>;

function named(headers: IncomingHeaders, drop: (name: string) => boolean): Record<string, string> {
  const connectionListed = new Set(String(headers.connection ?? '').toLowerCase().split(',').map((s) => s.trim()).filter((s) => s !== ''));
  const kept: Record<string, string> = {};
  for (const [rawName, value] of Object.entries(headers)) {
    const name = rawName.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(name) || connectionListed.has(name) || drop(name)) continue;
    kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}

/** Caller headers a device may see. */
export function deviceBoundHeaders(headers: IncomingHeaders): Record<string, string> {
  return named(headers, (name) => NEVER_TO_DEVICE.has(name));
}

/** Device headers the caller may see (the length is dropped when the body is re-framed). */
export function callerBoundHeaders(headers: IncomingHeaders): Record<string, string> {
  return named(headers, (name) => name === 'set-cookie');
}
