import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { session } from '../lib/session';

export function loginPath(location: { pathname: string; search: string; hash?: string }): string {
  const back = `${location.pathname}${location.search}${location.hash ?? ''}`;
  return back === '/' ? '/login' : `/login?redirect=${encodeURIComponent(back)}`;
}

/** Checked on every navigation; a session that ends while a page is open is handled by the shell's listener. */
export function RequireAuth() {
  const location = useLocation();
  if (!session.token()) return <Navigate to={loginPath(location)} replace />;
  return <Outlet />;
}
