// mDNS (DNS-SD) for unattended discovery, where mDNS is present: what answered a browse,
// turned into host:port candidates — only for addresses inside the configured subnets, and only
// asked on interfaces inside them. Pure; the browse itself is mdnsBrowser.ts.
import { inSubnets } from './discovery-plan.ts';

/** One record of an mDNS response, as dns-packet decodes it (answers and additionals alike). */
export interface MdnsRecord {
  readonly type: string;
  readonly name: string;
  readonly data?: unknown;
}

export interface MdnsService {
  /** ip:port, as the TCP scan reports endpoints. */
  readonly endpoint: string;
  /** e.g. "thermo._http._tcp.local" */
  readonly instance: string;
  /** e.g. "_http._tcp.local" */
  readonly service: string;
}

/** Service types are listed under this name (RFC 6763 §9). */
export const SERVICE_TYPES = '_services._dns-sd._udp.local';

const lower = (name: string): string => name.toLowerCase().replace(/\.$/, '');

/** Code-point order: deterministic, which is all this sort needs; localeCompare loads ICU's collation data (~2.3 MB RSS). */
function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function srvOf(data: unknown): { port: number; target: string } | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { port, target } = data as { port?: unknown; target?: unknown };
  return typeof port === 'number' && typeof target === 'string' ? { port, target: lower(target) } : undefined;
}

/** The service types a browse found, to be asked for their instances. */
export function serviceTypes(records: readonly MdnsRecord[]): string[] {
  const types = records.filter((r) => r.type === 'PTR' && lower(r.name) === SERVICE_TYPES && typeof r.data === 'string').map((r) => lower(r.data as string));
  return [...new Set(types)].sort();
}

/**
 * Every advertised instance whose SRV target has an IPv4 address inside the subnets: PTR (service
 * → instance), SRV (instance → port, host), A (host → address). Instances outside are dropped.
 */
export function mdnsServices(records: readonly MdnsRecord[], subnets: readonly string[]): MdnsService[] {
  const srv = new Map<string, { port: number; target: string }>();
  const addresses = new Map<string, Set<string>>();
  for (const record of records) {
    const name = lower(record.name);
    const found = record.type === 'SRV' ? srvOf(record.data) : undefined;
    if (found !== undefined) srv.set(name, found);
    if (record.type === 'A' && typeof record.data === 'string') addresses.set(name, (addresses.get(name) ?? new Set()).add(record.data));
  }
  const services = new Map<string, MdnsService>();
  for (const record of records) {
    const service = lower(record.name);
    if (record.type !== 'PTR' || service === SERVICE_TYPES || typeof record.data !== 'string') continue;
    const instance = lower(record.data);
    const target = srv.get(instance);
    if (target === undefined) continue;
    for (const ip of addresses.get(target.target) ?? []) {
      if (!inSubnets(ip, subnets)) continue;
      const endpoint = `${ip}:${target.port}`;
      services.set(`${instance} ${endpoint}`, { endpoint, instance, service });
    }
  }
  return [...services.values()].sort((a, b) => byCodePoint(a.endpoint, b.endpoint) || byCodePoint(a.instance, b.instance));
}

/** This node's IPv4 addresses inside the subnets: the interfaces a browse may ask on. */
export function browseAddresses(interfaces: Readonly<Record<string, ReadonlyArray<{ address: string; family: string | number; internal: boolean }> | undefined>>, subnets: readonly string[]): string[] {
  const found = Object.values(interfaces).flatMap((infos) => infos ?? [])
    .filter((i) => !i.internal && (i.family === 'IPv4' || i.family === 4) && inSubnets(i.address, subnets))
    .map((i) => i.address);
  return [...new Set(found)].sort();
}
