// One mDNS browse (DNS-SD) on each of the given interface addresses: ask which service types are
// advertised, then ask each type for its instances, and keep every record heard for `windowMs`.
// multicast-dns (and dgram) are loaded only when mDNS discovery is on.
import { setTimeout as delay } from 'node:timers/promises';
import type { MdnsRecord } from './mdns.ts';
import { SERVICE_TYPES, serviceTypes } from './mdns.ts';

/** What a browse needs of a multicast-dns instance (its type, narrowed; a fake in tests). */
export interface MdnsSocket {
  on(event: 'response', listener: (packet: { answers: readonly MdnsRecord[]; additionals?: readonly MdnsRecord[] }) => void): unknown;
  on(event: 'error' | 'warning', listener: (err: Error) => void): unknown;
  query(questions: Array<{ name: string; type: 'PTR' }>): void;
  destroy(): void;
}

export type MdnsFactory = (interfaceAddress: string) => Promise<MdnsSocket>;

/** The real one: multicast-dns bound to the interface, sharing port 5353 with any responder on the node. */
export const multicastDns: MdnsFactory = async (interfaceAddress) => {
  const { default: makeMdns } = await import('multicast-dns');
  return makeMdns({ interface: interfaceAddress, reuseAddr: true, loopback: false });
};

async function browseOne(address: string, windowMs: number, signal: AbortSignal, factory: MdnsFactory): Promise<MdnsRecord[]> {
  const records: MdnsRecord[] = [];
  const asked = new Set<string>();
  const socket = await factory(address);
  try {
    socket.on('error', () => undefined);
    socket.on('warning', () => undefined);
    socket.on('response', (packet) => {
      const heard = [...packet.answers, ...(packet.additionals ?? [])];
      records.push(...heard);
      const fresh = serviceTypes(heard).filter((t) => !asked.has(t));
      for (const type of fresh) asked.add(type);
      if (fresh.length > 0) socket.query(fresh.map((name) => ({ name, type: 'PTR' as const })));
    });
    socket.query([{ name: SERVICE_TYPES, type: 'PTR' }]);
    await delay(windowMs, undefined, { signal }).catch(() => undefined);
  } finally {
    socket.destroy();
  }
  return records;
}

/** Every record heard on the addresses within the window (an address that cannot browse adds none). */
export async function browseMdns(addresses: readonly string[], windowMs: number, signal: AbortSignal, factory: MdnsFactory = multicastDns): Promise<MdnsRecord[]> {
  const heard = await Promise.all(addresses.map(async (address) => browseOne(address, windowMs, signal, factory).catch(() => [])));
  return heard.flat();
}
