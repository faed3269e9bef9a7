import type { UseQueryResult } from '@tanstack/react-query';
import { Button, Checkbox, ErrorBlock, Skeleton } from 'antd-mobile';
import type { LocationRow } from '../../../domain/schemas/driving-route';
import './driving-routes.css';

/**
 * 途经点位: the park's points with those a route passes checked, and their
 * order spelled out. A point unchecked keeps the others' order; a point
 * checked goes last, where the route reaches it. Shared by the route form
 * (under the map, where drawing the line picks them) and 点位.
 */
export function PointPicker({ locations, picked, onChange, editable }: { locations: UseQueryResult<LocationRow[]>; picked: readonly number[]; onChange?: (ids: number[]) => void; editable: boolean }) {
  const list = locations.data ?? [];
  if (locations.isLoading) return <Skeleton.Paragraph lineCount={3} animated />;
  if (locations.error)
    return (
      <ErrorBlock status="default" title="点位加载失败" description={locations.error.message}>
        <Button size="small" color="primary" fill="outline" onClick={() => void locations.refetch()}>
          重试
        </Button>
      </ErrorBlock>
    );
  if (list.length === 0) return <p className="dr-empty">园区暂无点位：在设备管理中登记车辆道闸后即成为点位</p>;
  const toggle = (id: number, on: boolean) => onChange?.(on ? [...picked.filter((x) => x !== id), id] : picked.filter((x) => x !== id));
  return (
    <>
      <p className="dr-points-order" data-testid="route-point-order">
        途经顺序：{picked.length ? picked.map((id) => list.find((p) => p.id === id)?.name ?? `#${id}`).join(' → ') : '未选择'}
      </p>
      <ul className="dr-check-list" aria-label="点位">
        {list.map((p) => (
          <li key={p.id} className={picked.includes(p.id) ? 'is-on' : ''}>
            <Checkbox checked={picked.includes(p.id)} disabled={!editable} onChange={(on) => toggle(p.id, on)} style={{ '--icon-size': '18px', '--gap': '10px' } as React.CSSProperties}>
              {p.name}
              {p.latitude === null || p.longitude === null ? <span className="dr-muted">（未标注位置）</span> : null}
            </Checkbox>
          </li>
        ))}
      </ul>
    </>
  );
}
