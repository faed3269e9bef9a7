import type { TileCrs } from '../../../domain/schemas/big-screen';
import { gcj02ToWgs84, wgs84ToGcj02, type LatLng } from '../../../domain/geo';

export type { LatLng } from '../../../domain/geo';

/** The park the map opens on (spec 002 §2 "Map board": about 22.74, 114.52), in the register's system. */
export const PARK_CENTER: LatLng = [22.74, 114.52];

/**
 * A point of the equipment register (WGS-84, as a GPS reads it) where the
 * tiles draw it. Chinese tile providers draw in GCJ-02, which lies a few
 * hundred metres off WGS-84 around the park; with no tiles nothing is drawn
 * beneath the markers and the register's numbers stand as they are.
 */
export function toTiles([lat, lng]: LatLng, crs: TileCrs | undefined): LatLng {
  return crs === 'gcj02' ? wgs84ToGcj02([lat, lng]) : [lat, lng];
}

/** Where a point taken on the map (a tap, a dragged vertex) lies in the register's system: the inverse of toTiles. */
export function fromTiles([lat, lng]: LatLng, crs: TileCrs | undefined): LatLng {
  return crs === 'gcj02' ? gcj02ToWgs84([lat, lng]) : [lat, lng];
}
