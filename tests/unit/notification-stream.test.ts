import { QueryClient } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { NotificationEvent } from '../../domain/schemas/notifications';

/**
 * The notification stream's client (src/features/notifications/live.ts) over
 * a fake fetch: the Bearer header, events however the network cuts the bytes
 * (eventsource-parser), and Last-Event-ID when it reconnects.
 */

const enc = new TextEncoder();
const streamOf = (chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(enc.encode(chunk));
      c.close();
    },
  });

let stop: (() => void) | undefined;
beforeEach(() => {
  const store = new Map<string, string>([['park.token', 'tok']]);
  vi.stubGlobal('localStorage', { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => store.set(k, v), removeItem: (k: string) => store.delete(k) });
  // axios (through ./api) reads window.location once it sees a window.
  vi.stubGlobal('window', Object.assign(new EventTarget(), { location: new URL('http://localhost/') }));
  vi.stubGlobal('document', Object.assign(new EventTarget(), { visibilityState: 'visible' }));
  vi.stubGlobal('navigator', { onLine: true });
});
afterEach(() => {
  stop?.();
  vi.unstubAllGlobals();
  vi.resetModules();
});

describe('the notification stream client', () => {
  it('reads events cut anywhere by the network (a CRLF split too), then asks for what it missed with Last-Event-ID', async () => {
    const note = { id: 9, title: '审批任务', content: '粤L12345 待审核', unread: 4 } as unknown as NotificationEvent;
    const json = JSON.stringify(note);
    const calls: Array<Record<string, string>> = [];
    const answers = [
      // A heartbeat comment, an unread event whose CRLF is cut between '\r' and '\n', and a notification cut mid-JSON.
      streamOf([': hi\r\n\r\nid: 5\r', '\nevent: unread\r\ndata: {"count":3}\r\n\r', `\nid: 6\nevent: notification\ndata: ${json.slice(0, 10)}`, `${json.slice(10)}\n\n`]),
      streamOf([]),
    ];
    vi.stubGlobal('fetch', async (_url: string, init: RequestInit) => {
      calls.push(init.headers as Record<string, string>);
      return new Response(answers.shift() ?? streamOf([]), { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
    });
    const { startLive, onLiveNotification, liveState } = await import('../../src/features/notifications/live');
    const { unreadKey } = await import('../../src/features/notifications/api');
    const qc = new QueryClient();
    const seen: NotificationEvent[] = [];
    onLiveNotification((n) => seen.push(n));
    stop = startLive(qc);

    await vi.waitFor(() => expect(seen).toEqual([note]));
    expect(calls[0]).toMatchObject({ Authorization: 'Bearer tok', Accept: 'text/event-stream' });
    expect(calls[0]).not.toHaveProperty('Last-Event-ID');
    expect(qc.getQueryData(unreadKey)).toEqual({ count: 4 });

    // The stream ended (a server restart): the network coming back reconnects at once, from the last id read.
    await vi.waitFor(() => expect(liveState.get()).toBe('closed'));
    window.dispatchEvent(new Event('online'));
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[1]).toMatchObject({ Authorization: 'Bearer tok', 'Last-Event-ID': '6' });
  });

  it('keeps the id of an event whose CRLF line end the network split (the hand-written parser read a blank line there and lost it)', async () => {
    const calls: Array<Record<string, string>> = [];
    const answers = [streamOf(['id: 5\r', '\nevent: unread\r\ndata: {"count":3}\r\n\r\n'])];
    vi.stubGlobal('fetch', async (_url: string, init: RequestInit) => {
      calls.push(init.headers as Record<string, string>);
      return new Response(answers.shift() ?? streamOf([]), { status: 200 });
    });
    const { startLive, liveState } = await import('../../src/features/notifications/live');
    const { unreadKey } = await import('../../src/features/notifications/api');
    const qc = new QueryClient();
    stop = startLive(qc);
    await vi.waitFor(() => expect(qc.getQueryData(unreadKey)).toEqual({ count: 3 }));
    await vi.waitFor(() => expect(liveState.get()).toBe('closed'));
    window.dispatchEvent(new Event('online'));
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[1]).toMatchObject({ 'Last-Event-ID': '5' });
  });
});
