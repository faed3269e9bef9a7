import { PersistQueryClientProvider } from '@tanstack/react-query-persist-client';
import { Button, ErrorBlock } from 'antd-mobile';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { ErrorCode } from '../../domain/errors';
import ForbiddenPage from '../features/errors/forbidden-page';
import { ApiError } from '../lib/http';
import { useMe } from '../lib/me';
import { session } from '../lib/session';
import { toast } from '../lib/toast';
import { useIsDesktop } from '../lib/use-media';
import { AccessContext, MenuGroupsContext } from './access-context';
import { DesktopLayout } from './desktop-layout';
import { logout } from './logout';
import { grantedRoutes, visibleGroups } from './menu';
import { MobileLayout } from './mobile-layout';
import { PageLoading } from './page-loading';
import { prefetchAfterSignIn } from './prefetch';
import { persistOptionsFor, queryClient } from './query-client';
import { startOutbox } from '../lib/outbox';
import { refreshWhenOutboxSends } from './outbox-refresh';
import { loginPath } from './login-path';
import { requestPersistentStorage } from './sw-register';
import { recordVisit } from './frequent-screens';
import { canReach, findAppRoute } from './routes';

/** The signed-in area: data layer, session watch, the /user/info gate and the responsive layout. */
export function AppShell() {
  // The shell mounts once per session (sign-out leaves it for /login), so this session's persistence is fixed here.
  const [persistOptions] = useState(() => persistOptionsFor(session.token()));
  return (
    <PersistQueryClientProvider client={queryClient} persistOptions={persistOptions}>
      <SessionWatcher />
      <SignedInGate />
    </PersistQueryClientProvider>
  );
}

function SessionWatcher() {
  const navigate = useNavigate();
  const location = useLocation();
  const where = useRef(location);
  where.current = location;
  useEffect(
    () =>
      session.subscribe((reason) => {
        if (reason === 'expired') {
          toast('登录已过期，请重新登录');
          navigate(loginPath(where.current), { replace: true });
        } else if (reason === 'logout') {
          navigate('/login', { replace: true });
        }
      }),
    [navigate],
  );
  return null;
}

function SignedInGate() {
  const { data: me, error, isPending, refetch, isRefetching } = useMe();
  const isDesktop = useIsDesktop();
  const noRole = !!me && (me.roleNames.length === 0 || me.permissions.length === 0);
  const granted = useMemo(() => grantedRoutes(me?.menus ?? []), [me?.menus]);
  const groups = useMemo(() => visibleGroups(me?.menus ?? []), [me?.menus]);
  const ready = !!me && !noRole;

  useEffect(() => (ready ? prefetchAfterSignIn(queryClient) : undefined), [ready]);
  // The outbox drains for the person /user/info names (and, before it answers, for the one this token was bound to).
  useEffect(() => startOutbox(me?.user.user_id), [me?.user.user_id]);
  useEffect(() => refreshWhenOutboxSends(queryClient), []);
  useEffect(() => {
    if (ready) requestPersistentStorage();
  }, [ready]);
  // Menu screens the person opens count towards the home's shortcuts (the tabs and open pages are no menu entries).
  const { pathname } = useLocation();
  const userId = me?.user.user_id;
  useEffect(() => {
    const route = findAppRoute(pathname);
    if (ready && userId !== undefined && route && !route.open && canReach(route, granted)) recordVisit(userId, route.path);
  }, [ready, userId, pathname, granted]);

  if (isPending) return <PageLoading />;
  // A role-less person would bounce between home and 403 forever, so they stay here with a way out.
  if (noRole || (error instanceof ApiError && error.code === ErrorCode.NO_ROLE)) return <ForbiddenPage noRole onLogout={() => void logout()} />;
  if (!me) {
    return (
      <div className="shell-error">
        <ErrorBlock status="disconnected" title="无法加载账号信息" description={error?.message ?? '请检查网络后重试'} />
        <div className="shell-error-actions">
          <Button color="primary" loading={isRefetching} onClick={() => void refetch()}>
            重新加载
          </Button>
          <Button onClick={() => void logout()}>退出登录</Button>
        </div>
      </div>
    );
  }
  return (
    <AccessContext.Provider value={granted}>
      <MenuGroupsContext.Provider value={groups}>{isDesktop ? <DesktopLayout /> : <MobileLayout />}</MenuGroupsContext.Provider>
    </AccessContext.Provider>
  );
}
