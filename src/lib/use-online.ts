import { useSyncExternalStore } from 'react';

/** What the browser believes about the network now; false means certainly offline, true only "maybe online". */
export const onlineNow = (): boolean => (typeof navigator === 'undefined' ? true : navigator.onLine);

function subscribeOnline(cb: () => void) {
  window.addEventListener('online', cb);
  window.addEventListener('offline', cb);
  return () => {
    window.removeEventListener('online', cb);
    window.removeEventListener('offline', cb);
  };
}

/** Re-renders on every online/offline change. */
export const useOnline = (): boolean => useSyncExternalStore(subscribeOnline, onlineNow, () => true);
