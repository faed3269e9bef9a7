import { Button, Checkbox, ErrorBlock, Skeleton, Tag } from 'antd-mobile';
import { useEffect, useState } from 'react';
import type { UserRow } from '../../../../domain/schemas/user';
import { ApiError } from '../../../lib/http';
import { useIsDesktop } from '../../../lib/use-media';
import { ScreenModal, failureText, type ScreenModalProps } from '../../../list-screen';
import { useBindRole } from '../api/bind-role';
import { useRoles } from '../api/get-roles';
import { useUserRoles } from '../api/get-user-roles';
import './bind-role-modal.css';
import { showToast } from '../../../lib/feedback';

/** 绑定角色: every role as a checkbox, preloaded with what the user holds now. */
export function BindRoleModal({ open, row, onClose, onDone }: ScreenModalProps<UserRow>) {
  const desktop = useIsDesktop();
  const userId = row!.user_id;
  const roles = useRoles();
  const current = useUserRoles(userId);
  const bind = useBindRole();
  const [picked, setPicked] = useState<number[] | null>(null);

  useEffect(() => {
    if (current.data && picked === null) setPicked(current.data.map((r) => r.role_id));
  }, [current.data, picked]);

  const submit = () => {
    if (picked === null) return;
    bind.mutate(
      { userId, roleIds: picked },
      {
        onSuccess: () => {
          showToast({ icon: 'success', content: '绑定角色成功！' });
          onDone();
        },
        onError: (e) => showToast({ icon: 'fail', content: failureText('绑定角色错误：', e instanceof ApiError ? e.message : String(e)), duration: 3000 }),
      },
    );
  };

  const loading = roles.isLoading || current.isLoading;
  const error = roles.error ?? current.error;
  const list = roles.data ?? [];

  return (
    <ScreenModal open={open} title="绑定角色" onClose={onClose} onOk={submit} okText={desktop ? '确定' : '保存'} okLoading={bind.isPending}>
      <div className="br">
        <div className="br-user">
          <span className="br-user__name">{row!.user_name}</span>
          <span className="br-user__meta">
            {row!.account}
            {row!.depart_name ? ` · ${row!.depart_name}` : ''}
          </span>
        </div>
        {loading ? (
          <Skeleton.Paragraph lineCount={5} animated />
        ) : error ? (
          <ErrorBlock status="default" title="角色加载失败" description={error.message}>
            <Button
              size="small"
              color="primary"
              fill="outline"
              onClick={() => {
                void roles.refetch();
                void current.refetch();
              }}
            >
              重试
            </Button>
          </ErrorBlock>
        ) : list.length === 0 ? (
          <div className="br-empty">暂无数据</div>
        ) : (
          <>
            <div className="br-count">
              已选 {picked?.length ?? 0} / {list.length} 个角色
            </div>
            <Checkbox.Group value={picked ?? []} onChange={(v) => setPicked(v.map(Number))}>
              <ul className="br-list" aria-label="角色">
                {list.map((r) => (
                  <li key={r.role_id} className={`br-item${picked?.includes(r.role_id) ? ' br-item--on' : ''}`}>
                    <Checkbox value={r.role_id} style={{ '--icon-size': '18px', '--gap': '10px', width: '100%' } as React.CSSProperties}>
                      <span className="br-item__body">
                        <span className="br-item__name">
                          {r.name}
                          {r.status === 0 && (
                            <Tag color="danger" fill="outline" className="br-item__tag">
                              停用
                            </Tag>
                          )}
                        </span>
                        <span className="br-item__code">{r.code}</span>
                        {r.remark ? <span className="br-item__remark">{r.remark}</span> : null}
                      </span>
                    </Checkbox>
                  </li>
                ))}
              </ul>
            </Checkbox.Group>
          </>
        )}
      </div>
    </ScreenModal>
  );
}
