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
  /** The query as sent, with its `?`, not decoded or re-encoded: '' when there is none. */
  readonly search: string;
}

const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

function split(url: string): RequestTarget {
  const mark = url.indexOf('?');
  return mark < 0 ? { pathname: url, search: '' } : { pathname: url.slice(0, mark), search: url.slice(mark) };
}

/**
 * Splits a request target into path and query without resolving or re-encoding it, so `//x` stays
 * a path and `%20` stays `%20`. Examples: "/a?b=1" → ("/a", "?b=1"); "//a" → ("//a", "");
 * "http://h/a?b" (absolute form) → ("/a", "?b"); "*" → ("*", "").
 */
export function requestTarget(url: string): RequestTarget {
  if (url.startsWith('/')) return split(url);
  const authority = ABSOLUTE_FORM.exec(url);
  if (authority === null) return { pathname: url, search: '' };
  const rest = url.slice(authority[0].length);
  return split(rest.startsWith('/') ? rest : `/${rest}`);
}

/** A query component decoded as a form (`+` is a space), as URLSearchParams decodes it. */
function formDecode(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  const spaced = text.replaceAll('+', ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/**
 * Takes every `name` parameter out of a raw query (`?…` or ''), leaving the rest byte for byte.
 * The value is the first one's, decoded; null when absent. Examples: ("?a=1&timeout=5&b", "timeout")
 * → ("5", "?a=1&b"); ("?timeout=5", "timeout") → ("5", ""); ("?a=%20", "timeout") → (null, "?a=%20").
 */
export function takeParameter(search: string, name: string): { readonly value: string | null; readonly rest: string } {
  if (search.length <= 1 || (!search.includes(name) && !search.includes('%'))) return { value: null, rest: search };
  const pairs = search.slice(1).split('&');
  const kept: string[] = [];
  let value: string | null = null;
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (formDecode(eq < 0 ? pair : pair.slice(0, eq)) !== name) kept.push(pair);
    else value ??= formDecode(eq < 0 ? '' : pair.slice(eq + 1));
  }
  if (kept.length === pairs.length) return { value: null, rest: search };
  return { value, rest: kept.length === 0 ? '' : `?${kept.join('&')}` };
}
