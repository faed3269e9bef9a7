import type { QueryClient } from '@tanstack/react-query';
import type { EventSourceMessage } from 'eventsource-parser';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { BACKOFF, backoffDelay } from '../../../domain/backoff';
import { NotificationKind, StreamEvent, type UnreadEvent } from '../../../domain/notifications';
import { notificationApi, type NotificationEvent } from '../../../domain/schemas/notifications';
import type { ImportProgressEvent } from '../../../domain/schemas/person-import';
import { figuresKey } from '../../lib/live-figures';
import { receivedNoticesKey } from '../../lib/received-notices';
import { publishImportProgress } from '../../lib/live-imports';
import { session } from '../../lib/session';
import { alarmBannerKey, pageKey, unreadKey } from './api';

/**
 * The live feed of GET /api/notifications/stream while the app is open.
 * Read with fetch() so the Bearer header goes along (EventSource cannot send
 * it, and a token in the URL would end up in logs); reconnects with the
 * spec's backoff, at once when the network or the tab comes back, and asks
 * for what it missed with Last-Event-ID. eventsource-parser splits the
 * stream into events; only the connection is ours.
 */

type Listener = (n: NotificationEvent) => void;
const listeners = new Set<Listener>();

/** Called for each notification that arrives while the app is open. */
export function onLiveNotification(fn: Listener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export type LiveState = 'connecting' | 'open' | 'closed';
let state: LiveState = 'closed';
const stateListeners = new Set<() => void>();
const setState = (s: LiveState) => {
  state = s;
  stateListeners.forEach((l) => l());
};
export const liveState = {
  get: () => state,
  subscribe: (l: () => void) => {
    stateListeners.add(l);
    return () => stateListeners.delete(l);
  },
};

function run(client: QueryClient): () => void {
  let active = true;
  let controller: AbortController | null = null;
  let attempt = 0;
  let lastId: string | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const handle = ({ id, event, data }: EventSourceMessage) => {
    if (id) lastId = id;
    if (event === StreamEvent.UNREAD) {
      client.setQueryData(unreadKey, { count: (JSON.parse(data) as UnreadEvent).count });
      // Read elsewhere (another tab or device): the alarm banner may have nothing left to show.
      void client.invalidateQueries({ queryKey: alarmBannerKey });
    } else if (event === StreamEvent.NOTIFICATION) {
      const n = JSON.parse(data) as NotificationEvent;
      client.setQueryData(unreadKey, { count: n.unread });
      void client.invalidateQueries({ queryKey: pageKey });
      void client.invalidateQueries({ queryKey: alarmBannerKey });
      if (n.kind === NotificationKind.NOTICE) void client.invalidateQueries({ queryKey: receivedNoticesKey });
      listeners.forEach((l) => l(n));
    } else if (event === StreamEvent.FIGURES) {
      void client.invalidateQueries({ queryKey: figuresKey });
    } else if (event === StreamEvent.IMPORT) {
      publishImportProgress(JSON.parse(data) as ImportProgressEvent);
    }
  };

  const retryLater = () => {
    if (!active) return;
    const delay = backoffDelay(attempt) ?? BACKOFF.initialMs * BACKOFF.factor ** (BACKOFF.steps - 1);
    attempt++;
    timer = setTimeout(() => void connect(), delay);
  };

  async function connect() {
    clearTimeout(timer);
    const token = session.token();
    if (!active || controller || !token) return;
    // Offline there is nothing to reach; 'online' brings us back.
    if (!navigator.onLine) return setState('closed');
    controller = new AbortController();
    setState('connecting');
    try {
      const res = await fetch(`/api${notificationApi.stream.path}`, {
        headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream', ...(lastId ? { 'Last-Event-ID': lastId } : {}) },
        signal: controller.signal,
        cache: 'no-store',
      });
      if (res.status === 401) {
        // The session ended elsewhere: the shell sends the person to sign in again.
        active = false;
        session.expire();
        return;
      }
      if (!res.ok || !res.body) throw new Error(`stream answered ${res.status}`);
      attempt = 0;
      setState('open');
      const reader = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        handle(value);
      }
    } catch {
      // A drop, a server restart or our own abort: the retry below (or stop) decides.
    } finally {
      controller = null;
      setState('closed');
    }
    retryLater();
  }

  const now = () => {
    attempt = 0;
    void connect();
  };
  const onOffline = () => controller?.abort();
  const onVisible = () => {
    if (document.visibilityState !== 'visible') return;
    // A phone that slept may have dropped the connection silently; the count may be stale either way.
    void client.invalidateQueries({ queryKey: unreadKey });
    if (!controller) now();
  };
  window.addEventListener('online', now);
  window.addEventListener('offline', onOffline);
  document.addEventListener('visibilitychange', onVisible);
  const unsubscribe = session.subscribe((reason) => {
    if (reason !== 'login') stop();
  });

  function stop() {
    active = false;
    clearTimeout(timer);
    controller?.abort();
    window.removeEventListener('online', now);
    window.removeEventListener('offline', onOffline);
    document.removeEventListener('visibilitychange', onVisible);
    unsubscribe();
  }

  void connect();
  return stop;
}

let users = 0;
let stopRunning: (() => void) | null = null;

/** One stream per page however many bells mount (the layout swaps when the window crosses 768 px). */
export function startLive(client: QueryClient): () => void {
  users++;
  if (users === 1) stopRunning = run(client);
  return () => {
    users--;
    if (users === 0) {
      stopRunning?.();
      stopRunning = null;
    }
  };
}
