import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { draftPath, serializePath } from '../../../domain/schemas/driving-route';
import { LazyRouteEditor } from '../../components/park-map/lazy';
import { mapTilesQuery } from '../../components/park-map/tiles';
import type { FieldInputProps } from '../../list-screen/types';
import { locationsQuery } from './queries';

/**
 * The route form's map line editor (spec 001: "route name plus a map line
 * editor"): the form's value is the serialized path, the JSON text the
 * server takes; the editor works on its vertices.
 */
export function RoutePathInput({ value, onChange, disabled }: FieldInputProps) {
  const tiles = useQuery(mapTilesQuery);
  const points = useQuery(locationsQuery);
  const vertices = useMemo(() => draftPath(value), [value]);
  if (tiles.isPending) return <div className="route-editor-loading">地图加载中…</div>;
  return <LazyRouteEditor tiles={tiles.data ?? null} value={vertices} readOnly={disabled} points={points.data ?? []} onChange={(next) => onChange?.(serializePath(next))} />;
}
