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

/** Metres east and north of `origin`: a flat projection, which within a park is off by far less than a gate's width. */
function metresFrom([lat0, lng0]: LatLng, [lat, lng]: LatLng): [number, number] {
  return [rad(lng - lng0) * EARTH_RADIUS_M * Math.cos(rad(lat0)), rad(lat - lat0) * EARTH_RADIUS_M];
}

/** Where a point lies against a line: metres to the line's nearest point, and how far along the line (metres from its first vertex) that nearest point is. */
export interface OnLine {
  distance: number;
  along: number;
}

/** A point against a polyline of WGS-84 vertices; undefined for a line with no vertex. Of two equally near places, the earlier along the line. */
export function nearestOnLine(line: readonly LatLng[], point: LatLng): OnLine | undefined {
  if (line.length === 0) return undefined;
  const origin = line[0]!;
  const [px, py] = metresFrom(origin, point);
  const vertices = line.map((v) => metresFrom(origin, v));
  let best: OnLine = { distance: Math.hypot(px - vertices[0]![0], py - vertices[0]![1]), along: 0 };
  let walked = 0;
  for (let i = 1; i < vertices.length; i++) {
    const [ax, ay] = vertices[i - 1]!;
    const [bx, by] = vertices[i]!;
    const length = Math.hypot(bx - ax, by - ay);
    // The foot of the perpendicular, held to the segment.
    const t = length === 0 ? 0 : Math.min(1, Math.max(0, ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / (length * length)));
    const distance = Math.hypot(px - (ax + t * (bx - ax)), py - (ay + t * (by - ay)));
    if (distance < best.distance) best = { distance, along: walked + t * length };
    walked += length;
  }
  return best;
}

/**
 * The points a line passes: those within `tolerance` metres of it, in the
 * order the line reaches them (a point the line passes twice is placed where
 * it passes nearest). Points without a place are never passed.
 */
export function pointsAlongLine<T>(line: readonly LatLng[], points: readonly T[], placeOf: (p: T) => LatLng | null, tolerance: number): T[] {
  const passed: Array<{ point: T; at: OnLine }> = [];
  for (const point of points) {
    const place = placeOf(point);
    const at = place && nearestOnLine(line, place);
    if (at && at.distance <= tolerance) passed.push({ point, at });
  }
  return passed.sort((a, b) => a.at.along - b.at.along || a.at.distance - b.at.distance).map((p) => p.point);
}
