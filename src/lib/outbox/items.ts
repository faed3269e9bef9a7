import Dexie from 'dexie';
import type { OutboxDb } from './db';

/** The outbox's items as the screens act on them (立即发送, 重试, 删除) and the drain's timer reads them, apart from sending. */

export const itemsOfUser = (db: OutboxDb, userId: number) => db.items.where('[userId+createdAt]').between([userId, Dexie.minKey], [userId, Dexie.maxKey]);

export function outboxItems(db: OutboxDb, now: () => number) {
  const ofUser = (userId: number) => itemsOfUser(db, userId);
  const get = (id: string) => db.items.get(id);

  /** Items of one user in the order they were made. */
  const list = (userId: number) => ofUser(userId).toArray();

  async function retry(id: string): Promise<void> {
    await db.items
      .where('id')
      .equals(id)
      .filter((i) => i.state === 'failed' || i.state === 'conflict' || i.state === 'pending')
      .modify({ state: 'pending', attempts: 0, nextAttemptAt: 0, transient: false, updatedAt: now() });
  }

  /** Drops an item that is not being sent right now; answers whether it was dropped. */
  async function discard(id: string): Promise<boolean> {
    return (
      (await db.items
        .where('id')
        .equals(id)
        .filter((i) => i.state !== 'sending')
        .delete()) > 0
    );
  }

  /** 立即发送: waiting items skip their backoff, failed ones start over. */
  async function sendNow(userId: number): Promise<void> {
    await ofUser(userId)
      .filter((i) => i.state === 'failed')
      .modify({ state: 'pending', attempts: 0, nextAttemptAt: 0, transient: false });
    await ofUser(userId)
      .filter((i) => i.state === 'pending')
      .modify({ nextAttemptAt: 0 });
  }

  /** A reconnect is news the failed-for-network items did not have: they start over. */
  async function reviveTransient(userId: number): Promise<number> {
    return ofUser(userId)
      .filter((i) => i.state === 'failed' && !!i.transient)
      .modify({ state: 'pending', attempts: 0, nextAttemptAt: 0, transient: false });
  }

  /** When the earliest backed-off item of a user is due, if any. */
  async function nextWakeAt(userId: number): Promise<number | null> {
    let at: number | null = null;
    await ofUser(userId)
      .filter((i) => i.state === 'pending')
      .each((i) => {
        if (at === null || i.nextAttemptAt < at) at = i.nextAttemptAt;
      });
    return at;
  }

  return { get, list, retry, discard, sendNow, reviveTransient, nextWakeAt };
}
