import { Button, Empty, ErrorBlock, Skeleton } from 'antd-mobile';
import { useCan } from '../../lib/me';
import { useIsDesktop } from '../../lib/use-media';
import { MESSAGES } from '../../list-screen';
import { PermissionList } from './components/permission-list';
import { PermissionOverlays } from './components/permission-overlays';
import { PermissionTable } from './components/permission-table';
import { usePermissionActions } from './use-permission-actions';
import { usePermissionTree } from './use-permission-tree';
import './permissions-page.css';

/**
 * 权限管理 (spec 002 §2 Permission tree): the whole tree, searched by name
 * (a hit keeps its ancestors), folded and unfolded node by node or all at
 * once; add, add child, edit, delete. Built-in nodes carry the product's
 * codes and cannot be deleted (domain deleteRefusal, the server's rule).
 * The tree's state is use-permission-tree.ts, what a node offers
 * use-permission-actions.ts; the two layouts are components/permission-table
 * (desktop) and components/permission-list (phone).
 */
export default function PermissionsPage() {
  const desktop = useIsDesktop();
  const can = useCan();
  const allowed = can('perm:list');
  const tree = usePermissionTree(allowed);
  const actions = usePermissionActions(tree.withChildren);
  const { list } = tree;

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
  ) : tree.visible.length === 0 ? (
    <Empty className="pp-empty" description={tree.search ? '没有匹配的权限' : MESSAGES.empty} />
  ) : null;

  return (
    <div className={`pp ${desktop ? 'pp--desktop' : 'pp--phone'}`}>
      {desktop ? <PermissionTable tree={tree} actions={actions} state={state} /> : <PermissionList tree={tree} actions={actions} state={state} />}
      <PermissionOverlays actions={actions} rows={tree.rows} onChildAdded={tree.unfold} />
    </div>
  );
}
