// Parses the network addresses EdgeDevices carry ("host:port", "[v6]:port", "scheme://host:port/…")
// into host and port, or says exactly what is wrong and how to write it instead (bad input).
import { isIP } from 'node:net';

export interface Endpoint {
  readonly host: string;
  readonly port: number;
  /** Lower-case scheme when the address was a URL. */
  readonly scheme?: string;
  /** Path of a URL address ('' otherwise). */
  readonly path: string;
}

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

const HOSTNAME = /^(?=.{1,253}$)([a-zA-Z0-9]([-a-zA-Z0-9_]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([-a-zA-Z0-9_]{0,61}[a-zA-Z0-9])?)*\.?$/;

function fail<T>(message: string): Parsed<T> {
  return { ok: false, message };
}

function checkHost(host: string, field: string, raw: string): string | undefined {
  if (host === '') return `${field} "${raw}" has no host: write host:port, e.g. "192.168.1.20:502"`;
  if (isIP(host) === 0 && !HOSTNAME.test(host)) return `${field} "${raw}" has an invalid host "${host}": use an IP address or a DNS name`;
  return undefined;
}

function checkPort(text: string, field: string, raw: string): Parsed<number> {
  if (!/^\d{1,5}$/.test(text)) return fail(`${field} "${raw}" has an invalid port "${text}": use a number from 1 to 65535`);
  const port = Number(text);
  if (port < 1 || port > 65535) return fail(`${field} "${raw}" has port ${port}: use a port from 1 to 65535`);
  return { ok: true, value: port };
}

function fromUrl(raw: string, field: string, defaultPorts: Readonly<Record<string, number>>): Parsed<Endpoint> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail(`${field} "${raw}" is not a valid URL: write scheme://host:port/path`);
  }
  const scheme = url.protocol.replace(/:$/, '').toLowerCase();
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const hostError = checkHost(host, field, raw);
  if (hostError !== undefined) return fail(hostError);
  const port = url.port === '' ? defaultPorts[scheme] : Number(url.port);
  if (port === undefined) return fail(`${field} "${raw}" has no port and ${scheme}:// has no default: add :port after the host`);
  return { ok: true, value: { host, port, scheme, path: url.pathname === '/' ? '' : url.pathname } };
}

function splitHostPort(raw: string, field: string): Parsed<{ host: string; port?: string }> {
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(raw);
  if (bracketed) return { ok: true, value: { host: bracketed[1] ?? '', ...(bracketed[2] === undefined ? {} : { port: bracketed[2] }) } };
  const colons = raw.split(':').length - 1;
  if (colons > 1) return fail(`${field} "${raw}" looks like an IPv6 address without brackets: write [address]:port, e.g. "[fd00::20]:502"`);
  const [host = '', port] = raw.split(':');
  return { ok: true, value: { host, ...(port === undefined ? {} : { port }) } };
}

/**
 * host:port or a URL. `defaultPort` applies when a bare host is acceptable (HTTP: 80); otherwise a
 * missing port is an error that shows the fix.
 */
export function parseEndpoint(raw: string, field: string, defaults: { port?: number; schemes?: Readonly<Record<string, number>> } = {}): Parsed<Endpoint> {
  const text = raw.trim();
  if (text === '') return fail(`${field} is empty: write host:port, e.g. "192.168.1.20:502"`);
  if (/\s/.test(text)) return fail(`${field} "${raw}" contains spaces: write host:port, e.g. "192.168.1.20:502"`);
  if (text.includes('://')) return fromUrl(text, field, defaults.schemes ?? {});
  if (text.startsWith('/')) return fail(`${field} "${raw}" is a device path, not a network address: write host:port, or set spec.connection to USB or Serial with spec.attachedNode`);
  const split = splitHostPort(text, field);
  if (!split.ok) return split;
  const { host, port } = split.value;
  const hostError = checkHost(host, field, raw);
  if (hostError !== undefined) return fail(hostError);
  if (port === undefined) {
    if (defaults.port !== undefined) return { ok: true, value: { host, port: defaults.port, path: '' } };
    return fail(`${field} "${raw}" has no port: write host:port, e.g. "${host}:502"`);
  }
  const checked = checkPort(port, field, raw);
  return checked.ok ? { ok: true, value: { host, port: checked.value, path: '' } } : checked;
}
