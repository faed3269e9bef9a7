import { Button, Checkbox, ErrorBlock, SearchBar, Skeleton, Tag } from 'antd-mobile';
import { useEffect, useMemo, useState } from 'react';
import { roleRules, type RoleRow } from '../../../../domain/schemas/role';
import { ApiError } from '../../../lib/http';
import { useMe } from '../../../lib/me';
import { useUserOptions } from '../../../lib/preloads';
import { toggled } from '../../../lib/toggled';
import { useIsDesktop } from '../../../lib/use-media';
import { ScreenModal, failureText, type ScreenModalProps } from '../../../list-screen';
import { useBindUsers } from '../api/bind-users';
import { useRoleUsers } from '../api/get-role-users';
import './role-modals.css';
import { showToast } from '../../../lib/feedback';

/** Rows drawn at once; a park's staff list beyond that is narrowed by the search box. */
const SHOWN = 200;

/**
 * 绑定用户 (spec 002 §2): every user as a checkbox, ticked from who holds the
 * role now; saving makes exactly the ticked users hold it. The signed-in
 * person's own tick is fixed: one's own roles are another administrator's to change.
 */
export function RoleUsersModal({ open, row, onClose, onDone }: ScreenModalProps<RoleRow>) {
  const desktop = useIsDesktop();
  const role = row!;
  const me = useMe().data?.user.user_id;
  const users = useUserOptions();
  const current = useRoleUsers(role.role_id);
  const bind = useBindUsers();
  const [picked, setPicked] = useState<Set<number> | null>(null);
  const [search, setSearch] = useState('');

  useEffect(() => {
    if (current.data && picked === null) setPicked(new Set(current.data.map((u) => u.user_id)));
  }, [current.data, picked]);

  const held = useMemo(() => new Map((current.data ?? []).map((u) => [u.user_id, u])), [current.data]);
  const q = search.trim().toLowerCase();
  const list = useMemo(() => {
    const all = users.data ?? [];
    const hits = q ? all.filter((u) => u.user_name.toLowerCase().includes(q) || u.account.toLowerCase().includes(q)) : all;
    // Who holds the role comes first, so the current members are in sight without scrolling.
    return [...hits].sort((a, b) => Number(held.has(b.user_id)) - Number(held.has(a.user_id)));
  }, [users.data, q, held]);

  const submit = () => {
    if (!picked) return;
    bind.mutate(
      { roleId: role.role_id, userIds: [...picked] },
      {
        onSuccess: () => {
          showToast({ icon: 'success', content: '绑定用户成功！' });
          onDone();
        },
        onError: (e) => showToast({ icon: 'fail', content: failureText('绑定用户错误：', e instanceof ApiError ? e.message : String(e)), duration: 3000 }),
      },
    );
  };

  const loading = users.isLoading || current.isLoading || (!users.error && !current.error && picked === null);
  const error = users.error ?? current.error;
  return (
    <ScreenModal open={open} title="绑定用户" width={640} onClose={onClose} onOk={submit} okText={desktop ? '确定' : '保存'} okLoading={bind.isPending}>
      <div className="rm">
        <div className="rm-role">
          <span className="rm-role__name">{role.name}</span>
          <span className="rm-role__meta">
            {role.code}
            {picked ? ` · 已选 ${picked.size} 人` : ''}
          </span>
        </div>
        {loading ? (
          <Skeleton.Paragraph lineCount={6} animated />
        ) : error ? (
          <ErrorBlock status="default" title="用户加载失败" description={error.message}>
            <Button
              size="small"
              color="primary"
              fill="outline"
              onClick={() => {
                void users.refetch();
                void current.refetch();
              }}
            >
              重试
            </Button>
          </ErrorBlock>
        ) : (
          <>
            <SearchBar className="rm-search" placeholder="搜索姓名或账号" value={search} onChange={setSearch} aria-label="搜索用户" />
            {list.length === 0 ? (
              <div className="rm-empty">没有匹配的用户</div>
            ) : (
              <ul className="rm-users" aria-label="用户">
                {list.slice(0, SHOWN).map((u) => {
                  const self = u.user_id === me;
                  const on = !!picked?.has(u.user_id);
                  const info = held.get(u.user_id);
                  return (
                    <li key={u.user_id} className={`rm-user${on ? ' rm-user--on' : ''}`}>
                      <Checkbox
                        checked={on}
                        disabled={self}
                        onChange={() => setPicked((s) => toggled(s ?? new Set<number>(), u.user_id))}
                        style={{ '--icon-size': '18px', '--gap': '10px', width: '100%' } as React.CSSProperties}
                      >
                        <span className="rm-user__body">
                          <span className="rm-user__name">
                            {u.user_name}
                            {info?.status === 0 && (
                              <Tag color="danger" fill="outline">
                                停用
                              </Tag>
                            )}
                          </span>
                          <span className="rm-user__meta">{[u.account, u.depart_name, self ? '当前登录账号' : info ? '已绑定' : ''].filter(Boolean).join(' · ')}</span>
                        </span>
                      </Checkbox>
                    </li>
                  );
                })}
              </ul>
            )}
            {list.length > SHOWN && <div className="rm-more">还有 {list.length - SHOWN} 人未显示，请输入姓名搜索</div>}
            {me !== undefined && <p className="rm-hint">{roleRules.ownRoles}。</p>}
          </>
        )}
      </div>
    </ScreenModal>
  );
}
