import { useSyncExternalStore } from 'react';

/** DESIGN.md §6: below 768 px cards, bottom sheets and a tab bar; from 768 px tables and a side menu. */
export const DESKTOP_QUERY = '(min-width: 768px)';

function subscribe(cb: () => void) {
  const mq = window.matchMedia(DESKTOP_QUERY);
  mq.addEventListener('change', cb);
  return () => mq.removeEventListener('change', cb);
}

export function useIsDesktop(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(DESKTOP_QUERY).matches,
    () => false,
  );
}
