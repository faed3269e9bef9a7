/**
 * A gate's outbox of events (docs/offline-gates.md): crossings decided while
 * the server was unreachable wait here, in order, and leave only once the
 * server has answered for them. A send that fails, or whose reply is lost,
 * leaves them queued and the same events go again; the device events API
 * admits each event id once (server/modules/devices/ingest.ts), so a resend
 * is counted as a duplicate and nothing is stored twice. Pure: the sending is
 * the caller's.
 */

export interface QueuedEvent {
  event_id: string;
  [field: string]: unknown;
}

/** What one send came to: answered (the batch is done, accepted or refused for good), or not (keep it for the next try). */
export type SendOutcome = 'answered' | 'retry';

export class ReplayQueue<E extends QueuedEvent = QueuedEvent> {
  private readonly events: E[] = [];
  private readonly ids = new Set<string>();

  /** Queues an event; an id already waiting is the same event and is not queued again. */
  push(event: E): boolean {
    if (this.ids.has(event.event_id)) return false;
    this.ids.add(event.event_id);
    this.events.push(event);
    return true;
  }

  get size(): number {
    return this.events.length;
  }

  /** The oldest `max` events, still queued: a retry sends these same ones. */
  peek(max: number): E[] {
    return this.events.slice(0, max);
  }

  /** Drops the events the server answered for; events queued meanwhile stay. */
  acknowledge(batch: readonly E[]): void {
    const done = new Set(batch.map((e) => e.event_id));
    for (let i = this.events.length - 1; i >= 0; i--) {
      if (done.has(this.events[i]!.event_id)) {
        this.ids.delete(this.events[i]!.event_id);
        this.events.splice(i, 1);
      }
    }
  }

  /**
   * Sends everything in batches of `max`, oldest first, until the queue is
   * empty or a send is not answered (then stops: what is left goes next time).
   * Answers how many events were answered for.
   */
  async drain(send: (batch: E[]) => Promise<SendOutcome>, max: number): Promise<number> {
    let answered = 0;
    while (this.events.length) {
      const batch = this.peek(max);
      let outcome: SendOutcome;
      try {
        outcome = await send(batch);
      } catch {
        outcome = 'retry';
      }
      if (outcome === 'retry') return answered;
      this.acknowledge(batch);
      answered += batch.length;
    }
    return answered;
  }
}
