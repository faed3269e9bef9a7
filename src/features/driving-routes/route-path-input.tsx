import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { draftPath, serializePath } from '../../../domain/schemas/driving-route';
import { LazyRouteEditor } from '../../components/park-map/lazy';
import { mapTilesQuery } from '../../components/park-map/tiles';
import type { FieldInputProps } from '../../list-screen/types';
import { PointPicker } from './point-picker';
import { locationsQuery } from './queries';
import { routeDraftOf } from './route-draft';

/**
 * The route form's map line editor (spec 001: "route name plus a map line
 * editor") and, under it, the points the route passes: drawing or editing
 * the line picks the gates it passes, in its order (the editor decides,
 * domain/geo.ts pointsAlongLine); the list then adjusts them. The value is
 * a RouteDraft (route-draft.ts).
 */
export function RoutePathInput({ value, onChange, disabled }: FieldInputProps) {
  const tiles = useQuery(mapTilesQuery);
  const locations = useQuery(locationsQuery);
  const draft = routeDraftOf(value);
  const vertices = useMemo(() => draftPath(draft.path), [draft.path]);
  const picked = draft.locationIds;
  const points = useMemo(() => (locations.data ?? []).map((p) => ({ ...p, on: picked.includes(p.id) })), [locations.data, picked]);
  return (
    <div className="dr-route-input">
      {tiles.isPending ? (
        <div className="route-editor-loading">地图加载中…</div>
      ) : (
        <LazyRouteEditor tiles={tiles.data ?? null} value={vertices} readOnly={disabled} points={points} onChange={(next, passed) => onChange?.({ path: serializePath(next), locationIds: passed })} />
      )}
      <div className="dr-route-points" data-testid="route-points">
        <p className="dr-route-points-title">途经点位 · 线经过的道闸自动选入，可再勾选调整</p>
        <PointPicker locations={locations} picked={picked} editable={!disabled} onChange={(ids) => onChange?.({ ...draft, locationIds: ids })} />
      </div>
    </div>
  );
}
