// The PLC mock's memory (pure): areas M, Q, T, C, each a 16-bit string "0b…". sendsinglebit
// sets the character at `address + digit` counted from the right. Unlike Shifu's mock, a bad
// number is a 400, not a crash.
import type { MockReply } from './http-device.ts';

const AREAS = ['M', 'Q', 'T', 'C'] as const;
const BITS = 16;

export class PlcMemory {
  private readonly areas = new Map<string, string>(AREAS.map((a) => [a, `0b${'0'.repeat(BITS)}`]));

  read(area: string): MockReply {
    const content = this.areas.get(area);
    return content === undefined ? { status: 400, body: 'Nonexistent memory area' } : { body: content };
  }

  setBit(query: URLSearchParams): MockReply {
    const area = query.get('rootaddress') ?? '';
    const content = this.areas.get(area);
    if (content === undefined) return { status: 400, body: 'Nonexistent memory area' };
    const address = Number(query.get('address'));
    const digit = Number(query.get('digit'));
    const value = query.get('value') ?? '';
    const position = address + digit;
    if (!Number.isInteger(address) || !Number.isInteger(digit) || position < 0 || position >= BITS) return { status: 400, body: 'address + digit must be an integer bit index 0-15' };
    if (value !== '0' && value !== '1') return { status: 400, body: 'value must be 0 or 1' };
    const index = content.length - 1 - position;
    const updated = content.slice(0, index) + value + content.slice(index + 1);
    this.areas.set(area, updated);
    return { body: updated };
  }
}
