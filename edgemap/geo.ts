// Great-circle distance between two locations (haversine on a spherical Earth: metres of error
// over a site, well below what placement cares about).
import type { Location } from './model.ts';

const EARTH_RADIUS_KM = 6371.0088;
const RAD = Math.PI / 180;

export interface Coordinates { readonly latitude: number; readonly longitude: number }

export function coordinatesOf(location: Location | undefined): Coordinates | undefined {
  if (location?.latitude === undefined || location.longitude === undefined) return undefined;
  return { latitude: location.latitude, longitude: location.longitude };
}

export function haversineKm(a: Coordinates, b: Coordinates): number {
  const dLat = (b.latitude - a.latitude) * RAD;
  const dLon = (b.longitude - a.longitude) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * RAD) * Math.cos(b.latitude * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}
