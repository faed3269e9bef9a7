import { Button, Input } from 'antd-mobile';
import { AddOutline, RedoOutline } from 'antd-mobile-icons';
import type { ReactNode } from 'react';
import type { PermissionActions } from '../use-permission-actions';
import type { PermissionTree } from '../use-permission-tree';
import { NameCell, TypeTag } from './permission-cells';

/** The desktop layout: the filter panel, then the tree as a table with its toolbar and total. */
export function PermissionTable({ tree, actions, state }: { tree: PermissionTree; actions: PermissionActions; state: ReactNode }) {
  const { list, draft, setDraft, apply, searching } = tree;
  return (
    <>
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
            <Button size="small" onClick={tree.expandAll} disabled={searching}>
              展开全部
            </Button>
            <Button size="small" onClick={tree.collapseAll} disabled={searching}>
              折叠全部
            </Button>
            {actions.creating && (
              <Button size="small" color="primary" onClick={() => actions.openForm('create')}>
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
                tree.visible.map((v) => (
                  <tr key={v.row.permission_id} className={`pp-row pp-row--t${v.row.type}`}>
                    <td>
                      <NameCell v={v} searching={searching} unreleased={tree.unreleased.has(v.row.permission_id)} onToggle={tree.toggle} />
                    </td>
                    <td className="pp-code">{v.row.code}</td>
                    <td>
                      <TypeTag row={v.row} />
                    </td>
                    <td className="pp-route">{v.row.route ?? <span className="ls-dash">-</span>}</td>
                    <td className="pp-num">{v.row.role_count}</td>
                    <td className="pp-remark" title={v.row.remark}>
                      {v.row.remark || <span className="ls-dash">-</span>}
                    </td>
                    <td className="pp-actions-col">
                      <span className="pp-actions">
                        {actions.actionsFor(v.row).map((a) => (
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
        {!state && <div className="pp-total">共 {tree.search ? tree.visible.length : tree.rows.length} 条</div>}
      </section>
    </>
  );
}
