/// <reference lib="webworker" />
import { clientsClaim } from 'workbox-core';
import type { RouteHandlerCallbackOptions } from 'workbox-core/types';
import { CacheExpiration, ExpirationPlugin } from 'workbox-expiration';
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { CacheableResponsePlugin } from 'workbox-cacheable-response';
import { CacheFirst, StaleWhileRevalidate } from 'workbox-strategies';
import type { PushPayload } from '../domain/notifications';
import { OutboxDb } from '../src/lib/outbox/db';
import type { OutboxItem } from '../src/lib/outbox/types';
import { notificationOf, onNotificationClick } from './notification-actions';
import { CACHED_AT_HEADER, isCachedRead, isStorableAnswer, NOTICE_FILE_CACHE, OFFLINE_FROM_HEADER, READ_CACHE, READ_MAX_AGE_MS, readCacheKey } from './cache-key';

/** The Background Sync tag of the page's outbox (src/lib/outbox/runtime.ts SYNC_TAG). */
const OUTBOX_SYNC_TAG = 'outbox';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<{ url: string; revision: string | null }> };

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

// Deep links open offline too; /api must always reach the server (or fail honestly).
registerRoute(new NavigationRoute(createHandlerBoundToURL('/index.html'), { denylist: [/^\/api(\/|$)/] }));

// Code tables change rarely: answer from cache at once, refresh behind (DESIGN.md §5).
registerRoute(
  ({ url, request }) => request.method === 'GET' && url.origin === self.location.origin && (url.pathname.startsWith('/api/common/enum/') || url.pathname === '/api/common/enums'),
  new StaleWhileRevalidate({
    cacheName: 'api-enums',
    plugins: [new ExpirationPlugin({ maxEntries: 100, maxAgeSeconds: 30 * 24 * 60 * 60 })],
  }),
);

// The plate reader's models and engine (docs/plate-reading.md): cache-first, kept from the first open of 拍车牌 so it
// works offline after; their addresses change with each release of them, so a kept copy is never stale.
registerRoute(
  ({ url, request }) => request.method === 'GET' && url.origin === self.location.origin && (url.pathname.startsWith('/ocr/') || /^\/assets\/ort-wasm[^/]*\.wasm$/.test(url.pathname)),
  new CacheFirst({
    cacheName: 'ocr-models',
    plugins: [new CacheableResponsePlugin({ statuses: [200] }), new ExpirationPlugin({ maxEntries: 8, purgeOnQuotaError: true })],
  }),
);

// ------------------------------------------------------------------ list and detail reads

/** Past this a slow answer gives way to the kept one (a train between masts rarely answers at all). */
const NETWORK_TIMEOUT_MS = 4000;
const readExpiration = new CacheExpiration(READ_CACHE, { maxEntries: 300, maxAgeSeconds: READ_MAX_AGE_MS / 1000 });

async function keep(key: string, response: Response): Promise<void> {
  const text = await response.text();
  if (!isStorableAnswer(response.status, response.headers.get('Content-Type'), text)) return;
  const headers = new Headers({ 'Content-Type': response.headers.get('Content-Type')!, [CACHED_AT_HEADER]: new Date().toISOString() });
  const cache = await caches.open(READ_CACHE);
  await cache.put(key, new Response(text, { status: 200, headers }));
  await readExpiration.updateTimestamp(key);
  await readExpiration.expireEntries();
}

async function kept(key: string): Promise<Response | undefined> {
  const hit = await caches.open(READ_CACHE).then((c) => c.match(key));
  const cachedAt = hit?.headers.get(CACHED_AT_HEADER);
  if (!hit || !cachedAt || Date.now() - Date.parse(cachedAt) > READ_MAX_AGE_MS) return undefined;
  const headers = new Headers(hit.headers);
  headers.set(OFFLINE_FROM_HEADER, cachedAt);
  return new Response(hit.body, { status: hit.status, headers });
}

/** A proxy's "server unreachable" is as good as no network: fall back as for a failed fetch. */
const unreachable = (r: Response) => r.status === 502 || r.status === 503 || r.status === 504;

/**
 * Network first with a short timeout, then the last answer this session kept
 * (marked with X-Offline-From so the screen says so). With nothing kept, the
 * network's own outcome stands: the late answer, or the failure the screen
 * already reports as 网络连接失败.
 */
async function networkFirstRead({ request, event }: RouteHandlerCallbackOptions): Promise<Response> {
  const key = await readCacheKey({
    method: request.method,
    url: request.url,
    body: request.method === 'GET' ? '' : await request.clone().text(),
    authorization: request.headers.get('Authorization'),
  });
  const fromNetwork = fetch(request);
  if (!key) return fromNetwork;
  const keeping = fromNetwork.then((r) => keep(key, r.clone())).catch(() => undefined);
  (event as ExtendableEvent | undefined)?.waitUntil(keeping);

  let timer: ReturnType<typeof setTimeout> | undefined;
  const first = await Promise.race([
    fromNetwork.then(
      (response) => ({ response }),
      () => ({ response: undefined }),
    ),
    new Promise<{ response: undefined }>((resolve) => (timer = setTimeout(() => resolve({ response: undefined }), NETWORK_TIMEOUT_MS))),
  ]);
  clearTimeout(timer);
  if (first.response && !unreachable(first.response)) return first.response;
  return (await kept(key)) ?? first.response ?? fromNetwork;
}

for (const method of ['GET', 'POST'] as const) {
  registerRoute(({ url, request }) => url.origin === self.location.origin && isCachedRead(request.method, url.pathname), networkFirstRead, method);
}

// A notice's attachments, kept by the page when the notice was opened (features/notices/reader-page.tsx):
// the network first, and that copy only when the network fails. The access token in the query changes, the file does not.
registerRoute(
  ({ url, request }) => request.method === 'GET' && url.origin === self.location.origin && url.pathname.startsWith('/api/file/'),
  async ({ request }) => {
    try {
      return await fetch(request);
    } catch (err) {
      const kept = await (await caches.open(NOTICE_FILE_CACHE)).match(request, { ignoreSearch: true });
      if (kept) return kept;
      throw err;
    }
  },
);

// The page asks for activation only after the person accepts the update prompt.
self.addEventListener('message', (event: ExtendableMessageEvent) => {
  if ((event.data as { type?: string } | null)?.type === 'SKIP_WAITING') void self.skipWaiting();
});
// Once a new worker does activate, it serves every open page at once.
clientsClaim();

// ------------------------------------------------------------------ background sync

/** Background Sync is not in TypeScript's worker lib (Chromium only). */
interface SyncEvent extends ExtendableEvent {
  readonly tag: string;
}

/**
 * The outbox lives in the page (dexie) and the page drains it (DESIGN.md §5);
 * the browser's sync only says "the network is back", so every open window is
 * told to drain. No window open: nothing to do until the app next starts,
 * which drains on start anyway.
 */
self.addEventListener('sync', ((event: SyncEvent) => {
  if (event.tag !== OUTBOX_SYNC_TAG) return;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      for (const w of windows) w.postMessage({ type: 'OUTBOX_DRAIN' });
    })(),
  );
}) as EventListener);

// ------------------------------------------------------------------ push and its buttons

type SyncRegistration = ServiceWorkerRegistration & { sync?: { register(tag: string): Promise<void> } };

self.addEventListener('push', (event: PushEvent) => {
  let data: Partial<PushPayload> = {};
  try {
    data = (event.data?.json() as Partial<PushPayload> | undefined) ?? {};
  } catch {
    data = { body: event.data?.text() };
  }
  const { title, options } = notificationOf(data);
  event.waitUntil(self.registration.showNotification(title, options));
});

/** The app at `url`: a window of this origin is focused and moved there, else a new one opens. */
async function openAt(url: string): Promise<void> {
  const target = new URL(url, self.location.origin).href;
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((c) => new URL(c.url).origin === self.location.origin);
  if (open) {
    const focused = await open.focus();
    // navigate() is refused for a page this worker does not control yet; a new window still gets there.
    const moved = await focused.navigate(target).catch(() => null);
    if (moved) return;
  }
  await self.clients.openWindow(target);
}

/** A decision made offline from a notification, stored where the page's outbox keeps its own (src/lib/outbox/db.ts). */
async function writeOutbox(item: OutboxItem): Promise<void> {
  const db = new OutboxDb();
  try {
    await db.items.add(item);
  } finally {
    db.close();
  }
}

/** As the page does (src/lib/outbox/runtime.ts): the sync's 'outbox' tag wakes the page's drain; an open window drains now. */
async function requestSync(): Promise<void> {
  await (self.registration as SyncRegistration).sync?.register(OUTBOX_SYNC_TAG);
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  for (const w of windows) w.postMessage({ type: 'OUTBOX_DRAIN' });
}

// 同意 decides from the notification (sw/notification-actions.ts); the body and 查看 open the task.
self.addEventListener('notificationclick', (event: NotificationEvent) => {
  event.notification.close();
  event.waitUntil(
    onNotificationClick(event.action, event.notification.data, {
      fetch: (...a) => fetch(...a),
      showNotification: (title, options) => self.registration.showNotification(title, options),
      writeOutbox,
      requestSync,
      isOnline: () => self.navigator.onLine !== false,
      open: openAt,
      newId: () => self.crypto.randomUUID(),
    }),
  );
});
