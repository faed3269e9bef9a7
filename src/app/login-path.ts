/** Where a signed-out visitor goes: /login, with the address they wanted to come back to. */
export function loginPath(location: { pathname: string; search: string; hash?: string }): string {
  const back = `${location.pathname}${location.search}${location.hash ?? ''}`;
  return back === '/' ? '/login' : `/login?redirect=${encodeURIComponent(back)}`;
}
