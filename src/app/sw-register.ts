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

let persistAsked = false;

/**
 * Once per page life after sign-in: asks the browser not to evict the outbox,
 * the persisted queries and the offline reads under storage pressure. Chromium
 * decides silently (installed or engaged sites get it); nothing to show.
 */
export function requestPersistentStorage(): void {
  if (persistAsked || !navigator.storage?.persist) return;
  persistAsked = true;
  void navigator.storage
    .persisted()
    .then((already) => already || navigator.storage.persist())
    .catch(() => undefined);
}
