import { Checkbox, SearchBar } from 'antd-mobile';
import { DownOutline, RightOutline } from 'antd-mobile-icons';
import { useMemo, useState } from 'react';
import { enums } from '../../../../domain/enums';
import { parentIds, permissionTreeOf, UNRELEASED, unreleasedIds, visibleTreeRows, type PermissionRow } from '../../../../domain/schemas/permission';
import { toggled } from '../../../lib/toggled';

const typeLabel = new Map(enums.permissionType.map((o) => [o.value, o.label]));

export interface PermissionCheckTreeProps {
  rows: readonly PermissionRow[];
  checked: ReadonlySet<number>;
  onToggle: (id: number) => void;
  disabled?: boolean;
}

/**
 * The role's permissions as a checkable tree (spec 002 §2, §4): a tick on a
 * parent and on a child are independent. Directories start unfolded so every
 * menu shows; a folded node says how many below it are ticked. Screens not
 * built yet are tagged 未上线 and stay bindable.
 */
export function PermissionCheckTree({ rows, checked, onToggle, disabled }: PermissionCheckTreeProps) {
  const roots = useMemo(() => permissionTreeOf(rows), [rows]);
  const unreleased = useMemo(() => unreleasedIds(rows), [rows]);
  const [open, setOpen] = useState<Set<number>>(() => new Set(roots.filter((r) => r.children.length).map((r) => r.row.permission_id)));
  const [search, setSearch] = useState('');
  const q = search.trim().toLowerCase();
  const visible = useMemo(() => visibleTreeRows(roots, (id) => open.has(id), q ? (r) => r.name.toLowerCase().includes(q) || r.code.toLowerCase().includes(q) : undefined), [roots, open, q]);

  return (
    <div className="pct">
      <div className="pct-tools">
        <SearchBar className="pct-search" placeholder="搜索权限名称或编码" value={search} onChange={setSearch} aria-label="搜索权限" />
        <span className="pct-tools__buttons">
          <button type="button" className="pct-link" onClick={() => setOpen(new Set(parentIds(rows)))}>
            展开全部
          </button>
          <button type="button" className="pct-link" onClick={() => setOpen(new Set())}>
            折叠全部
          </button>
        </span>
      </div>
      {visible.length === 0 ? (
        <div className="pct-empty">没有匹配的权限</div>
      ) : (
        <ul className="pct-list" role="tree" aria-label="权限树">
          {visible.map((v) => {
            const id = v.row.permission_id;
            const below = v.hasChildren && !v.open ? v.descendants.filter((d) => checked.has(d)).length : 0;
            return (
              <li
                key={id}
                role="treeitem"
                aria-level={v.depth + 1}
                aria-expanded={v.hasChildren ? v.open : undefined}
                aria-selected={checked.has(id)}
                className={`pct-row pct-row--t${v.row.type}`}
                style={{ paddingLeft: 4 + v.depth * 20 }}
              >
                {v.hasChildren ? (
                  <button type="button" className="pct-caret" aria-label={`${v.open ? '折叠' : '展开'}${v.row.name}`} onClick={() => setOpen((s) => toggled(s, id))} disabled={!!q}>
                    {v.open ? <DownOutline /> : <RightOutline />}
                  </button>
                ) : (
                  <span className="pct-caret pct-caret--leaf" aria-hidden />
                )}
                <Checkbox className="pct-check" checked={checked.has(id)} disabled={disabled} onChange={() => onToggle(id)}>
                  <span className="pct-name">
                    {v.row.name}
                    {unreleased.has(id) && (
                      <span className="pct-unreleased" title={UNRELEASED.hint}>
                        {UNRELEASED.label}
                      </span>
                    )}
                  </span>
                  <span className="pct-code">{v.row.code}</span>
                </Checkbox>
                <span className="pct-meta">
                  {below > 0 && <span className="pct-count">已选 {below}</span>}
                  <span className={`pct-type pct-type--${v.row.type}`}>{typeLabel.get(v.row.type)}</span>
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
