import { useMutation, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { drivingRouteCalls, parsePath, splitIds, type DrivingRouteRow } from '../../../domain/schemas/driving-route';
import { LazyRouteEditor } from '../../components/park-map/lazy';
import { mapTilesQuery } from '../../components/park-map/tiles';
import { showToast } from '../../lib/feedback';
import { useCan } from '../../lib/me';
import { ApiError, call } from '../../lib/http';
import { ScreenModal, failureText, type ScreenModalProps } from '../../list-screen';
import { PointPicker } from './point-picker';
import { locationsQuery } from './queries';
import './driving-routes.css';

/**
 * 查看/编辑点位 (spec 001: "Point picker: read-only or editable"): the park's
 * points beside the route's line, those it passes checked, in the order
 * picked. Editable with carRoute:edit; it saves { id, locationIds }.
 */
export function RoutePointsModal({ open, row, onClose, onDone }: ScreenModalProps<DrivingRouteRow>) {
  const can = useCan();
  const editable = can('carRoute:edit');
  const tiles = useQuery(mapTilesQuery);
  const locations = useQuery(locationsQuery);
  // The modal is made for one row each time it opens: the row's points are where the choice starts.
  const [picked, setPicked] = useState<number[]>(() => splitIds(row?.location_id));
  const path = useMemo(() => parsePath(row?.path), [row?.path]);
  const list = useMemo(() => locations.data ?? [], [locations.data]);
  const points = useMemo(() => list.map((p) => ({ ...p, on: picked.includes(p.id) })), [list, picked]);
  const save = useMutation({
    mutationFn: () => call(drivingRouteCalls.editLocations, { id: row!.id, locationIds: picked }),
    onSuccess: () => {
      showToast({ icon: 'success', content: '编辑成功！' });
      onDone();
    },
    onError: (e) => showToast({ icon: 'fail', content: failureText('编辑错误：', e instanceof ApiError ? e.message : String(e)), duration: 3000 }),
  });
  if (!row) return null;

  return (
    <ScreenModal open={open} title={editable ? '编辑点位' : '查看点位'} onClose={onClose} width={820} {...(editable ? { onOk: () => save.mutate(), okText: '保存', okLoading: save.isPending } : {})}>
      <div className="dr-points">
        <p className="dr-points-route">路线：{row.name}</p>
        {tiles.isPending ? <div className="route-editor-loading is-readonly">地图加载中…</div> : <LazyRouteEditor tiles={tiles.data ?? null} value={path} readOnly points={points} />}
        <PointPicker locations={locations} picked={picked} editable={editable} onChange={setPicked} />
      </div>
    </ScreenModal>
  );
}
