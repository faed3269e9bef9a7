import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, Checkbox, ErrorBlock, SearchBar, Skeleton } from 'antd-mobile';
import { useEffect, useMemo, useState } from 'react';
import { buildTree, type DepartmentRow, type TreeNode } from '../../../domain/schemas/department';
import { drivingRouteCalls, type DrivingRouteRow } from '../../../domain/schemas/driving-route';
import { showToast } from '../../lib/feedback';
import { ApiError, call } from '../../lib/http';
import { useDepartments } from '../../lib/preloads';
import { ScreenModal, type ScreenModalProps } from '../../list-screen';
import { bindingsQuery } from './queries';
import './driving-routes.css';

/** The department tree depth first, each with its depth: one indented list. */
function flatten(nodes: TreeNode<DepartmentRow>[], depth = 0, out: Array<{ row: DepartmentRow; depth: number }> = []) {
  for (const n of nodes) {
    out.push({ row: n.node, depth });
    flatten(n.children, depth + 1, out);
  }
  return out;
}

/**
 * 绑定部门 (spec 001 §7 /drivingRoute/depart/bind { id, departIds }): the
 * departments whose vehicle visitors follow this route. A department follows
 * one route: one bound elsewhere says so, and checking it here moves it.
 * Success reads '绑定成功', a failure the server's message (spec 001 §8).
 */
export function BindDepartsModal({ open, row, onClose, onDone }: ScreenModalProps<DrivingRouteRow>) {
  const departments = useDepartments();
  const bindings = useQuery(bindingsQuery);
  const [picked, setPicked] = useState<number[] | null>(null);
  const [search, setSearch] = useState('');
  const routeId = row?.id;
  useEffect(() => {
    if (bindings.data && picked === null) setPicked(bindings.data.filter((b) => b.route_id === routeId).map((b) => b.depart_id));
  }, [bindings.data, picked, routeId]);
  const elsewhere = useMemo(() => new Map((bindings.data ?? []).filter((b) => b.route_id !== routeId).map((b) => [b.depart_id, b.route_name])), [bindings.data, routeId]);
  const rows = useMemo(() => flatten(buildTree(departments.data ?? [])), [departments.data]);
  const shown = search.trim() ? rows.filter((r) => r.row.name.includes(search.trim())) : rows;
  const bind = useMutation({
    mutationFn: () => call(drivingRouteCalls.bind, { id: routeId!, departIds: picked ?? [] }),
    onSuccess: () => {
      showToast({ icon: 'success', content: '绑定成功' });
      void bindings.refetch();
      onDone();
    },
    onError: (e) => showToast({ icon: 'fail', content: e instanceof ApiError ? e.message : String(e), duration: 3000 }),
  });
  if (!row) return null;
  const loading = departments.isLoading || bindings.isLoading;
  const error = departments.error ?? bindings.error;

  return (
    <ScreenModal open={open} title="绑定部门" onClose={onClose} onOk={() => picked && bind.mutate()} okText="确定" okLoading={bind.isPending}>
      <div className="dr-bind">
        <p className="dr-points-route">路线：{row.name}</p>
        {loading ? (
          <Skeleton.Paragraph lineCount={5} animated />
        ) : error ? (
          <ErrorBlock status="default" title="部门加载失败" description={error.message}>
            <Button
              size="small"
              color="primary"
              fill="outline"
              onClick={() => {
                void departments.refetch();
                void bindings.refetch();
              }}
            >
              重试
            </Button>
          </ErrorBlock>
        ) : (
          <>
            <SearchBar placeholder="搜索部门" value={search} onChange={setSearch} />
            <div className="dr-count">已选 {picked?.length ?? 0} 个部门；一个部门只绑定一条路线，勾选已绑定其他路线的部门将改绑到本路线</div>
            <ul className="dr-check-list" aria-label="部门">
              {shown.map(({ row: d, depth }) => (
                <li key={d.depart_id} className={picked?.includes(d.depart_id) ? 'is-on' : ''} style={{ paddingLeft: 8 + depth * 18 }}>
                  <Checkbox
                    checked={picked?.includes(d.depart_id) ?? false}
                    onChange={(on) => setPicked((cur) => (on ? [...(cur ?? []), d.depart_id] : (cur ?? []).filter((x) => x !== d.depart_id)))}
                    style={{ '--icon-size': '18px', '--gap': '10px' } as React.CSSProperties}
                  >
                    {d.name}
                    {elsewhere.has(d.depart_id) && !picked?.includes(d.depart_id) ? <span className="dr-muted">（现绑定：{elsewhere.get(d.depart_id)}）</span> : null}
                  </Checkbox>
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
    </ScreenModal>
  );
}
