import { divIcon, latLngBounds } from 'leaflet';
import 'leaflet/dist/leaflet.css';
import { createContext, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { MapContainer, Marker, Popup, TileLayer, useMap } from 'react-leaflet';
import type { MapTiles, TileCrs } from '../../../domain/schemas/big-screen';
import { PARK_CENTER, toTiles, type LatLng } from './coords';
import './park-map.css';

export { PARK_CENTER, fromTiles, toTiles, type LatLng } from './coords';

/** A transparent pixel: a tile that fails after others loaded leaves a gap, never a broken-image icon. */
const BLANK_TILE = 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';

const CrsContext = createContext<TileCrs | undefined>(undefined);
/** The tiles' coordinate system, for what is drawn on the map (route-editor.tsx converts with it). */
export const useTileCrs = () => useContext(CrsContext);

export interface ParkMapProps {
  /** The configured tiles (GET /board/mapTiles); null draws the plain background. */
  tiles: MapTiles;
  /** Points to show whole on first paint, in the register's system; the park's centre when empty. */
  fit?: readonly LatLng[];
  zoom?: number;
  className?: string;
  children?: ReactNode;
}

/**
 * The park's map (地图看板, and the entry-route editor and the small maps on
 * passes after it): Leaflet through react-leaflet, centred on the park, with
 * the configured tiles converted to their coordinate system. Without tiles,
 * or when none can be fetched (no network, no MAP_TILE_URL, the tests), the
 * tile layer is dropped and what is drawn on the map stands on a plain
 * background.
 */
export function ParkMap({ tiles, fit = [], zoom = 15, className = '', children }: ParkMapProps) {
  const [failedUrl, setFailedUrl] = useState<string | null>(null);
  const loaded = useRef(false);
  const crs = tiles?.crs;
  const showTiles = !!tiles && failedUrl !== tiles.url;
  const handlers = useMemo(
    () => ({
      tileload: () => {
        loaded.current = true;
      },
      // Nothing has ever loaded: the tiles cannot be reached, so the layer goes rather than a grid of gaps.
      tileerror: () => {
        if (!loaded.current && tiles) setFailedUrl(tiles.url);
      },
    }),
    [tiles],
  );
  return (
    <CrsContext.Provider value={crs}>
      {/* The ground's class is on a wrapper: react-leaflet sets the map's own class once, when it is made. */}
      <div className={`park-map ${showTiles ? 'has-tiles' : 'is-plain'} ${className}`}>
        <MapContainer center={toTiles(PARK_CENTER, crs)} zoom={zoom} className="park-map-leaflet" attributionControl={false} zoomSnap={0.5}>
          {showTiles ? (
            <TileLayer url={tiles.url} errorTileUrl={BLANK_TILE} eventHandlers={handlers} />
          ) : (
            <p className="park-map-plain">{tiles ? '地图底图无法访问，仅显示设备位置' : '未配置地图底图，仅显示设备位置'}</p>
          )}
          <FitOnce points={fit} />
          {children}
        </MapContainer>
      </div>
    </CrsContext.Provider>
  );
}

/** Shows the given points once, when they first arrive; later updates leave where the person has panned. */
function FitOnce({ points }: { points: readonly LatLng[] }) {
  const map = useMap();
  const crs = useContext(CrsContext);
  const done = useRef(false);
  useEffect(() => {
    if (done.current || points.length === 0) return;
    done.current = true;
    const bounds = latLngBounds(points.map((p) => toTiles(p, crs)));
    // Room for the names beside the dots as well as the dots, as far as a phone's width allows.
    const side = Math.min(130, Math.round(map.getSize().x * 0.25));
    map.fitBounds(bounds, { padding: [side, 50], maxZoom: 17, animate: false });
  }, [map, points, crs]);
  return null;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface ParkMarkerProps {
  /** Where it stands, in the register's system (WGS-84). */
  position: LatLng;
  label: string;
  tone?: 'normal' | 'muted' | 'alert';
  /** Which side of the dot the name goes: away from a neighbour close enough for the names to overlap. */
  labelSide?: 'left' | 'right';
  /** The popup's content; none, no popup. */
  children?: ReactNode;
}

/** A point on the park map: a dot with its name beside it (no marker images to load), and its popup. */
export function ParkMarker({ position, label, tone = 'normal', labelSide = 'right', children }: ParkMarkerProps) {
  const crs = useContext(CrsContext);
  const icon = useMemo(
    () =>
      divIcon({
        className: `park-marker is-${tone} label-${labelSide}`,
        html: `<span class="park-marker-dot"></span><span class="park-marker-label">${escapeHtml(label)}</span>`,
        iconSize: [18, 18],
        iconAnchor: [9, 9],
        popupAnchor: [0, -10],
      }),
    [label, tone, labelSide],
  );
  const [lat, lng] = position;
  const at = useMemo(() => toTiles([lat, lng], crs), [lat, lng, crs]);
  return (
    <Marker position={at} icon={icon} title={label} alt={label}>
      {children && <Popup>{children}</Popup>}
    </Marker>
  );
}
