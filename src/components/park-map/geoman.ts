/**
 * leaflet-geoman, the route editor's drawing library with a mouse
 * (route-editor.tsx imports this module lazily). It patches the global
 * Leaflet (window.L, which Leaflet's own build sets) when it loads, so it
 * loads only where a line is edited, never with the shell or the map board.
 */
import '@geoman-io/leaflet-geoman-free';
import '@geoman-io/leaflet-geoman-free/dist/leaflet-geoman.css';
import type { Map as LeafletMap } from 'leaflet';

/**
 * Geoman equips maps made after it loaded; the editor's map was made before
 * (geoman loads with the first edit), so it gets its geoman state here, as
 * geoman's own map hook would have given it.
 */
export function equipMap(map: LeafletMap): void {
  const m = map as unknown as { pm?: unknown };
  const L = (window as unknown as { L: { PM: { Map: new (map: LeafletMap) => unknown } } }).L;
  if (!m.pm) m.pm = new L.PM.Map(map);
}
