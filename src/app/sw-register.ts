/**
 * Production only: in dev the service worker would serve stale modules.
 * workbox-window and the prompt load after the page, off the first load.
 */
export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  const start = () => void import('./update-prompt').then((m) => m.startUpdateFlow()).catch(() => undefined);
  if (document.readyState === 'complete') start();
  else window.addEventListener('load', start, { once: true });
}
