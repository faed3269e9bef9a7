import { divIcon, polyline as leafletPolyline, type LeafletMouseEvent, type Map as LeafletMap, type Polyline as LeafletPolyline, type PolylineOptions } from 'leaflet';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Marker, Polyline, useMap, useMapEvent } from 'react-leaflet';
import { haversineMeters, pointsAlongLine } from '../../../domain/geo';
import type { MapTiles } from '../../../domain/schemas/big-screen';
import { fromTiles, toTiles, type LatLng } from './coords';
import { ParkMap, ParkMarker, useTileCrs } from './park-map';
import './route-editor.css';

/** A named point of the park drawn beside the line (a gate); `on` when the route passes it. */
export interface RoutePoint {
  id: number;
  name: string;
  latitude: number | null;
  longitude: number | null;
  on?: boolean;
}

export interface RouteEditorProps {
  tiles: MapTiles;
  /** The line's vertices, WGS-84 [lat, lng]. */
  value: readonly LatLng[];
  /** A drawn or edited line, with the ids of the points it passes in the order it passes them (passedPoints). */
  onChange?: (next: LatLng[], passed: number[]) => void;
  /** View mode: the line and its points, nothing to touch. */
  readOnly?: boolean;
  points?: readonly RoutePoint[];
  className?: string;
}

const LINE_STYLE = { color: '#1677ff', weight: 5, opacity: 0.85 };

/** A line passes a point drawn within this many pixels of it at the zoom it was drawn at (a dot is 18 px across, a fingertip wider)… */
const PASS_PIXELS = 16;
/** …or within this many metres, however far the map is zoomed in. */
const PASS_METRES = 25;

/** Metres one screen pixel spans on this map now, across its middle. */
function metresPerPixel(map: LeafletMap): number {
  const { x, y } = map.getSize();
  const a = map.containerPointToLatLng([x / 2 - 50, y / 2]);
  const b = map.containerPointToLatLng([x / 2 + 50, y / 2]);
  return haversineMeters([a.lat, a.lng], [b.lat, b.lng]) / 100;
}

/** The ids of the points a line passes, in its order: within PASS_PIXELS on screen at the map's zoom, or PASS_METRES (domain/geo.ts pointsAlongLine). */
function passedPoints(line: readonly LatLng[], points: readonly RoutePoint[], map: LeafletMap | null): number[] {
  const tolerance = Math.max(PASS_METRES, map ? PASS_PIXELS * metresPerPixel(map) : 0);
  return pointsAlongLine(line, points, (p) => (p.latitude === null || p.longitude === null ? null : [p.latitude, p.longitude]), tolerance).map((p) => p.id);
}
const same = (a: readonly LatLng[], b: readonly LatLng[]) => a.length === b.length && a.every((p, i) => p[0] === b[i]![0] && p[1] === b[i]![1]);

/** A mouse edits through leaflet-geoman; a finger through markers of our own (see FingerEditing). */
const coarsePointer = () => typeof window !== 'undefined' && window.matchMedia('(pointer: coarse)').matches;

/**
 * 行车路线 editor (spec 001 "Vehicle entry routes": route name plus a map
 * line editor, read-only in view mode), on the park's one map component.
 * Tap or click the map to add a vertex at the end, drag a vertex to move it,
 * delete one, and undo the last step; the value stays WGS-84 whatever the
 * tiles draw in. With a mouse, leaflet-geoman edits the line (drag a vertex,
 * drag a middle handle to insert one, right-click to remove one); with a
 * finger, geoman's small handles and long-press menus miss at 390 px, so the
 * vertices are large markers of our own: drag to move, tap to select, then
 * 删除所选点. Geoman loads with the editor, only where a mouse edits.
 */
export function RouteEditor({ tiles, value, onChange, readOnly = false, points = [], className = '' }: RouteEditorProps) {
  const history = useRef<LatLng[][]>([]);
  const [steps, setSteps] = useState(0);
  const [selected, setSelected] = useState<number | null>(null);
  const finger = useMemo(coarsePointer, []);
  const latest = useRef(value);
  latest.current = value;
  const map = useRef<LeafletMap | null>(null);
  const pointsNow = useRef(points);
  pointsNow.current = points;
  const report = useCallback((next: LatLng[]) => onChange?.(next, passedPoints(next, pointsNow.current, map.current)), [onChange]);

  const change = useCallback(
    (next: LatLng[]) => {
      if (same(next, latest.current)) return;
      history.current.push([...latest.current]);
      setSteps(history.current.length);
      report(next);
    },
    [report],
  );
  const undo = () => {
    const prev = history.current.pop();
    setSteps(history.current.length);
    setSelected(null);
    if (prev) report(prev);
  };
  const removeSelected = () => {
    if (selected === null) return;
    change(value.filter((_, i) => i !== selected));
    setSelected(null);
  };

  const placed = points.filter((p): p is RoutePoint & { latitude: number; longitude: number } => p.latitude !== null && p.longitude !== null);

  return (
    <div className={`route-editor ${readOnly ? 'is-readonly' : 'is-editing'} ${className}`} data-testid="route-editor" data-vertices={value.length}>
      {!readOnly && (
        <div className="route-editor-bar">
          <span className="route-editor-hint">{finger ? '轻点地图添加路线点，按住圆点拖动可移动，点选圆点后可删除' : '单击地图添加路线点，拖动圆点移动，拖动两点间的小圆点插入，右键圆点删除'}</span>
          <span className="route-editor-actions">
            <button type="button" onClick={undo} disabled={steps === 0}>
              撤销
            </button>
            {finger && (
              <button type="button" onClick={removeSelected} disabled={selected === null}>
                删除所选点
              </button>
            )}
            <button type="button" onClick={() => change([])} disabled={value.length === 0}>
              清空
            </button>
          </span>
        </div>
      )}
      <div className="route-editor-map">
        <ParkMap tiles={tiles} zoom={15}>
          <MapRef into={map} />
          {placed.map((p) => (
            <ParkMarker
              key={`p${p.id}`}
              position={[p.latitude, p.longitude]}
              label={p.name}
              tone={p.on === false ? 'muted' : 'normal'}
              // While drawing, a tap on a gate puts the next vertex on the gate itself, so the line passes it exactly.
              onPick={readOnly ? undefined : () => change([...latest.current, [p.latitude, p.longitude]])}
            />
          ))}
          {!readOnly && <NoDoubleTapZoom />}
          {readOnly ? (
            <ShownLine value={value} />
          ) : finger ? (
            <FingerEditing value={value} onChange={change} selected={selected} onSelect={setSelected} />
          ) : (
            <MouseEditing value={value} onChange={change} />
          )}
        </ParkMap>
      </div>
      <p className="route-editor-count">{value.length ? `共 ${value.length} 个路线点` : readOnly ? '尚未绘制路线' : '尚未绘制路线，请在地图上添加路线点'}</p>
    </div>
  );
}

/** Hands the editor its map: how far apart things are on screen decides which points a line passes. */
/**
 * While a line is drawn, two quick taps or clicks are two vertices: Leaflet would take them as a double tap and zoom
 * in around them, moving the map between the finger's first and second point.
 */
function NoDoubleTapZoom() {
  const map = useMap();
  useEffect(() => {
    map.doubleClickZoom.disable();
    return () => {
      map.doubleClickZoom.enable();
    };
  }, [map]);
  return null;
}

function MapRef({ into }: { into: { current: LeafletMap | null } }) {
  const map = useMap();
  useEffect(() => {
    into.current = map;
    return () => {
      into.current = null;
    };
  }, [map, into]);
  return null;
}

function useOnTiles(value: readonly LatLng[]) {
  const crs = useTileCrs();
  return useMemo(() => value.map((p) => toTiles(p, crs)), [value, crs]);
}

function ShownLine({ value }: { value: readonly LatLng[] }) {
  const positions = useOnTiles(value);
  return positions.length > 1 ? <Polyline positions={positions} pathOptions={LINE_STYLE} interactive={false} /> : null;
}

/** Taps and clicks on the bare map add a vertex at the end (a marker's own tap does not reach the map). */
function AddOnTap({ value, onChange }: { value: readonly LatLng[]; onChange: (next: LatLng[]) => void }) {
  const crs = useTileCrs();
  useMapEvent('click', (e: LeafletMouseEvent) => onChange([...value, fromTiles([e.latlng.lat, e.latlng.lng], crs)]));
  return null;
}

const vertexIcon = (n: number, selected: boolean) =>
  divIcon({
    className: `route-vertex${selected ? ' is-selected' : ''}`,
    html: `<span>${n}</span>`,
    // A finger's target: 36 px, where geoman's handles are 14.
    iconSize: [36, 36],
    iconAnchor: [18, 18],
  });

function FingerEditing({ value, onChange, selected, onSelect }: { value: readonly LatLng[]; onChange: (next: LatLng[]) => void; selected: number | null; onSelect: (i: number | null) => void }) {
  const crs = useTileCrs();
  const positions = useOnTiles(value);
  return (
    <>
      <AddOnTap value={value} onChange={onChange} />
      {positions.length > 1 && <Polyline positions={positions} pathOptions={LINE_STYLE} interactive={false} />}
      {positions.map((p, i) => (
        <Marker
          // Keyed by place as well as index: a moved or removed vertex gets a fresh marker at its new place.
          key={`${i}:${p[0]}:${p[1]}`}
          position={p}
          draggable
          // Above the gates' dots and names: a vertex drawn on or near a gate stays the finger's to drag and select.
          zIndexOffset={1000}
          icon={vertexIcon(i + 1, selected === i)}
          title={`路线点${i + 1}`}
          alt={`路线点${i + 1}`}
          eventHandlers={{
            click: () => onSelect(selected === i ? null : i),
            dragend: (e) => {
              const at = (e.target as { getLatLng(): { lat: number; lng: number } }).getLatLng();
              onChange(value.map((v, j) => (j === i ? fromTiles([at.lat, at.lng], crs) : v)));
              onSelect(i);
            },
          }}
        />
      ))}
    </>
  );
}

/** The part of leaflet-geoman's layer API used here (its typings patch Leaflet's; this keeps the editor typed without them). */
interface GeomanLayer {
  pm?: { enable(options: Record<string, unknown>): void; disable(): void; enabled(): boolean };
}

/**
 * With a mouse: the line is one Leaflet polyline edited by leaflet-geoman
 * (loaded here, lazily: it patches Leaflet, and the shell never needs it).
 * Its edits come back through 'pm:edit'; a change from outside (undo, a
 * click adding a vertex) redraws the line and re-enables editing so that
 * geoman's handles stand on the new vertices.
 */
function MouseEditing({ value, onChange }: { value: readonly LatLng[]; onChange: (next: LatLng[]) => void }) {
  const map = useMap();
  const crs = useTileCrs();
  const positions = useOnTiles(value);
  const line = useRef<LeafletPolyline | null>(null);
  const [ready, setReady] = useState(false);
  const report = useRef(onChange);
  report.current = onChange;

  useEffect(() => {
    let cancelled = false;
    void import('./geoman').then(({ equipMap }) => {
      if (cancelled) return;
      equipMap(map);
      const l = leafletPolyline([], { ...LINE_STYLE, pmIgnore: false } as PolylineOptions).addTo(map);
      l.on('pm:edit', () => {
        const lls = l.getLatLngs() as Array<{ lat: number; lng: number }>;
        report.current(lls.map((p) => fromTiles([p.lat, p.lng], crs)));
      });
      line.current = l;
      setReady(true);
    });
    return () => {
      cancelled = true;
      line.current?.remove();
      line.current = null;
    };
  }, [map, crs]);

  useEffect(() => {
    const l = line.current;
    if (!ready || !l) return;
    const now = (l.getLatLngs() as Array<{ lat: number; lng: number }>).map((p) => [p.lat, p.lng] as LatLng);
    if (same(now, positions) && (l as unknown as GeomanLayer).pm?.enabled()) return;
    const pm = (l as unknown as GeomanLayer).pm;
    pm?.disable();
    l.setLatLngs(positions);
    // Geoman's vertex handles need at least one vertex to stand on.
    if (positions.length) pm?.enable({ allowSelfIntersection: true, snappable: false, draggable: false, removeVertexOn: 'contextmenu', limitMarkersToCount: -1 });
  }, [ready, positions]);

  return <AddOnTap value={value} onChange={onChange} />;
}
