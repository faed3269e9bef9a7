import { CenterPopup, DotLoading, ErrorBlock, Popup, SearchBar } from 'antd-mobile';
import { CloseCircleFill, DownOutline, RightOutline } from 'antd-mobile-icons';
import { useMemo, useState } from 'react';
import { buildTree, type DepartmentRow, type TreeNode } from '../../domain/schemas/department';
import { useDepartments } from '../lib/preloads';
import { toggled } from '../lib/toggled';
import { useIsDesktop } from '../lib/use-media';
import { triggerName } from './trigger-name';
import './fields.css';

export interface DepartmentSelectProps {
  value?: unknown;
  onChange?: (value: unknown) => void;
  placeholder?: string;
  disabled?: boolean;
  /** Filters allow going back to 'no department'; forms may not. */
  allowClear?: boolean;
  /** Shown while the preload has not answered yet (the row's own depart_name). */
  fallbackLabel?: string;
  'aria-label'?: string;
}

type Dept = DepartmentRow;

function pathOf(rows: Dept[], id: number): string[] {
  const byId = new Map(rows.map((r) => [r.depart_id, r]));
  const names: string[] = [];
  let cur = byId.get(id);
  const seen = new Set<number>();
  while (cur && !seen.has(cur.depart_id)) {
    seen.add(cur.depart_id);
    names.unshift(cur.name);
    cur = cur.pid ? byId.get(cur.pid) : undefined;
  }
  return names;
}

/**
 * Department tree select (antd-mobile has none): a trigger that reads like an
 * input and a sheet with search and an expandable tree, where a parent
 * department is as selectable as a leaf.
 */
export function DepartmentSelect({ value, onChange, placeholder = '请选择部门', disabled, allowClear = true, fallbackLabel, ...aria }: DepartmentSelectProps) {
  const desktop = useIsDesktop();
  const [open, setOpen] = useState(false);
  const { data: rows = [] } = useDepartments();
  const id = typeof value === 'number' ? value : value ? Number(value) : undefined;
  const selected = id && id > 0 ? id : undefined;
  const path = selected ? pathOf(rows, selected) : [];
  // The trigger shows the department itself; the path (who it belongs to) is the tooltip.
  const label = selected ? path.at(-1) || fallbackLabel || String(selected) : '';
  const fullPath = path.join(' / ');

  const pick = (v: number | undefined) => {
    onChange?.(v);
    setOpen(false);
  };
  const panel = <DepartmentTree selected={selected} onPick={pick} onClose={() => setOpen(false)} />;

  return (
    <>
      <div className={`pf-trigger${disabled ? ' pf-trigger--disabled' : ''}`}>
        <button type="button" className="pf-trigger__main" disabled={disabled} aria-label={triggerName(aria['aria-label'], label || placeholder)} aria-haspopup="dialog" onClick={() => setOpen(true)}>
          <span className={label ? 'pf-trigger__text' : 'pf-trigger__placeholder'} title={fullPath || label}>
            {label || placeholder}
          </span>
        </button>
        {label && allowClear && !disabled ? (
          <button type="button" className="pf-trigger__clear" aria-label="清除部门" onClick={() => onChange?.(undefined)}>
            <CloseCircleFill />
          </button>
        ) : (
          <span className="pf-trigger__arrow" aria-hidden>
            <DownOutline />
          </span>
        )}
      </div>
      {desktop ? (
        <CenterPopup visible={open} onMaskClick={() => setOpen(false)} onClose={() => setOpen(false)} destroyOnClose style={{ '--min-width': '460px', '--max-width': '520px' } as React.CSSProperties}>
          {panel}
        </CenterPopup>
      ) : (
        <Popup visible={open} onMaskClick={() => setOpen(false)} onClose={() => setOpen(false)} destroyOnClose bodyStyle={{ borderTopLeftRadius: 12, borderTopRightRadius: 12 }}>
          {panel}
        </Popup>
      )}
    </>
  );
}

function DepartmentTree({ selected, onPick, onClose }: { selected?: number; onPick: (id: number | undefined) => void; onClose: () => void }) {
  const { data: rows, isLoading, isError, refetch } = useDepartments();
  const [q, setQ] = useState('');
  const tree = useMemo(() => buildTree(rows ?? []), [rows]);
  const [expanded, setExpanded] = useState<Set<number>>(() => {
    // Open the branch that holds the current choice, plus the first level.
    const open = new Set<number>((rows ?? []).filter((r) => !r.pid).map((r) => r.depart_id));
    const byId = new Map((rows ?? []).map((r) => [r.depart_id, r]));
    let cur = selected ? byId.get(selected) : undefined;
    while (cur?.pid) {
      open.add(cur.pid);
      cur = byId.get(cur.pid);
    }
    return open;
  });
  const toggle = (id: number) => setExpanded((s) => toggled(s, id));

  const needle = q.trim().toLowerCase();
  const matches = needle ? (rows ?? []).filter((r) => r.name.toLowerCase().includes(needle) || r.code?.toLowerCase().includes(needle)) : [];

  const renderNode = (n: TreeNode<Dept>, depth: number): React.ReactNode => {
    const id = n.node.depart_id;
    const hasKids = n.children.length > 0;
    const isOpen = expanded.has(id);
    return (
      <li key={id} role="treeitem" aria-expanded={hasKids ? isOpen : undefined} aria-selected={selected === id}>
        <div className={`dt-row${selected === id ? ' dt-row--on' : ''}`} style={{ paddingLeft: 12 + depth * 20 }}>
          {hasKids ? (
            <button type="button" className={`dt-caret${isOpen ? ' dt-caret--open' : ''}`} aria-label={isOpen ? '收起' : '展开'} onClick={() => toggle(id)}>
              <RightOutline />
            </button>
          ) : (
            <span className="dt-caret dt-caret--leaf" />
          )}
          <button type="button" className="dt-name" onClick={() => onPick(id)}>
            {n.node.name}
          </button>
        </div>
        {hasKids && isOpen && <ul role="group">{n.children.map((c) => renderNode(c, depth + 1))}</ul>}
      </li>
    );
  };

  return (
    <div className="dt" role="dialog" aria-label="选择部门">
      <div className="dt-head">
        <button type="button" className="dt-head__btn" onClick={onClose}>
          取消
        </button>
        <span className="dt-head__title">选择部门</span>
        <button type="button" className="dt-head__btn dt-head__btn--muted" onClick={() => onPick(undefined)}>
          清空
        </button>
      </div>
      <div className="dt-search">
        <SearchBar placeholder="搜索部门名称" value={q} onChange={setQ} />
      </div>
      <div className="dt-body">
        {isLoading ? (
          <div className="dt-state">
            <DotLoading color="primary" />
          </div>
        ) : isError ? (
          <ErrorBlock status="default" title="部门加载失败" description={<a onClick={() => refetch()}>点击重试</a>} />
        ) : needle ? (
          matches.length ? (
            <ul role="listbox">
              {matches.map((r) => (
                <li key={r.depart_id}>
                  <button type="button" className={`dt-match${selected === r.depart_id ? ' dt-row--on' : ''}`} onClick={() => onPick(r.depart_id)}>
                    <span className="dt-match__name">{r.name}</span>
                    <span className="dt-match__path">
                      {pathOf(rows ?? [], r.depart_id)
                        .slice(0, -1)
                        .join(' / ')}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <div className="dt-state">没有匹配的部门</div>
          )
        ) : tree.length ? (
          <ul role="tree">{tree.map((n) => renderNode(n, 0))}</ul>
        ) : (
          <div className="dt-state">暂无数据</div>
        )}
      </div>
    </div>
  );
}
