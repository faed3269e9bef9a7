import { createSyncStoragePersister } from '@tanstack/query-sync-storage-persister';
import { onlineManager, QueryClient } from '@tanstack/react-query';
import type { PersistQueryClientOptions } from '@tanstack/react-query-persist-client';
import { queueNames } from '../../domain/appointments';
import { NOTICE_FILE_CACHE, READ_CACHE } from '../../sw/cache-key';
import { ApiError } from '../lib/http';
import { session } from '../lib/session';
import { isPersistedQuery, sessionTag, shareKeepingStamp } from './query-persistence';

const DAY = 24 * 60 * 60_000;

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refused or invalid call will not succeed on retry; only network trouble might, and not while offline.
      retry: (count, err) => count < 2 && navigator.onLine && (!(err instanceof ApiError) || err.status === 0 || err.status >= 500),
      refetchOnWindowFocus: false,
      // Offline, still ask once: the service worker may answer from its copy (sw/sw.ts); only retries wait for the network.
      networkMode: 'offlineFirst',
      // Whether the data on screen is the offline copy travels with the data (src/lib/offline-reads.ts).
      structuralSharing: shareKeepingStamp,
    },
    // Actions that must survive offline go through the outbox; any other save offline fails at once
    // with the network message instead of hanging as a paused mutation.
    mutations: { networkMode: 'always' },
  },
});

// React Query assumes online at start; an app opened offline must still see the reconnect and refetch then.
onlineManager.setOnline(navigator.onLine);

// A persisted query must outlive the persisted copy's age, or it drops out of it after 5 unobserved minutes.
for (const key of [['me'], ['enum'], ['home', 'approval-pending'], ...queueNames.map((q) => ['list', `approval.${q}`])]) {
  queryClient.setQueryDefaults(key, { gcTime: DAY });
}

const PERSIST_KEY = 'park.queries';

/**
 * Persistence for the session of `token`. The buster holds the app version,
 * the build time (data shapes change between builds of one version) and the
 * session, so another person's or an older build's copy is discarded on
 * restore; writes are refused once that session has ended, so a throttled
 * save landing after sign-out cannot bring the previous person's data back.
 */
export function persistOptionsFor(token: string | null): Omit<PersistQueryClientOptions, 'queryClient'> {
  const storage = {
    getItem: (k: string) => localStorage.getItem(k),
    setItem: (k: string, v: string) => {
      if (token && session.token() === token) localStorage.setItem(k, v);
    },
    removeItem: (k: string) => localStorage.removeItem(k),
  };
  return {
    persister: createSyncStoragePersister({ storage, key: PERSIST_KEY }),
    maxAge: DAY,
    buster: `${__APP_VERSION__}@${__DEPLOY_TIME__}:${token ? sessionTag(token) : 'none'}`,
    // Successful answers only (the default rule), of the persisted kinds.
    dehydrateOptions: { shouldDehydrateQuery: (q) => q.state.status === 'success' && isPersistedQuery(q.queryKey) },
  };
}

/** Everything kept for the person who just left: memory, the persisted copy and the service worker's reads. */
function forgetSession() {
  queryClient.clear();
  try {
    localStorage.removeItem(PERSIST_KEY);
  } catch {
    // storage refused (private window): nothing was persisted either
  }
  if ('caches' in window) for (const name of [READ_CACHE, NOTICE_FILE_CACHE]) void caches.delete(name).catch(() => undefined);
}

// Whoever signs in next must not see the previous person's cached data.
session.subscribe((reason) => (reason === 'login' ? queryClient.clear() : forgetSession()));
