import { lazy } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { session } from '../lib/session';
import { loginPath } from './login-path';
import { loadScreens } from './routes';

/**
 * The signed-in shell's chunk; the entry calls it early on a signed-in start so it downloads beside React's first render.
 * The table of how each menu screen loads (screens.tsx) comes along, so opening a screen waits for no second hop.
 */
export const loadShell = () => {
  void loadScreens().catch(() => undefined);
  return import('./app-shell');
};

const AppShell = lazy(() => loadShell().then((m) => ({ default: m.AppShell })));

/**
 * Checked on every navigation, before the shell is imported: a signed-out
 * visitor never downloads it. A session that ends while a page is open is
 * handled by the shell's listener.
 */
export function RequireAuth() {
  const location = useLocation();
  if (!session.token()) return <Navigate to={loginPath(location)} replace />;
  return <AppShell />;
}
