import { Button, ErrorBlock, Skeleton } from 'antd-mobile';
import { useEffect, useState } from 'react';
import { isBuiltinRole, roleRules, type RoleRow } from '../../../../domain/schemas/role';
import { ApiError } from '../../../lib/http';
import { toggled } from '../../../lib/toggled';
import { useIsDesktop } from '../../../lib/use-media';
import { ScreenModal, failureText, type ScreenModalProps } from '../../../list-screen';
import { useBindPermissions } from '../api/bind-permissions';
import { usePermissionTree } from '../api/get-permission-tree';
import { useRolePermissions } from '../api/get-role-permissions';
import { PermissionCheckTree } from './permission-check-tree';
import './role-modals.css';
import { showToast } from '../../../lib/feedback';

/** 权限: the role's permissions ticked in the whole tree, from what it holds now; saving replaces them (绑定权限成功！ / 绑定权限错误：). */
export function RolePermissionsModal({ open, row, onClose, onDone }: ScreenModalProps<RoleRow>) {
  const desktop = useIsDesktop();
  const role = row!;
  const builtin = isBuiltinRole(role);
  const tree = usePermissionTree();
  const current = useRolePermissions(role.role_id);
  const bind = useBindPermissions();
  const [checked, setChecked] = useState<Set<number> | null>(null);

  useEffect(() => {
    if (current.data && checked === null) setChecked(new Set(current.data.map((p) => p.permission_id)));
  }, [current.data, checked]);

  const submit = () => {
    if (!checked || builtin) return;
    bind.mutate(
      { roleId: role.role_id, permissionIds: [...checked] },
      {
        onSuccess: () => {
          showToast({ icon: 'success', content: '绑定权限成功！' });
          onDone();
        },
        onError: (e) => showToast({ icon: 'fail', content: failureText('绑定权限错误：', e instanceof ApiError ? e.message : String(e)), duration: 3000 }),
      },
    );
  };

  const error = tree.error ?? current.error;
  const rows = tree.data ?? [];
  return (
    <ScreenModal open={open} title="绑定权限" width={680} onClose={onClose} {...(builtin ? {} : { onOk: submit, okText: desktop ? '确定' : '保存', okLoading: bind.isPending })}>
      <div className="rm">
        <div className="rm-role">
          <span className="rm-role__name">{role.name}</span>
          <span className="rm-role__meta">
            {role.code}
            {checked ? ` · 已选 ${checked.size} / ${rows.length} 项` : ''}
          </span>
        </div>
        {builtin && (
          <p className="rm-notice" role="note">
            {roleRules.adminPermissions}
          </p>
        )}
        {tree.isLoading || current.isLoading || (!error && checked === null) ? (
          <Skeleton.Paragraph lineCount={8} animated />
        ) : error ? (
          <ErrorBlock status="default" title="权限加载失败" description={error.message}>
            <Button
              size="small"
              color="primary"
              fill="outline"
              onClick={() => {
                void tree.refetch();
                void current.refetch();
              }}
            >
              重试
            </Button>
          </ErrorBlock>
        ) : (
          <PermissionCheckTree rows={rows} checked={checked ?? new Set()} disabled={builtin} onToggle={(id) => setChecked((s) => toggled(s ?? new Set<number>(), id))} />
        )}
      </div>
    </ScreenModal>
  );
}
