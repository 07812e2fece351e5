// A location given to a query, checked by hand (this is the scheduler's hot path).
import { EdgeshifuError } from '../../shared/errors.ts';
import type { Location } from '../model.ts';

function inRange(v: unknown, limit: number): boolean {
  return v === undefined || (typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= limit);
}

export function requireLocation(value: unknown, query: string): Location {
  const what = `edgeMap ${query}`;
  if (value === null || typeof value !== 'object') {
    throw new EdgeshifuError('invalid', `${what}: the location must be an object {zone?, latitude?, longitude?}`);
  }
  const l = value as Record<string, unknown>;
  if (l.zone !== undefined && typeof l.zone !== 'string') throw new EdgeshifuError('invalid', `${what}: location.zone must be a string`);
  if (!inRange(l.latitude, 90)) throw new EdgeshifuError('invalid', `${what}: location.latitude must be a number in [-90, 90]`);
  if (!inRange(l.longitude, 180)) throw new EdgeshifuError('invalid', `${what}: location.longitude must be a number in [-180, 180]`);
  if ((l.latitude === undefined) !== (l.longitude === undefined)) {
    throw new EdgeshifuError('invalid', `${what}: location latitude and longitude must be given together`);
  }
  return l;
}
