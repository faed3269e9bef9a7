import { describe, expect, it } from 'vitest';
import { ReplayQueue, type QueuedEvent, type SendOutcome } from '../../scripts/offline-queue';

/** A device events API as ingest.ts keeps it: each event id admitted once, replays counted as duplicates. */
function server() {
  const stored: string[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  return {
    stored,
    get duplicates() {
      return duplicates;
    },
    receive(batch: QueuedEvent[]) {
      for (const e of batch) {
        if (seen.has(e.event_id)) duplicates++;
        else {
          seen.add(e.event_id);
          stored.push(e.event_id);
        }
      }
    },
  };
}

const event = (n: number): QueuedEvent => ({ event_id: `GATE-W-01-${String(n).padStart(4, '0')}`, type: 'vehicle', direction: 1 });

describe('the offline gate replay queue (scripts/offline-queue.ts)', () => {
  it('keeps a batch whose send failed and sends the same events on the retry: each is stored once, in order', async () => {
    const q = new ReplayQueue();
    const s = server();
    for (let i = 1; i <= 7; i++) q.push(event(i));
    // The network is down: nothing reaches the server, nothing leaves the queue.
    expect(await q.drain(async () => Promise.reject(new Error('ECONNREFUSED')), 3)).toBe(0);
    expect(q.size).toBe(7);
    // Back: every event goes, once.
    expect(
      await q.drain(async (b) => {
        s.receive(b);
        return 'answered';
      }, 3),
    ).toBe(7);
    expect(q.size).toBe(0);
    expect(s.stored).toEqual(Array.from({ length: 7 }, (_, i) => event(i + 1).event_id));
    expect(s.duplicates).toBe(0);
  });

  it('resends a batch whose reply was lost; the server counts it as duplicates and stores nothing twice', async () => {
    const q = new ReplayQueue();
    const s = server();
    for (let i = 1; i <= 5; i++) q.push(event(i));
    let calls = 0;
    const lossy = async (b: QueuedEvent[]): Promise<SendOutcome> => {
      s.receive(b);
      // The first reply is lost on the way back: delivered, but the gate cannot know.
      return ++calls === 1 ? 'retry' : 'answered';
    };
    expect(await q.drain(lossy, 2)).toBe(0);
    expect(q.size).toBe(5);
    expect(await q.drain(lossy, 2)).toBe(5);
    expect(s.stored).toEqual([1, 2, 3, 4, 5].map((n) => event(n).event_id));
    expect(s.duplicates).toBe(2);
    expect(q.size).toBe(0);
  });

  it('loses nothing queued while a send is in flight, and queues an id once', async () => {
    const q = new ReplayQueue();
    const s = server();
    q.push(event(1));
    q.push(event(2));
    expect(q.push(event(2))).toBe(false);
    let first = true;
    await q.drain(async (b) => {
      if (first) {
        first = false;
        // A crossing while the batch is on its way.
        q.push(event(3));
        return 'retry';
      }
      s.receive(b);
      return 'answered';
    }, 10);
    expect(q.size).toBe(3);
    await q.drain(async (b) => {
      s.receive(b);
      return 'answered';
    }, 10);
    expect(s.stored).toEqual([1, 2, 3].map((n) => event(n).event_id));
    expect(q.size).toBe(0);
  });

  it('over random failures and lost replies, every event is stored exactly once', async () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 50; round++) {
      const q = new ReplayQueue();
      const s = server();
      let n = 0;
      for (let step = 0; step < 40; step++) {
        for (let k = Math.floor(rand() * 4); k > 0; k--) q.push(event(++n));
        await q.drain(
          async (b) => {
            const u = rand();
            if (u < 0.2) throw new Error('network');
            s.receive(b);
            return u < 0.35 ? 'retry' : 'answered';
          },
          1 + Math.floor(rand() * 5),
        );
      }
      while (q.size)
        await q.drain(async (b) => {
          s.receive(b);
          return 'answered';
        }, 5);
      expect(s.stored).toEqual(Array.from({ length: n }, (_, i) => event(i + 1).event_id));
    }
  });
});
