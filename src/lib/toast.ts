/**
 * Toast for screens on the first-load path (login, the shell): antd-mobile's
 * Toast brings react-spring (~21 KB gzip), so it is fetched when the first
 * toast is shown, not with the screen. Lazy screens import Toast directly.
 */
export const preloadToast = () => import('antd-mobile/es/components/toast');

export function toast(content: string, icon?: 'success' | 'fail'): void {
  void preloadToast()
    .then((m) => m.default.show({ icon, content }))
    .catch(() => window.alert(content));
}
