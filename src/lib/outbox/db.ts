import Dexie, { type EntityTable } from 'dexie';
import type { OutboxItem } from './types';

export const OUTBOX_DB_NAME = 'park-outbox';

/** The outbox lives in IndexedDB so it survives reloads, restarts and sign-outs. */
export class OutboxDb extends Dexie {
  items!: EntityTable<OutboxItem, 'id'>;

  constructor(name = OUTBOX_DB_NAME) {
    super(name);
    // [userId+createdAt]: one person's items in the order they were made, which is the order they are sent.
    this.version(1).stores({ items: 'id, [userId+createdAt], state, doneAt' });
  }
}
