// Which transports a bus client may use: TLS anywhere, plain MQTT only to this machine (loopback)
// unless the insecure flag says so by name (controller/drone/README.md, "Transport and abuse").
import { EdgeshifuError } from '../errors.ts';
import type { BusOptions } from './client.ts';

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|::ffff:127(\.\d{1,3}){3})$/i;

/** Whether `host` (a URL's host name, IPv6 without brackets) is a loopback address. */
export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host);
}

/** Throws 'invalid' for a plain-text URL to a host off this machine, unless allowInsecure says so. */
export function insecureRefusal(options: Pick<BusOptions, 'url' | 'allowInsecure' | 'broker'>): void {
  if (options.allowInsecure === true || options.broker !== undefined) return;
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new EdgeshifuError('invalid', `broker URL "${options.url}" is not a URL; use mqtts://host:8883`);
  }
  if (!['mqtt:', 'tcp:', 'ws:'].includes(url.protocol)) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isLoopback(host)) return;
  throw new EdgeshifuError('invalid', `broker URL ${url.protocol}//${url.host} is plain text to a host that is not loopback: passwords and every message would cross the network in clear. Use mqtts://${url.hostname}:8883 with the federation CA (edgeshifu federation), or set the insecure flag (--drone-allow-insecure / Federation spec.insecure: true) to accept it.`);
}
