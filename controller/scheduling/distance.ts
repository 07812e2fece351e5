// Distance between two locations for placement: the edgeMap's great-circle distance, when both
// have coordinates.
import { haversineKm } from '../../edgemap/index.ts';
import type { Location } from './candidates.ts';

export function hasCoordinates(location: Location | undefined): location is Location & { latitude: number; longitude: number } {
  return location?.latitude !== undefined && location.longitude !== undefined;
}

export function distanceKm(a: Location, b: Location): number | undefined {
  return hasCoordinates(a) && hasCoordinates(b) ? haversineKm(a, b) : undefined;
}
