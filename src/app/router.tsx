import type { ComponentType } from 'react';
import { createBrowserRouter, Navigate } from 'react-router-dom';
import { AppPage } from './app-page';
import { RequireAuth } from './require-auth';
import { BootSplash, RouteError } from './route-error';
import { appRoutes } from './routes';
// The first screen of every new visitor: part of the entry, so painting it needs no second round trip.
import LoginPage from '../features/auth/login-page';

const page = (load: () => Promise<{ default: ComponentType }>) => () => load().then((m) => ({ Component: m.default }));

/**
 * Public screens and the guarded shell. The spec sends '/403' and '/404' home,
 * so those pages live at '/forbidden' and '/not-found'; unknown paths render
 * the 404 page in place. The shell (layout, react-query, menu) is a lazy
 * route so none of it weighs on the login screen's first load.
 */
export const router = createBrowserRouter([
  {
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
        element: <RequireAuth />,
        children: [
          {
            lazy: () => import('./app-shell').then((m) => ({ Component: m.AppShell })),
            children: appRoutes.map((r) => ({ path: r.path, element: <AppPage route={r} /> })),
          },
        ],
      },
      { path: '*', lazy: page(() => import('../features/errors/not-found-page')) },
    ],
  },
]);
