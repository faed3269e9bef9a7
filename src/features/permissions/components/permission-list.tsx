import { Button, SearchBar } from 'antd-mobile';
import { AddOutline, MoreOutline } from 'antd-mobile-icons';
import type { ReactNode } from 'react';
import type { PermissionActions } from '../use-permission-actions';
import type { PermissionTree } from '../use-permission-tree';
import { NameCell, TypeTag } from './permission-cells';

/** The phone layout: a search bar, fold-all buttons and the tree as a list, each node's actions in a sheet. */
export function PermissionList({ tree, actions, state }: { tree: PermissionTree; actions: PermissionActions; state: ReactNode }) {
  const { draft, setDraft, apply, searching } = tree;
  return (
    <>
      <div className="pp-phonebar">
        <SearchBar className="pp-phonebar__search" placeholder="搜索权限名" value={draft} onChange={setDraft} onSearch={apply} onClear={() => apply('')} aria-label="搜索权限名" />
        {actions.creating && (
          <Button size="mini" color="primary" className="pp-add" onClick={() => actions.openForm('create')}>
            <AddOutline /> 新增
          </Button>
        )}
      </div>
      <div className="pp-phonetools">
        <span className="pp-phonetools__total">共 {tree.search ? tree.visible.length : tree.rows.length} 条</span>
        <button type="button" className="pp-textbtn" onClick={tree.expandAll} disabled={searching}>
          展开全部
        </button>
        <button type="button" className="pp-textbtn" onClick={tree.collapseAll} disabled={searching}>
          折叠全部
        </button>
      </div>
      {state ? (
        <div className="pp-phone-state">{state}</div>
      ) : (
        <ul className="pp-list" aria-label="权限树">
          {tree.visible.map((v) => {
            const rowActions = actions.actionsFor(v.row);
            return (
              <li key={v.row.permission_id} className={`pp-item pp-row--t${v.row.type}`}>
                <div className="pp-item__main" style={{ paddingLeft: 8 + v.depth * 16 }}>
                  <NameCell v={{ ...v, depth: 0 }} searching={searching} unreleased={tree.unreleased.has(v.row.permission_id)} onToggle={tree.toggle} />
                  <span className="pp-item__meta">
                    <span className="pp-code">{v.row.code}</span>
                    <TypeTag row={v.row} />
                  </span>
                </div>
                {rowActions.length > 0 && (
                  <button type="button" className="pp-more" aria-label={`${v.row.name}的操作`} onClick={() => actions.setSheet(v.row)}>
                    <MoreOutline />
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </>
  );
}
