// Vertex keys: an edgeNode and a remoteCluster by name, an edgeDevice by namespace/name, a
// component by namespace/deployment/component (so the slashes tell them apart). One key names one
// vertex whatever its kind.
import { EdgeshifuError } from '../shared/errors.ts';
import type { VertexKind } from './model.ts';

const MAX = 253;
// Printable, no whitespace or control characters: keys end up in SSE lines, DOT and the page.
const PART = /^[^\s/\p{Cc}]+$/u;

export function checkKey(kind: VertexKind, key: unknown, what: string): string {
  if (typeof key !== 'string' || key === '') {
    throw new EdgeshifuError('invalid', `${what}: the ${kind} key must be a non-empty string, got ${shown(key)}`);
  }
  const parts = key.split('/');
  const wanted = kind === 'edgeDevice' ? 2 : kind === 'component' ? 3 : 1;
  const shape = kind === 'edgeDevice' ? 'namespace/name' : kind === 'component' ? 'namespace/deployment/component' : 'a name without "/"';
  if (parts.length !== wanted || !parts.every((p) => p.length > 0 && p.length <= MAX && PART.test(p))) {
    throw new EdgeshifuError('invalid', `${what}: the ${kind} key ${JSON.stringify(key)} must be ${shape} (no spaces or control characters, at most ${MAX} characters a part)`);
  }
  return key;
}

/** A value as it appears in an error message. */
export function shown(value: unknown): string {
  return value === undefined || typeof value === 'function' ? String(value) : JSON.stringify(value);
}

/** `a` and `b` in one order, so an undirected link has one spelling. */
export function ordered(a: string, b: string): [string, string] {
  return a < b ? [a, b] : [b, a];
}
