/**
 * Toast for screens on the first-load path (login, the shell): antd-mobile's
 * Toast brings react-spring (~21 KB gzip), so ./feedback is fetched when the
 * first toast is shown, not with the screen. Lazy screens import showToast
 * from ./feedback directly.
 */
export const preloadToast = () => import('./feedback');

export function toast(content: string, icon?: 'success' | 'fail'): void {
  void preloadToast()
    .then((m) => m.showToast({ icon, content }))
    .catch(() => window.alert(content));
}
