import { ActionSheet, Button, Empty, ErrorBlock, Input, SearchBar, Skeleton } from 'antd-mobile';
import { AddOutline, DownOutline, MoreOutline, RedoOutline, RightOutline } from 'antd-mobile-icons';
import { useEffect, useMemo, useState } from 'react';
import { enums } from '../../../domain/enums';
import {
  deleteConfirmText,
  deleteRefusal,
  isBuiltinPermission,
  parentIds,
  permissionTreeOf,
  PERMISSION_TYPE,
  UNRELEASED,
  unreleasedIds,
  visibleTreeRows,
  type PermissionRow,
  type VisibleTreeRow,
} from '../../../domain/schemas/permission';
import { IconGlyph } from '../../components/icon-glyph';
import { ApiError } from '../../lib/http';
import { useCan } from '../../lib/me';
import { toggled } from '../../lib/toggled';
import { useIsDesktop } from '../../lib/use-media';
import { MESSAGES, failureText } from '../../list-screen';
import { usePermissions } from './api/get-permissions';
import { useDeletePermission } from './api/save-permission';
import { PermissionForm } from './components/permission-form';
import './permissions-page.css';
import { confirmDialog, showToast } from '../../lib/feedback';

const typeLabel = new Map(enums.permissionType.map((o) => [o.value, o.label]));
const STATE_KEY = 'park.screen.system.permissions';

const loadSearch = () => {
  try {
    return sessionStorage.getItem(STATE_KEY) ?? '';
  } catch {
    return '';
  }
};

interface Action {
  key: string;
  label: string;
  danger?: boolean;
  run: () => void;
}

/**
 * 权限管理 (spec 002 §2 Permission tree): the whole tree, searched by name
 * (a hit keeps its ancestors), folded and unfolded node by node or all at
 * once; add, add child, edit, delete. Built-in nodes carry the product's
 * codes and cannot be deleted (domain deleteRefusal, the server's rule).
 */
export default function PermissionsPage() {
  const desktop = useIsDesktop();
  const can = useCan();
  const allowed = can('perm:list');
  const list = usePermissions(allowed);
  const remove = useDeletePermission();
  const rows = useMemo(() => list.data ?? [], [list.data]);
  const roots = useMemo(() => permissionTreeOf(rows), [rows]);
  const [open, setOpen] = useState<Set<number> | null>(null);
  const [draft, setDraft] = useState(loadSearch);
  const [search, setSearch] = useState(draft.trim());
  const [form, setForm] = useState<{ mode: 'create' | 'edit'; row?: PermissionRow; seq: number } | null>(null);
  const [sheet, setSheet] = useState<PermissionRow | null>(null);

  // Directories start unfolded, so that every menu is in sight.
  useEffect(() => {
    if (open === null && list.data) setOpen(new Set(roots.filter((r) => r.children.length).map((r) => r.row.permission_id)));
  }, [open, list.data, roots]);
  useEffect(() => {
    try {
      sessionStorage.setItem(STATE_KEY, search);
    } catch {
      // Remembering the search is a comfort only.
    }
  }, [search]);

  const q = search.toLowerCase();
  const visible = useMemo(() => visibleTreeRows(roots, (id) => !!open?.has(id), q ? (r) => r.name.toLowerCase().includes(q) : undefined), [roots, open, q]);
  const withChildren = useMemo(() => new Set(parentIds(rows)), [rows]);
  const unreleased = useMemo(() => unreleasedIds(rows), [rows]);

  const expandAll = () => setOpen(new Set(parentIds(rows)));
  const collapseAll = () => setOpen(new Set());
  const toggle = (id: number) => setOpen((s) => toggled(s ?? new Set<number>(), id));
  const apply = (text: string) => setSearch(text.trim());
  const openForm = (mode: 'create' | 'edit', row?: PermissionRow) => setForm({ mode, row, seq: Date.now() });

  const askDelete = async (row: PermissionRow) => {
    const refusal = deleteRefusal(row, withChildren.has(row.permission_id));
    if (refusal) {
      showToast({ content: refusal, duration: 3000 });
      return;
    }
    const ok = await confirmDialog({ content: deleteConfirmText(row.role_count), danger: true });
    if (!ok) return;
    remove.mutate(row.permission_id, {
      onSuccess: () => showToast({ icon: 'success', content: MESSAGES.deleteOk }),
      onError: (e) => showToast({ icon: 'fail', content: failureText(MESSAGES.deleteFail, e instanceof ApiError ? e.message : String(e)), duration: 3000 }),
    });
  };

  const actionsFor = (row: PermissionRow): Action[] => {
    const out: Action[] = [];
    if (can('perm:add') && row.type !== PERMISSION_TYPE.PERMISSION) out.push({ key: 'child', label: '新增下级', run: () => openForm('create', row) });
    if (can('perm:edit')) out.push({ key: 'edit', label: '编辑', run: () => openForm('edit', row) });
    if (can('perm:delete') && !isBuiltinPermission(row.code)) out.push({ key: 'delete', label: '删除', danger: true, run: () => void askDelete(row) });
    return out;
  };

  if (!allowed) {
    return (
      <div className="pp pp--blocked">
        <ErrorBlock status="disconnected" title="没有查询权限" description="当前账号没有权限管理的查询权限（perm:list），请联系管理员。" />
      </div>
    );
  }

  const firstLoad = list.isLoading && !list.data;
  const failed = list.isError && !list.data;
  const state = firstLoad ? (
    <Skeleton.Paragraph lineCount={8} animated className="pp-skeleton" />
  ) : failed ? (
    <ErrorBlock status="default" title="加载失败" description={list.error.message} className="pp-error">
      <Button size="small" color="primary" fill="outline" onClick={() => void list.refetch()}>
        重试
      </Button>
    </ErrorBlock>
  ) : visible.length === 0 ? (
    <Empty className="pp-empty" description={search ? '没有匹配的权限' : MESSAGES.empty} />
  ) : null;

  const nameCell = (v: VisibleTreeRow<PermissionRow>) => (
    <span className="pp-name" style={{ paddingLeft: v.depth * 22 }}>
      {v.hasChildren ? (
        <button type="button" className="pp-caret" aria-label={`${v.open ? '折叠' : '展开'}${v.row.name}`} aria-expanded={v.open} disabled={!!q} onClick={() => toggle(v.row.permission_id)}>
          {v.open ? <DownOutline /> : <RightOutline />}
        </button>
      ) : (
        <span className="pp-caret pp-caret--leaf" aria-hidden />
      )}
      <span className="pp-glyph" aria-hidden>
        {v.row.icon ? <IconGlyph code={v.row.icon} fallback={<span className="pp-glyph__none" />} /> : <span className="pp-glyph__none" />}
      </span>
      <span className={`pp-label${v.row.type === PERMISSION_TYPE.DIRECTORY ? ' pp-label--dir' : ''}`}>{v.row.name}</span>
      {v.row.builtin === 0 && (
        <span className="pp-custom" title="园区自行添加的权限，产品的功能不检查它">
          自定义
        </span>
      )}
      {unreleased.has(v.row.permission_id) && (
        <span className="pp-unreleased" title={UNRELEASED.hint}>
          {UNRELEASED.label}
        </span>
      )}
    </span>
  );
  const typeTag = (row: PermissionRow) => <span className={`pp-type pp-type--${row.type}`}>{typeLabel.get(row.type)}</span>;
  const creating = can('perm:add');

  const overlays = (
    <>
      {form && (
        <PermissionForm
          key={form.seq}
          mode={form.mode}
          row={form.row}
          rows={rows}
          onClose={() => setForm(null)}
          onSaved={() => {
            // A child just added shows under its parent, unfolded.
            const parent = form.mode === 'create' ? form.row?.permission_id : undefined;
            if (parent !== undefined) setOpen((o) => new Set(o ?? []).add(parent));
            setForm(null);
          }}
        />
      )}
      <ActionSheet
        visible={!!sheet}
        actions={(sheet ? actionsFor(sheet) : []).map((a) => ({ key: a.key, text: a.label, danger: a.danger, onClick: a.run }))}
        extra={
          sheet ? (
            <span className="pp-sheet-extra">
              {sheet.name} · {sheet.code}
            </span>
          ) : undefined
        }
        cancelText="取消"
        closeOnAction
        onClose={() => setSheet(null)}
      />
    </>
  );

  if (desktop) {
    return (
      <div className="pp pp--desktop">
        <section className="pp-panel pp-filters" aria-label="查询条件">
          <label className="pp-filter">
            <span className="pp-filter__label">权限名</span>
            <Input className="pp-filter__input" value={draft} onChange={setDraft} placeholder="请输入权限名" clearable onEnterPress={() => apply(draft)} />
          </label>
          <Button size="small" color="primary" onClick={() => apply(draft)}>
            查询
          </Button>
          <Button
            size="small"
            onClick={() => {
              setDraft('');
              apply('');
            }}
          >
            重置
          </Button>
        </section>
        <section className="pp-panel pp-result" aria-label="权限树">
          <div className="pp-toolbar">
            <h2 className="pp-title">权限列表</h2>
            <span className="pp-toolbar__right">
              <button type="button" className="pp-icon-btn" aria-label="刷新" title="刷新" onClick={() => void list.refetch()}>
                <RedoOutline className={list.isFetching ? 'ls-spin' : undefined} />
              </button>
              <Button size="small" onClick={expandAll} disabled={!!q}>
                展开全部
              </Button>
              <Button size="small" onClick={collapseAll} disabled={!!q}>
                折叠全部
              </Button>
              {creating && (
                <Button size="small" color="primary" onClick={() => openForm('create')}>
                  <AddOutline className="pp-btn-icon" />
                  新增权限
                </Button>
              )}
            </span>
          </div>
          <div className="pp-scroll">
            <table className="pp-table">
              <colgroup>
                <col />
                <col style={{ width: 210 }} />
                <col style={{ width: 72 }} />
                <col style={{ width: 190 }} />
                <col style={{ width: 72 }} />
                <col style={{ width: 120 }} />
                <col style={{ width: 150 }} />
              </colgroup>
              <thead>
                <tr>
                  <th scope="col">权限名</th>
                  <th scope="col">权限编码</th>
                  <th scope="col">类型</th>
                  <th scope="col">路由</th>
                  <th scope="col" className="pp-num">
                    角色数
                  </th>
                  <th scope="col">备注</th>
                  <th scope="col" className="pp-actions-col">
                    操作
                  </th>
                </tr>
              </thead>
              <tbody>
                {state ? (
                  <tr className="pp-placeholder">
                    <td colSpan={7}>{state}</td>
                  </tr>
                ) : (
                  visible.map((v) => (
                    <tr key={v.row.permission_id} className={`pp-row pp-row--t${v.row.type}`}>
                      <td>{nameCell(v)}</td>
                      <td className="pp-code">{v.row.code}</td>
                      <td>{typeTag(v.row)}</td>
                      <td className="pp-route">{v.row.route ?? <span className="ls-dash">-</span>}</td>
                      <td className="pp-num">{v.row.role_count}</td>
                      <td className="pp-remark" title={v.row.remark}>
                        {v.row.remark || <span className="ls-dash">-</span>}
                      </td>
                      <td className="pp-actions-col">
                        <span className="pp-actions">
                          {actionsFor(v.row).map((a) => (
                            <button key={a.key} type="button" className={`pp-link${a.danger ? ' pp-link--danger' : ''}`} onClick={a.run}>
                              {a.label}
                            </button>
                          ))}
                        </span>
                      </td>
                    </tr>
                  ))
                )}
              </tbody>
            </table>
          </div>
          {!state && <div className="pp-total">共 {search ? visible.length : rows.length} 条</div>}
        </section>
        {overlays}
      </div>
    );
  }

  return (
    <div className="pp pp--phone">
      <div className="pp-phonebar">
        <SearchBar className="pp-phonebar__search" placeholder="搜索权限名" value={draft} onChange={setDraft} onSearch={apply} onClear={() => apply('')} aria-label="搜索权限名" />
        {creating && (
          <Button size="mini" color="primary" className="pp-add" onClick={() => openForm('create')}>
            <AddOutline /> 新增
          </Button>
        )}
      </div>
      <div className="pp-phonetools">
        <span className="pp-phonetools__total">共 {search ? visible.length : rows.length} 条</span>
        <button type="button" className="pp-textbtn" onClick={expandAll} disabled={!!q}>
          展开全部
        </button>
        <button type="button" className="pp-textbtn" onClick={collapseAll} disabled={!!q}>
          折叠全部
        </button>
      </div>
      {state ? (
        <div className="pp-phone-state">{state}</div>
      ) : (
        <ul className="pp-list" aria-label="权限树">
          {visible.map((v) => {
            const actions = actionsFor(v.row);
            return (
              <li key={v.row.permission_id} className={`pp-item pp-row--t${v.row.type}`}>
                <div className="pp-item__main" style={{ paddingLeft: 8 + v.depth * 16 }}>
                  {nameCell({ ...v, depth: 0 })}
                  <span className="pp-item__meta">
                    <span className="pp-code">{v.row.code}</span>
                    {typeTag(v.row)}
                  </span>
                </div>
                {actions.length > 0 && (
                  <button type="button" className="pp-more" aria-label={`${v.row.name}的操作`} onClick={() => setSheet(v.row)}>
                    <MoreOutline />
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {overlays}
    </div>
  );
}
