import { PersistQueryClientProvider } from '@tanstack/react-query-persist-client';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Outlet, useLocation, useNavigate } from 'react-router-dom';
import { ErrorCode } from '../../domain/errors';
import ForbiddenPage from '../features/errors/forbidden-page';
import { ApiError } from '../lib/http';
import { useMe } from '../lib/me';
import { session } from '../lib/session';
import { toast } from '../lib/toast';
import { loginPath } from './login-path';
import { confirmLogout, logout } from './logout';
import { PageLoading } from './page-loading';
import { persistOptionsFor, queryClient } from './query-client';
import { PRODUCT_NAME, useDocumentTitle } from './use-document-title';

/**
 * The shell's chunk, which a signed-in start loads anyway (main.tsx): importing it here keeps what both use
 * (the query client, logout, /user/info) in that one chunk rather than split into new shared chunks that the
 * signed-in home would then load as extra requests (issue 26: the home's first load must not grow).
 */
export { AppShell as _sameChunkAsShell } from './app-shell';

const BigScreenPage = lazy(() => import('../features/big-screen/big-screen-page'));
const MapBoardPage = lazy(() => import('../features/map-board/map-board-page'));

/**
 * The signed-in pages that fill the window without the shell's menu and
 * header (大屏, 地图看板: spec 002 §2): the same data layer and session watch
 * as the shell, and the notification stream the shell's bell would start,
 * so their figures stay live on a wall for days.
 */
export function FullScreenShell() {
  const [persistOptions] = useState(() => persistOptionsFor(session.token()));
  return (
    <PersistQueryClientProvider client={queryClient} persistOptions={persistOptions}>
      <FullScreenGate />
    </PersistQueryClientProvider>
  );
}

function FullScreenGate() {
  const navigate = useNavigate();
  const location = useLocation();
  const { data: me, error, isPending } = useMe();
  useEffect(
    () =>
      session.subscribe((reason) => {
        if (reason === 'expired') {
          toast('登录已过期，请重新登录');
          navigate(loginPath(window.location), { replace: true });
        } else if (reason === 'logout') {
          navigate('/login', { replace: true });
        }
      }),
    [navigate],
  );
  const ready = !!me && me.roleNames.length > 0 && me.permissions.length > 0;
  useEffect(() => {
    if (!ready) return;
    let stop: (() => void) | undefined;
    let cancelled = false;
    void import('../features/notifications/live').then((m) => {
      if (!cancelled) stop = m.startLive(queryClient);
    });
    return () => {
      cancelled = true;
      stop?.();
    };
  }, [ready]);

  if (isPending) return <PageLoading />;
  if ((me && !ready) || (error instanceof ApiError && error.code === ErrorCode.NO_ROLE)) return <ForbiddenPage noRole onLogout={() => void logout()} />;
  return (
    <Suspense fallback={<PageLoading />}>
      <Outlet key={location.pathname} />
    </Suspense>
  );
}

export function BigScreenRoute() {
  useDocumentTitle('大屏');
  const { data: me } = useMe();
  return <BigScreenPage title={PRODUCT_NAME} userName={me?.user.user_name ?? ''} onLogout={() => void confirmLogout()} />;
}

export function MapBoardRoute() {
  useDocumentTitle('地图看板');
  return <MapBoardPage title="地图看板" />;
}
