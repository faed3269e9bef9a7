import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { parsePath, routePublishOptions, splitIds, type DrivingRouteRow } from '../../../domain/schemas/driving-route';
import { LazyRouteEditor } from '../../components/park-map/lazy';
import { mapTilesQuery } from '../../components/park-map/tiles';
import { ScreenModal, type ScreenModalProps } from '../../list-screen';
import { locationsQuery } from './queries';
import './driving-routes.css';

/** 查看路线: the line and the points it passes, read-only (spec 001: "read-only in view mode"); a row's tap opens it too. */
export function RouteViewModal({ open, row, onClose }: ScreenModalProps<DrivingRouteRow>) {
  const tiles = useQuery(mapTilesQuery);
  const locations = useQuery(locationsQuery);
  const path = useMemo(() => parsePath(row?.path), [row?.path]);
  const on = useMemo(() => new Set(splitIds(row?.location_id)), [row?.location_id]);
  const points = useMemo(() => (locations.data ?? []).filter((p) => on.has(p.id)).map((p) => ({ ...p, on: true })), [locations.data, on]);
  if (!row) return null;
  const publish = routePublishOptions.find((o) => o.value === row.publish)?.label ?? '';
  return (
    <ScreenModal open={open} title="查看路线" onClose={onClose} width={820}>
      <div className="dr-view">
        <dl className="dr-facts">
          <div>
            <dt>路线名称</dt>
            <dd>{row.name}</dd>
          </div>
          <div>
            <dt>发布状态</dt>
            <dd>{publish}</dd>
          </div>
          <div>
            <dt>途经点位</dt>
            <dd>{row.point_names || '未设置'}</dd>
          </div>
          <div>
            <dt>绑定部门</dt>
            <dd>{row.depart_names || '未绑定'}</dd>
          </div>
        </dl>
        {tiles.isPending ? <div className="route-editor-loading is-readonly">地图加载中…</div> : <LazyRouteEditor tiles={tiles.data ?? null} value={path} readOnly points={points} />}
      </div>
    </ScreenModal>
  );
}
