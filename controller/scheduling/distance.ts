// Great-circle distance between two coordinates (haversine), in km.
import type { Location } from './candidates.ts';

const EARTH_RADIUS_KM = 6371.0088;

function radians(degrees: number): number {
  return (degrees * Math.PI) / 180;
}

export function hasCoordinates(location: Location | undefined): location is Location & { latitude: number; longitude: number } {
  return location?.latitude !== undefined && location.longitude !== undefined;
}

export function distanceKm(a: Location, b: Location): number | undefined {
  if (!hasCoordinates(a) || !hasCoordinates(b)) return undefined;
  const dLat = radians(b.latitude - a.latitude);
  const dLon = radians(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(radians(a.latitude)) * Math.cos(radians(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}
