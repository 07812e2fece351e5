// Unattended discovery (optional): the addresses and ports to try come only from the
// configured subnets and ports — nothing is scanned beyond them — and what answers is reported as
// a candidate unless an EdgeDevice already declares it. Pure.
import { isIPv4 } from 'node:net';
import type { Parsed } from './address.ts';
import type { EdgeDevice } from '../shared/crds/edgedevice.ts';
import { probeTargetOf } from './target.ts';

export interface ScanPlan {
  readonly addresses: readonly string[];
  readonly ports: readonly number[];
}

function toInt(ip: string): number {
  return ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

function toIp(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/** Host addresses of one IPv4 CIDR: without network and broadcast addresses below /31. */
function hostsOf(cidr: string): Parsed<{ first: number; count: number }> {
  const [ip = '', bits = ''] = cidr.trim().split('/');
  const prefix = Number(bits);
  if (!isIPv4(ip) || !/^\d{1,2}$/.test(bits) || prefix > 32) return { ok: false, message: `discoverySubnets "${cidr}" is not an IPv4 CIDR: write e.g. 192.168.1.0/24` };
  const size = 2 ** (32 - prefix);
  const network = toInt(ip) - (toInt(ip) % size);
  return prefix >= 31 ? { ok: true, value: { first: network, count: size } } : { ok: true, value: { first: network + 1, count: size - 2 } };
}

function portsOf(ports: readonly string[]): Parsed<number[]> {
  const bad = ports.find((p) => !/^\d{1,5}$/.test(p.trim()) || Number(p) < 1 || Number(p) > 65535);
  if (bad !== undefined) return { ok: false, message: `discoveryPorts "${bad}" is not a port: use numbers from 1 to 65535` };
  return { ok: true, value: [...new Set(ports.map(Number))] };
}

/** Every address of the subnets, once, refusing plans larger than `maxAddresses`. */
export function planScan(subnets: readonly string[], ports: readonly string[], maxAddresses: number): Parsed<ScanPlan> {
  const checkedPorts = portsOf(ports);
  if (!checkedPorts.ok) return checkedPorts;
  const ranges: Array<{ first: number; count: number }> = [];
  for (const subnet of subnets) {
    const range = hostsOf(subnet);
    if (!range.ok) return range;
    ranges.push(range.value);
  }
  const total = ranges.reduce((n, r) => n + r.count, 0);
  if (total > maxAddresses) {
    return { ok: false, message: `discoverySubnets hold ${total} addresses, more than discoveryMaxAddresses (${maxAddresses}): list smaller subnets or raise the limit` };
  }
  const addresses = new Set<string>();
  for (const { first, count } of ranges) for (let i = 0; i < count; i += 1) addresses.add(toIp(first + i));
  return { ok: true, value: { addresses: [...addresses], ports: checkedPorts.value } };
}

/** Whether an IPv4 address lies inside one of the subnets (malformed subnets contain nothing). */
export function inSubnets(ip: string, subnets: readonly string[]): boolean {
  if (!isIPv4(ip)) return false;
  return subnets.some((cidr) => {
    const [base = '', bits = ''] = cidr.trim().split('/');
    const prefix = Number(bits);
    if (!isIPv4(base) || !/^\d{1,2}$/.test(bits) || prefix > 32) return false;
    const size = 2 ** (32 - prefix);
    return Math.floor(toInt(ip) / size) === Math.floor(toInt(base) / size);
  });
}

/** host:port endpoints that answered and that no EdgeDevice declares. */
export function undeclared(answered: readonly string[], devices: readonly EdgeDevice[]): string[] {
  const declared = new Set<string>();
  for (const device of devices) {
    const target = probeTargetOf(device.spec);
    if (target.ok && (target.value.kind === 'tcp' || target.value.kind === 'mqtt')) declared.add(`${target.value.host}:${target.value.port}`);
    if (target.ok && target.value.kind === 'http') {
      const url = new URL(target.value.url);
      declared.add(`${url.hostname.replace(/^\[|\]$/g, '')}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`);
    }
  }
  return answered.filter((endpoint) => !declared.has(endpoint)).sort();
}
