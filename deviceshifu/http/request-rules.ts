// Pure rules of the north-bound API: which methods an instruction takes, and what `?timeout=` means.
import { EdgeshifuError } from '../../shared/errors.ts';
import type { ReadWrite } from '../config/types.ts';

const METHODS: Readonly<Record<ReadWrite, readonly string[]>> = {
  R: ['GET', 'HEAD'],
  W: ['POST', 'PUT'],
  RW: ['GET', 'HEAD', 'POST', 'PUT'],
};

export function allowedMethods(readWrite: ReadWrite): readonly string[] {
  return METHODS[readWrite];
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
