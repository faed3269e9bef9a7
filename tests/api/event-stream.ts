/** The live notification stream (GET /api/notifications/stream) read as a test client, shared by the suites that watch it. */

export interface SseEvent {
  event: string;
  id?: string;
  data: unknown;
}

/** Reads GET /api/notifications/stream the way the PWA does: fetch with the Bearer header, parsing text/event-stream. */
export class EventStream {
  readonly events: SseEvent[] = [];
  status = 0;
  contentType = '';
  private controller = new AbortController();
  private waiters: Array<() => void> = [];
  private done: Promise<void> = Promise.resolve();

  async open(base: string, token: string | null, headers: Record<string, string> = {}) {
    const res = await fetch(`${base}/api/notifications/stream`, {
      headers: { accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      signal: this.controller.signal,
    });
    this.status = res.status;
    this.contentType = res.headers.get('content-type') ?? '';
    if (!res.ok || !res.body) return this;
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    this.done = (async () => {
      let buf = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += decoder.decode(value, { stream: true });
          let cut: number;
          while ((cut = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, cut);
            buf = buf.slice(cut + 2);
            const e: SseEvent = { event: 'message', data: null };
            let data = '';
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) continue;
              const [field, ...rest] = line.split(':');
              const value = rest.join(':').replace(/^ /, '');
              if (field === 'event') e.event = value;
              else if (field === 'id') e.id = value;
              else if (field === 'data') data += value;
            }
            if (!data) continue;
            e.data = JSON.parse(data);
            this.events.push(e);
            this.waiters.splice(0).forEach((w) => w());
          }
        }
      } catch {
        // aborted by close()
      }
    })();
    return this;
  }

  /** The first event (from `from` on) that matches, or a failure after the timeout. */
  async next<T>(match: (e: SseEvent) => boolean, timeoutMs = 8000, from = 0): Promise<SseEvent & { data: T }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.events.slice(from).find(match);
      if (hit) return hit as SseEvent & { data: T };
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(this.events)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  async close() {
    this.controller.abort();
    await this.done;
  }
}
