import gcoord from 'gcoord';

/**
 * Coordinates of the park (spec 001 "Vehicle entry routes": the point picker
 * converts gcj02 to wgs84). The registers keep WGS-84, as a GPS and the gates
 * report it; Chinese map tiles draw in GCJ-02. Both ways go through gcoord.
 */

/** [latitude, longitude], Leaflet's order. */
export type LatLng = [number, number];

export function wgs84ToGcj02([lat, lng]: LatLng): LatLng {
  const [x, y] = gcoord.transform<[number, number]>([lng, lat], gcoord.WGS84, gcoord.GCJ02);
  return [y, x];
}

/** Degrees: far below a millimetre, so the round trip's error is the floating point's. */
const REFINE_TOLERANCE = 1e-11;
const REFINE_STEPS = 8;

/**
 * GCJ-02 → WGS-84. gcoord inverts the forward transform by iteration but
 * stops once the forward image is within 1e-6° (about 0.1 m), so a point
 * drawn on the tiles could come back 5–10 cm from where it was taken; a few
 * more steps of the same fixed-point iteration bring the round trip to well
 * under a millimetre (tests/unit/geo.test.ts holds it to 0.01 m).
 */
export function gcj02ToWgs84(gcj: LatLng): LatLng {
  const [x, y] = gcoord.transform<[number, number]>([gcj[1], gcj[0]], gcoord.GCJ02, gcoord.WGS84);
  let lat = y;
  let lng = x;
  for (let i = 0; i < REFINE_STEPS; i++) {
    const [fLat, fLng] = wgs84ToGcj02([lat, lng]);
    const dLat = fLat - gcj[0];
    const dLng = fLng - gcj[1];
    if (Math.abs(dLat) < REFINE_TOLERANCE && Math.abs(dLng) < REFINE_TOLERANCE) break;
    lat -= dLat;
    lng -= dLng;
  }
  return [lat, lng];
}

const EARTH_RADIUS_M = 6_371_008.8;
const rad = (d: number) => (d * Math.PI) / 180;

/** Great-circle distance in metres. */
export function haversineMeters([lat1, lng1]: LatLng, [lat2, lng2]: LatLng): number {
  const a = Math.sin(rad(lat2 - lat1) / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lng2 - lng1) / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}
