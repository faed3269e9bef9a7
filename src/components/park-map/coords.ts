import gcoord from 'gcoord';
import type { TileCrs } from '../../../domain/schemas/big-screen';

/** [latitude, longitude], Leaflet's order. */
export type LatLng = [number, number];

/** The park the map opens on (spec 002 §2 "Map board": about 22.74, 114.52), in the register's system. */
export const PARK_CENTER: LatLng = [22.74, 114.52];

/**
 * A point of the equipment register (WGS-84, as a GPS reads it) where the
 * tiles draw it. Chinese tile providers draw in GCJ-02, which lies a few
 * hundred metres off WGS-84 around the park; with no tiles nothing is drawn
 * beneath the markers and the register's numbers stand as they are.
 */
export function toTiles([lat, lng]: LatLng, crs: TileCrs | undefined): LatLng {
  if (crs !== 'gcj02') return [lat, lng];
  const [x, y] = gcoord.transform<[number, number]>([lng, lat], gcoord.WGS84, gcoord.GCJ02);
  return [y, x];
}
