import { lazy, Suspense, type ComponentType } from 'react';
import { createBrowserRouter, matchRoutes, Navigate, Outlet, useLocation, type RouteObject } from 'react-router-dom';
import { session } from '../lib/session';
import { loginPath } from './login-path';
import { AppPage } from './app-page';
import { RequireAuth } from './require-auth';
import { BootSplash } from './boot-splash';
import { RouteError } from './route-error';
import { appRoutes, fullScreenPaths } from './routes';
// The first screen of every new visitor: part of the entry, so painting it needs no second round trip.
import LoginPage from '../features/auth/login-page';

const page = (load: () => Promise<{ default: ComponentType }>) => () => load().then((m) => ({ Component: m.default }));

/** The id of the route every signed-in screen sits under. */
const SIGNED_IN = 'signed-in';
/** The id of the signed-in pages that fill the window, outside the shell (大屏, 地图看板). */
const FULL_SCREEN = 'full-screen';

const loadFullScreen = () => import('./full-screen');
const FullScreenShell = lazy(() => loadFullScreen().then((m) => ({ default: m.FullScreenShell })));

/** RequireAuth's check for the full-screen pages: they have the data layer but not the shell's menu and header. */
function RequireFullScreen() {
  const location = useLocation();
  if (!session.token()) return <Navigate to={loginPath(location)} replace />;
  return <FullScreenShell />;
}

/**
 * Already on screen when the shell starts loading after sign-in, so the
 * router's transition keeps the login screen up until the shell is there
 * instead of flashing a spinner; on a signed-in start it is the splash.
 */
function Root() {
  return (
    <Suspense fallback={<BootSplash />}>
      <Outlet />
    </Suspense>
  );
}

/**
 * Public screens and the guarded shell. The spec sends '/403' and '/404' home,
 * so those pages live at '/forbidden' and '/not-found'; unknown paths render
 * the 404 page in place. The shell (layout, react-query, menu, HTTP client) is
 * imported by RequireAuth only once it has seen a token: a router `lazy` route
 * would be fetched as soon as a path matched, signed in or not, and a signed-out
 * visit to '/' would download the whole shell just to be sent to /login.
 */
const routes: RouteObject[] = [
  {
    Component: Root,
    errorElement: <RouteError />,
    hydrateFallbackElement: <BootSplash />,
    children: [
      { path: '/login', Component: LoginPage },
      { path: '/403', element: <Navigate to="/" replace /> },
      { path: '/404', element: <Navigate to="/" replace /> },
      { path: '/index', element: <Navigate to="/" replace /> },
      { path: '/forbidden', lazy: page(() => import('../features/errors/forbidden-page')) },
      { path: '/not-found', lazy: page(() => import('../features/errors/not-found-page')) },
      {
        id: SIGNED_IN,
        element: <RequireAuth />,
        children: appRoutes.map((r) => ({ path: r.path, element: <AppPage route={r} /> })),
      },
      {
        id: FULL_SCREEN,
        element: <RequireFullScreen />,
        children: [
          { path: fullScreenPaths.bigScreen, lazy: () => loadFullScreen().then((m) => ({ Component: m.BigScreenRoute })) },
          { path: fullScreenPaths.mapBoard, lazy: () => loadFullScreen().then((m) => ({ Component: m.MapBoardRoute })) },
        ],
      },
      { path: '*', lazy: page(() => import('../features/errors/not-found-page')) },
    ],
  },
];

/** Whether `pathname` is a signed-in screen (the redirects to '/' are not: they settle on a screen that is). */
export function requiresSignIn(pathname: string): boolean {
  return !!matchRoutes(routes, pathname)?.some((m) => m.route.id === SIGNED_IN || m.route.id === FULL_SCREEN);
}

/** Made on demand: the router reads the address when it is created, and the entry may rewrite it first. */
export function createAppRouter() {
  return createBrowserRouter(routes);
}
