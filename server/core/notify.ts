import { sql, type Kysely } from 'kysely';
import type { NotificationKindValue } from '../../domain/notifications';
import { PushState } from '../../server-push/dispatch';
import type { DB } from '../db/schema';
import type { AppContext } from './context';
import { afterCommit } from './transactions';

export interface NewNotification {
  userId: number;
  kind: NotificationKindValue;
  title: string;
  body: string;
  url: string;
  tag: string;
}

/** `push`: some of the rows wait for Web Push (their user has a device); a read mark or a row nobody can get pushed is not. */
type Listener = (userIds: number[], push: boolean) => void;
/** Per database: the push dispatcher and the live streams of this process listen; other servers find the rows by polling. */
const listeners = new WeakMap<object, Set<Listener>>();

export function onNotified(db: Kysely<DB>, fn: Listener): () => void {
  let set = listeners.get(db);
  if (!set) listeners.set(db, (set = new Set()));
  set.add(fn);
  return () => set.delete(fn);
}

/** Tells this process's listeners that rows of these users changed (new, or read). */
export function signalNotified(db: Kysely<DB>, userIds: number[], push = false): void {
  for (const fn of listeners.get(db) ?? []) {
    try {
      fn(userIds, push);
    } catch (err) {
      console.error('notification listener failed:', err);
    }
  }
}

const clip = (s: string, max: number) => (s.length > max ? s.slice(0, max - 1) + '…' : s);

/**
 * Stores notifications in the caller's transaction, so an event never exists
 * without its notification (nor a notification without its event), and wakes
 * delivery once that transaction has committed.
 */
export async function notify(trx: Kysely<DB>, ctx: AppContext, items: NewNotification[]): Promise<void> {
  if (items.length === 0) return;
  const createTime = ctx.time();
  const createdAt = ctx.now();
  const users = [...new Set(items.map((n) => n.userId))];
  // Most people have no device opted in: their rows are settled as they are written, so the dispatcher claims and
  // settles only what it can push (two writes per decision fewer, issue 28). Each row asks for itself whether its user
  // has a live subscription, in the INSERT (one statement where the lookup was another).
  const pushState = (userId: number) =>
    sql<number>`case when exists (select 1 from push_subscription p inner join sys_session s on s.session_id = p.session_id
      where p.user_id = ${userId} and s.user_id = p.user_id and s.expires_at > ${createdAt}) then ${sql.lit(PushState.WAITING)} else ${sql.lit(PushState.DONE)} end`;
  const rows = items.map((n) => ({
    user_id: n.userId,
    kind: n.kind,
    title: clip(n.title, 60),
    body: clip(n.body, 300),
    url: clip(n.url, 300),
    tag: clip(n.tag, 100),
    create_time: createTime,
    created_at: createdAt,
    read_at: null,
    push_state: pushState(n.userId),
  }));
  let push = false;
  for (let i = 0; i < rows.length; i += 200) {
    const written = await trx
      .insertInto('notification')
      .values(rows.slice(i, i + 200))
      .returning('push_state')
      .execute();
    push ||= written.some((r) => r.push_state === PushState.WAITING);
  }
  afterCommit(trx, () => signalNotified(ctx.db, users, push));
}
