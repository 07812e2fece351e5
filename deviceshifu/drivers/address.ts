// EdgeDevice addresses as Shifu users write them: "host:port", or a URL.
import { EdgeshifuError } from '../../shared/errors.ts';

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** "host:port", "[v6]:port" or "scheme://host:port/…" → host and port. */
export function hostPort(address: string | undefined, defaultPort?: number): HostPort {
  if (address === undefined || address.trim() === '') throw new EdgeshifuError('invalid', 'the EdgeDevice has no spec.address');
  const withScheme = address.includes('://') ? address : `tcp://${address}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new EdgeshifuError('invalid', `spec.address "${address}" is not host:port or a URL`);
  }
  const port = url.port === '' ? defaultPort : Number(url.port);
  if (port === undefined) throw new EdgeshifuError('invalid', `spec.address "${address}" has no port`);
  return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port };
}

/** The base URL of an HTTP device: Shifu prepends http:// to a bare host:port. */
export function httpBase(address: string | undefined): URL {
  if (address === undefined || address.trim() === '') throw new EdgeshifuError('invalid', 'the EdgeDevice has no spec.address');
  const base = new URL(/^https?:\/\//i.test(address) ? address : `http://${address}`);
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  return base;
}

/** Where an HTTP device listens, as node:http takes it. */
export interface HttpDevice {
  readonly https: boolean;
  readonly host: string;
  readonly port: number;
  /** The Host header: host, and port unless the scheme's own. */
  readonly hostHeader: string;
}

export function httpDevice(base: URL): HttpDevice {
  const https = base.protocol === 'https:';
  const { host, port } = hostPort(base.href, https ? 443 : 80);
  return { https, host, port, hostHeader: base.host };
}

/** `<base path><instruction>`, the name percent-encoded; the caller's query is appended as sent (Shifu does the same). */
export function instructionPath(base: URL, name: string): string {
  return new URL(encodeURIComponent(name), base).pathname;
}
