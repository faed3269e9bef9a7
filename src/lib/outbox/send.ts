import type { EnqueueInput, OutboxItem } from './types';

/**
 * "Send it now, or leave it to the outbox" (DESIGN.md §5), written once for
 * every action a person may take without a signal (a decision, a flag, a
 * mark cancellation, an alarm's handling): the action is stored first, then
 * sent at once; the modal that made it waits a while for the answer and then
 * lets go, so an online action reads as before and an offline or slow one is
 * said to wait, never to be done.
 */
export type SendOutcome =
  /** The server accepted it while the person waited. */
  | { state: 'done'; item: OutboxItem }
  /**
   * Refused while the person is still here (409, or another 4xx): they read why in the modal (and may act
   * again), so the item has been discarded; `item.error` and `item.status` say why.
   */
  | { state: 'refused'; item: OutboxItem }
  /** Left to the outbox: the device is offline (nothing was tried), or the send did not finish within the wait. */
  | { state: 'waiting'; offline: boolean; item: OutboxItem };

/** The outbox could not store the action (nobody signed in, IndexedDB unusable): nothing was queued or sent. */
export class OutboxUnavailableError extends Error {
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
    this.name = 'OutboxUnavailableError';
  }
}

/** What sendOrQueue needs of the outbox (the browser runtime's, or a test engine's). */
export interface SendDeps {
  enqueue: (input: EnqueueInput) => Promise<OutboxItem>;
  drain: () => Promise<unknown>;
  get: (id: string) => Promise<OutboxItem | undefined>;
  discard: (id: string) => Promise<boolean>;
  isOnline: () => boolean;
}

export function sendOrQueueWith(deps: SendDeps) {
  return async function sendOrQueue(input: EnqueueInput, waitMs: number): Promise<SendOutcome> {
    let item: OutboxItem;
    try {
      item = await deps.enqueue(input);
    } catch (e) {
      throw new OutboxUnavailableError(e);
    }
    if (!deps.isOnline()) return { state: 'waiting', offline: true, item };
    let stopWaiting = () => undefined as void;
    const sent = await Promise.race([
      deps.drain().then(() => deps.get(item.id)),
      new Promise<undefined>((r) => {
        const timer = setTimeout(r, waitMs);
        stopWaiting = () => clearTimeout(timer);
      }),
    ]).finally(() => stopWaiting());
    if (sent?.state === 'done') return { state: 'done', item: sent };
    if (sent && (sent.state === 'conflict' || (sent.state === 'failed' && !sent.transient))) {
      await deps.discard(item.id);
      return { state: 'refused', item: sent };
    }
    return { state: 'waiting', offline: false, item: sent ?? item };
  };
}
