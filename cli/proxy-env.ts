// The proxy the CLI reaches an API server through when its kubeconfig names none (`proxy-url`),
// from the environment as kubectl reads it (cli/README.md, "What the CLI honours"): HTTPS_PROXY
// for an https:// server, HTTP_PROXY for http://, upper case before lower; NO_PROXY lists hosts,
// domain suffixes, IPs and CIDRs that go direct, `*` all; localhost and loopback never use one. Pure.
import { BlockList, isIP } from 'node:net';

function envOf(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name.toUpperCase()] ?? env[name.toLowerCase()];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function isLoopback(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

function cidrMatches(entry: string, host: string): boolean {
  const [net, bits] = entry.split('/');
  const family = isIP(net ?? '');
  if (family === 0 || isIP(host) !== family || bits === undefined) return false;
  const list = new BlockList();
  list.addSubnet(net ?? '', Number(bits), family === 4 ? 'ipv4' : 'ipv6');
  return list.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

/** One NO_PROXY entry against the server's host and port. */
function bypasses(rawEntry: string, host: string, port: string): boolean {
  let entry = rawEntry.trim().toLowerCase();
  if (entry === '') return false;
  if (entry === '*') return true;
  if (entry.includes('/')) return cidrMatches(entry, host);
  const portMatch = /^(.*):(\d+)$/.exec(entry);
  if (portMatch !== null && isIP(entry) !== 6) {
    if (portMatch[2] !== port) return false;
    entry = portMatch[1] ?? '';
  }
  entry = entry.replace(/^\[(.*)\]$/, '$1');
  if (isIP(entry) !== 0) return entry === host;
  // "example.com" and ".example.com" both cover the domain's hosts; the first also the domain itself
  const domain = entry.startsWith('*.') ? entry.slice(1) : entry;
  if (domain.startsWith('.')) return host.endsWith(domain) || host === domain.slice(1);
  return host === domain || host.endsWith(`.${domain}`);
}

/** The proxy URL for `server`, or undefined to connect directly. */
export function proxyFromEnvironment(server: string, env: NodeJS.ProcessEnv): string | undefined {
  const url = new URL(server);
  const proxy = envOf(env, url.protocol === 'https:' ? 'https_proxy' : 'http_proxy');
  if (proxy === undefined) return undefined;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (isLoopback(host)) return undefined;
  const port = url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port;
  const noProxy = envOf(env, 'no_proxy') ?? '';
  if (noProxy.split(',').some((entry) => bypasses(entry, host, port))) return undefined;
  // a bare host:port means http:// (as Go's proxy parsing reads it)
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
}
