import { divIcon, Marker as LeafletMarker, Polyline as LeafletPolyline, type LatLng as LeafletLatLng, type Map as LeafletMap } from 'leaflet';
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
  /** The zoom on the park's centre while nothing is drawn. */
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
export function ParkMap({ tiles, zoom = 15, className = '', children }: ParkMapProps) {
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
        <MapContainer center={toTiles(PARK_CENTER, crs)} zoom={zoom} className="park-map-leaflet" attributionControl={false} zoomSnap={0.1}>
          {showTiles ? (
            <TileLayer url={tiles.url} errorTileUrl={BLANK_TILE} eventHandlers={handlers} />
          ) : (
            <p className="park-map-plain">{tiles ? '地图底图无法访问，仅显示设备位置' : '未配置地图底图，仅显示设备位置'}</p>
          )}
          <FitToContent />
          {children}
        </MapContainer>
      </div>
    </CrsContext.Provider>
  );
}

/** Room kept between what is drawn and the map's edge, in pixels. */
const FIT_MARGIN = 10;
/** Past this a single gate or a short line would fill the map with a few metres of ground. */
const FIT_MAX_ZOOM = 17;
/** A line's half width and a little: its ends are drawn round, beyond the vertices. */
const LINE_PAD = 6;

/** One thing drawn, as the fit sees it: where it is anchored, and how far it reaches from there on screen (pixels, whatever the zoom). */
interface Reach {
  at: LeafletLatLng;
  left: number;
  right: number;
  up: number;
  down: number;
}

/**
 * Everything drawn on the map, each with its reach: a marker's icon and the
 * name beside it (measured as laid out, so a long name reaches further), a
 * line's vertices. The names are centred on their dots (park-map.css), so a
 * marker reaches up and down half its taller part.
 */
function drawnReaches(map: LeafletMap): Reach[] {
  const out: Reach[] = [];
  map.eachLayer((layer) => {
    if (layer instanceof LeafletMarker) {
      const el = layer.getElement();
      if (!el) return;
      const [ax, ay] = (layer.options.icon?.options.iconAnchor as [number, number] | undefined) ?? [el.offsetWidth / 2, el.offsetHeight / 2];
      let left = ax;
      let right = el.offsetWidth - ax;
      let half = Math.max(ay, el.offsetHeight - ay);
      for (const child of Array.from(el.children) as HTMLElement[]) {
        left = Math.max(left, ax - child.offsetLeft);
        right = Math.max(right, child.offsetLeft + child.offsetWidth - ax);
        half = Math.max(half, child.offsetHeight / 2);
      }
      out.push({ at: layer.getLatLng(), left, right, up: half, down: half });
    } else if (layer instanceof LeafletPolyline) {
      for (const at of (layer.getLatLngs() as LeafletLatLng[]).flat()) out.push({ at, left: LINE_PAD, right: LINE_PAD, up: LINE_PAD, down: LINE_PAD });
    }
  });
  return out;
}

/**
 * Frames everything drawn, names included: the closest zoom (up to
 * FIT_MAX_ZOOM) at which every dot, name and vertex lies inside the map with
 * FIT_MARGIN to spare, centred on them. So nothing is cropped at the edge,
 * and on a phone the park fills the map's width rather than a padded middle.
 */
function fitReaches(map: LeafletMap, reaches: readonly Reach[]): boolean {
  const size = map.getSize();
  // The note saying why the ground is plain sits across the top: what is drawn goes below it.
  const note = map.getContainer().querySelector<HTMLElement>('.park-map-plain');
  const top = note ? Math.max(FIT_MARGIN, note.offsetTop + note.offsetHeight + 4) : FIT_MARGIN;
  const room = { x: size.x - 2 * FIT_MARGIN, y: size.y - top - FIT_MARGIN };
  if (reaches.length === 0 || room.x <= 0 || room.y <= 0) return false;
  const step = map.options.zoomSnap || 1;
  const lowest = map.getMinZoom();
  const extent = (zoom: number) => {
    let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const r of reaches) {
      const p = map.project(r.at, zoom);
      x0 = Math.min(x0, p.x - r.left);
      x1 = Math.max(x1, p.x + r.right);
      y0 = Math.min(y0, p.y - r.up);
      y1 = Math.max(y1, p.y + r.down);
    }
    return { x0, y0, x1, y1 };
  };
  let zoom = Math.min(FIT_MAX_ZOOM, map.getMaxZoom());
  let box = extent(zoom);
  while (zoom - step >= lowest && (box.x1 - box.x0 > room.x || box.y1 - box.y0 > room.y)) {
    zoom -= step;
    box = extent(zoom);
  }
  // Centred in the room left: the map's centre sits half the note's band above the content's.
  const centre = map.unproject([(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2 - (top - FIT_MARGIN) / 2], zoom);
  map.setView(centre, zoom, { animate: false });
  return true;
}

/**
 * Keeps what is drawn framed (fitReaches) as it arrives, the gates and the
 * line in whatever order their data comes, and when the map's box changes
 * size, until the person first touches the map: from then on the view is
 * theirs, so drawing a line never moves the map under the finger.
 */
function FitToContent() {
  const map = useMap();
  useEffect(() => {
    const container = map.getContainer();
    let frame = 0;
    let theirs = false;
    const fit = () => {
      frame = 0;
      if (!theirs) fitReaches(map, drawnReaches(map));
    };
    const schedule = () => {
      if (!theirs && !frame) frame = requestAnimationFrame(fit);
    };
    const handOver = () => {
      theirs = true;
    };
    // A box sized after the map was made (a modal opening, a column settling): Leaflet measures again, then the fit.
    const resized = new ResizeObserver(() => {
      map.invalidateSize({ pan: false });
      schedule();
    });
    resized.observe(container);
    map.on('layeradd', schedule);
    for (const type of ['pointerdown', 'wheel', 'keydown'] as const) container.addEventListener(type, handOver, { passive: true });
    schedule();
    return () => {
      cancelAnimationFrame(frame);
      resized.disconnect();
      map.off('layeradd', schedule);
      for (const type of ['pointerdown', 'wheel', 'keydown'] as const) container.removeEventListener(type, handOver);
    };
  }, [map]);
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
  /** A tap or click on the point itself (a marker's tap does not reach the map under it). */
  onPick?: () => void;
}

/** A point on the park map: a dot with its name beside it (no marker images to load), and its popup. */
export function ParkMarker({ position, label, tone = 'normal', labelSide = 'right', children, onPick }: ParkMarkerProps) {
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
  const pick = useRef(onPick);
  pick.current = onPick;
  const events = useMemo(() => ({ click: () => pick.current?.() }), []);
  return (
    <Marker position={at} icon={icon} title={label} alt={label} eventHandlers={events}>
      {children && <Popup>{children}</Popup>}
    </Marker>
  );
}
