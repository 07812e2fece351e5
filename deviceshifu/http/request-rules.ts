// Pure rules of the north-bound API: which methods an instruction takes, and what `?timeout=` means.
import { EdgeshifuError } from '../../shared/errors.ts';
import type { ReadWrite } from '../config/types.ts';

const METHODS: Readonly<Record<ReadWrite, readonly string[]>> = {
  R: ['GET', 'HEAD'],
  W: ['POST', 'PUT'],
  RW: ['GET', 'HEAD', 'POST', 'PUT'],
};

/** Protocols whose requests carry a body the device needs: a socket command is a POST or PUT body. */
const PROTOCOL_METHODS: Readonly<Record<string, readonly string[]>> = { Socket: ['POST', 'PUT'] };

/**
 * The methods an instruction answers: its readWrite's, narrowed to what its protocol can carry (when
 * nothing is left, the protocol's own). Examples: (R) → GET, HEAD; (RW, Socket) → POST, PUT; (R, Socket) → POST, PUT.
 */
export function allowedMethods(readWrite: ReadWrite, protocol?: string): readonly string[] {
  const carried = protocol === undefined ? undefined : PROTOCOL_METHODS[protocol];
  if (carried === undefined) return METHODS[readWrite];
  const both = METHODS[readWrite].filter((m) => carried.includes(m));
  return both.length > 0 ? both : carried;
}

/**
 * Seconds to wait for the device: `?timeout=` when given (≤ 0 = no deadline, as in Shifu), else
 * the instruction default. Examples: (undefined, 3) → 3; ("10", 3) → 10; ("0", 3) → 0; ("ten", 3) → invalid.
 */
export function timeoutSeconds(raw: string | null, fallback: number): number {
  if (raw === null) return fallback;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) {
    throw new EdgeshifuError('invalid', `query parameter timeout must be a number of seconds (≤ 0 for none), got "${raw}"`);
  }
  return value <= 0 ? 0 : value;
}

export interface RequestTarget {
  /** The path as sent, not decoded: `/read_value`, `/na%20me`. */
  readonly pathname: string;
  readonly query: URLSearchParams;
}

/**
 * Splits a request target into path and query without resolving it as a URL, so `//x` stays a
 * path. Examples: "/a?b=1" → ("/a", b=1); "//a" → ("//a", none); "http://h/a?b" (absolute form) → ("/a", b).
 */
export function requestTarget(url: string): RequestTarget {
  if (!url.startsWith('/')) {
    try {
      const absolute = new URL(url);
      return { pathname: absolute.pathname, query: absolute.searchParams };
    } catch {
      return { pathname: url, query: new URLSearchParams() };
    }
  }
  const mark = url.indexOf('?');
  return mark < 0 ? { pathname: url, query: new URLSearchParams() } : { pathname: url.slice(0, mark), query: new URLSearchParams(url.slice(mark + 1)) };
}
