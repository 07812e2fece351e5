// Which addresses a process listens on, read from /proc (Linux): proves test servers bind to
// loopback only.
import { readdir, readFile, readlink } from 'node:fs/promises';

const LISTEN = '0A';

function decodeAddress(hex: string): string {
  const [addr = '', port = ''] = hex.split(':');
  const portNumber = parseInt(port, 16);
  if (addr.length === 8) {
    const bytes = (addr.match(/../g) ?? []).map((b) => parseInt(b, 16)).reverse();
    return `${bytes.join('.')}:${portNumber}`;
  }
  // IPv6: four little-endian 32-bit words
  const words = (addr.match(/.{8}/g) ?? []).map((w) => (w.match(/../g) ?? []).reverse().join(''));
  const groups = words.join('').match(/.{4}/g) ?? [];
  return `[${groups.map((g) => g.replace(/^0+(?=.)/, '')).join(':')}]:${portNumber}`;
}

async function socketInodes(pid: number): Promise<Set<string>> {
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [])) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const match = /^socket:\[(\d+)\]$/.exec(target);
    if (match?.[1] !== undefined) inodes.add(match[1]);
  }
  return inodes;
}

/** "ip:port" of every TCP socket the process listens on. */
export async function listeningAddresses(pid: number): Promise<string[]> {
  const inodes = await socketInodes(pid);
  const addresses: string[] = [];
  for (const table of ['tcp', 'tcp6']) {
    const text = await readFile(`/proc/${pid}/net/${table}`, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] === LISTEN && cols[9] !== undefined && inodes.has(cols[9])) addresses.push(decodeAddress(cols[1] ?? ''));
    }
  }
  return addresses;
}

export function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address.startsWith('[::1]') || address.startsWith('[0:0:0:0:0:0:0:1]');
}
