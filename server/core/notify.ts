import { sql, type Kysely } from 'kysely';
import type { NotificationKindValue } from '../../domain/notifications';
import { PushState } from '../../server-push/dispatch';
import { preparedPer } from '../db/prepared';
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

/** The most rows one INSERT writes: a department's whole reviewer list stays one statement, and a statement stays small. */
const CHUNK = 200;

/** The values each row of the prepared INSERT takes, as `user0`, `kind0`, … `tag199`. */
type RowField = 'user' | 'kind' | 'title' | 'body' | 'url' | 'tag';
type RowArgs = Record<string, unknown> & { createTime: string; createdAt: number };

/**
 * The INSERT of `count` notifications, prepared once per count (issue 28: a
 * decision built and compiled this one on every call). Each row asks for
 * itself whether its user has a live subscription: most people have no device
 * opted in, and their rows are settled as they are written, so the dispatcher
 * claims and settles only what it can push.
 */
const insertRows = preparedPer<number, RowArgs, { push_state: number }>((count, db, arg) =>
  db
    .insertInto('notification')
    .values(
      Array.from({ length: count }, (_, i) => {
        const a = (field: RowField) => arg(`${field}${i}`) as never;
        return {
          user_id: a('user'),
          kind: a('kind'),
          title: a('title'),
          body: a('body'),
          url: a('url'),
          tag: a('tag'),
          create_time: arg('createTime'),
          created_at: arg('createdAt'),
          read_at: null,
          push_state: sql<number>`case when exists (select 1 from push_subscription p inner join sys_session s on s.session_id = p.session_id
            where p.user_id = ${a('user')} and s.user_id = p.user_id and s.expires_at > ${arg('createdAt')}) then ${sql.lit(PushState.WAITING)} else ${sql.lit(PushState.DONE)} end`,
        };
      }),
    )
    .returning('push_state'),
);

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
  let push = false;
  for (let start = 0; start < items.length; start += CHUNK) {
    const chunk = items.slice(start, start + CHUNK);
    const args: RowArgs = { createTime, createdAt };
    chunk.forEach((n, i) => {
      args[`user${i}`] = n.userId;
      args[`kind${i}`] = n.kind;
      args[`title${i}`] = clip(n.title, 60);
      args[`body${i}`] = clip(n.body, 300);
      args[`url${i}`] = clip(n.url, 300);
      args[`tag${i}`] = clip(n.tag, 100);
    });
    const written = await insertRows(chunk.length)(trx, ctx.dialect, args);
    push ||= written.rows.some((r) => r.push_state === PushState.WAITING);
  }
  afterCommit(trx, () => signalNotified(ctx.db, users, push));
}
