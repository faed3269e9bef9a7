import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { drivingRouteCalls, parsePath } from '../../../../domain/schemas/driving-route';
import { LazyRouteEditor } from '../../../components/park-map/lazy';
import { mapTilesQuery } from '../../../components/park-map/tiles';
import { call } from '../../../lib/http';

/**
 * 行车路线 of a vehicle visit (issue 27, beyond the spec): the published
 * route bound to the visited department on a small map, on the pass and in
 * the approval detail, for whoever may read the visit. No route (none bound,
 * not published, the visit unreadable): nothing is shown.
 */
export function VisitRoute({ id }: { id: number | undefined }) {
  const route = useQuery({
    queryKey: ['visitRoute', id],
    queryFn: () => call(drivingRouteCalls.ofApplication, { car_application_id: id! }),
    enabled: id !== undefined,
    retry: false,
    staleTime: 5 * 60_000,
  });
  const tiles = useQuery({ ...mapTilesQuery, enabled: !!route.data });
  const path = useMemo(() => parsePath(route.data?.path), [route.data?.path]);
  const r = route.data;
  if (!r) return null;
  return (
    <section className="ad-section" aria-label="行车路线" data-testid="visit-route">
      <h4 className="ad-title">
        <span>行车路线</span>
        <span className="ad-count">{r.name}</span>
      </h4>
      <p className="ad-route-points">途经点位：{r.points.length ? r.points.map((p) => p.name).join(' → ') : '未设置'}</p>
      {tiles.isPending ? (
        <div className="route-editor-loading is-readonly">地图加载中…</div>
      ) : (
        <LazyRouteEditor tiles={tiles.data ?? null} value={path} readOnly points={r.points.map((p) => ({ ...p, on: true }))} className="is-small" />
      )}
    </section>
  );
}
