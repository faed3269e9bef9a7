/**
 * Production only: in dev the service worker would serve stale modules.
 * workbox-window and the prompt load after the page, off the first load:
 * after the load event and the first idle moment, because on a slow phone
 * the load event can come before React has drawn the first screen.
 */
export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  const start = () => void import('./update-prompt').then((m) => m.startUpdateFlow()).catch(() => undefined);
  const whenIdle = () => ('requestIdleCallback' in window ? window.requestIdleCallback(start, { timeout: 2000 }) : setTimeout(start, 0));
  if (document.readyState === 'complete') whenIdle();
  else window.addEventListener('load', whenIdle, { once: true });
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
