import { sql, type Kysely } from 'kysely';
import type { PushDevice, PushSubscribeBody } from '../../domain/schemas/notifications';
import type { PushStore } from '../../server-push/store';
import type { Dialect } from '../db/index';
import type { DB } from '../db/schema';

/** Web Push's storage (server-push/store.ts) over the park's database: the notification rows are its outbox, push_subscription its devices. */
export function pushStore(db: Kysely<DB>, dialect: Dialect): PushStore {
  return {
    /**
     * One conditional UPDATE: the WHERE is evaluated again on the row each
     * server locks (PostgreSQL re-checks it after a concurrent update; SQLite
     * runs one writer at a time), and SKIP LOCKED hands each PostgreSQL
     * claimer rows no other claimer holds. A row is at-least-once: a server
     * that dies after sending but before settling pushes it again after its
     * lease, and the tag makes the device replace, not repeat, it.
     */
    async claim(nowMs, leaseUntil, batch) {
      let waiting = db.selectFrom('notification').select('notification_id').where('push_state', '=', 0).where('push_lease', '<', nowMs).orderBy('notification_id').limit(batch);
      // Concurrent claimers on PostgreSQL take disjoint rows instead of queueing behind one another's locks and finding nothing.
      if (dialect === 'postgres') waiting = waiting.forUpdate().skipLocked();
      return db
        .updateTable('notification')
        .set({ push_lease: leaseUntil, push_attempts: sql<number>`push_attempts + 1` })
        .where('notification_id', 'in', waiting)
        .where('push_state', '=', 0)
        .where('push_lease', '<', nowMs)
        .returning(['notification_id', 'user_id', 'kind', 'title', 'body', 'url', 'tag', 'created_at', 'push_attempts'])
        .execute();
    },
    async settle(ids, change) {
      if (!ids.length) return;
      await db
        .updateTable('notification')
        .set('state' in change ? { push_state: change.state } : { push_lease: change.lease })
        .where('notification_id', 'in', ids)
        .execute();
    },
    async targets(userIds, nowMs) {
      if (userIds.length === 0) return [];
      return db
        .selectFrom('push_subscription as p')
        .innerJoin('sys_session as s', 's.session_id', 'p.session_id')
        .select(['p.push_subscription_id', 'p.user_id', 'p.endpoint', 'p.p256dh', 'p.auth'])
        .where('p.user_id', 'in', userIds)
        .whereRef('s.user_id', '=', 'p.user_id')
        .where('s.expires_at', '>', nowMs)
        .execute();
    },
    async delivered(t, time) {
      await db.updateTable('push_subscription').set({ last_push_time: time, last_push_error: null }).where('push_subscription_id', '=', t.push_subscription_id).execute();
    },
    async gone(t) {
      await db.deleteFrom('push_subscription').where('push_subscription_id', '=', t.push_subscription_id).where('endpoint', '=', t.endpoint).execute();
    },
    async failed(t, error) {
      await db.updateTable('push_subscription').set({ last_push_error: error }).where('push_subscription_id', '=', t.push_subscription_id).execute();
    },
    async prune(nowMs, before) {
      const removed = await pruneSubscriptions(db, nowMs);
      await db.deleteFrom('notification').where('created_at', '<', before).execute();
      return removed;
    },
    async setting(key) {
      return (await db.selectFrom('sys_setting').select('value').where('key', '=', key).executeTakeFirst())?.value;
    },
    async settingIfAbsent(key, value) {
      await db
        .insertInto('sys_setting')
        .values({ key, value })
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
    },
  };
}

/** Subscriptions whose session ended (sign-out, expiry, password change) can never be pushed to again. */
export async function pruneSubscriptions(db: Kysely<DB>, nowMs: number): Promise<number> {
  const res = await db
    .deleteFrom('push_subscription')
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('sys_session as s').select('s.session_id').whereRef('s.session_id', '=', 'push_subscription.session_id').where('s.expires_at', '>', nowMs))),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

export interface Subscriber {
  userId: number;
  sessionId: number;
}

/**
 * One row per endpoint (a browser profile's push channel). Subscribing again
 * from the same browser, by the same person or by whoever signed in next on
 * that phone, moves the row to the caller and the caller's session: a device
 * shows the notifications of the person signed in on it, and no one else's.
 */
export async function upsertSubscription(db: Kysely<DB>, who: Subscriber, body: PushSubscribeBody, userAgent: string, now: string): Promise<number> {
  const row = await db
    .insertInto('push_subscription')
    .values({
      user_id: who.userId,
      session_id: who.sessionId,
      endpoint: body.endpoint,
      p256dh: body.keys.p256dh,
      auth: body.keys.auth,
      device_label: body.device_label,
      user_agent: userAgent.slice(0, 300),
      create_time: now,
      update_time: now,
      last_push_time: null,
      last_push_error: null,
    })
    .onConflict((oc) =>
      oc.column('endpoint').doUpdateSet({
        user_id: who.userId,
        session_id: who.sessionId,
        p256dh: body.keys.p256dh,
        auth: body.keys.auth,
        device_label: body.device_label,
        user_agent: userAgent.slice(0, 300),
        update_time: now,
        last_push_error: null,
      }),
    )
    .returning('push_subscription_id')
    .executeTakeFirstOrThrow();
  return row.push_subscription_id;
}

/** Removes one of the caller's devices; another user's endpoint or id removes nothing. */
export async function removeSubscription(db: Kysely<DB>, userId: number, by: { endpoint?: string; push_subscription_id?: number }): Promise<number> {
  let q = db.deleteFrom('push_subscription').where('user_id', '=', userId);
  if (by.endpoint) q = q.where('endpoint', '=', by.endpoint);
  if (by.push_subscription_id !== undefined) q = q.where('push_subscription_id', '=', by.push_subscription_id);
  const res = await q.executeTakeFirst();
  return Number(res.numDeletedRows);
}

export async function listSubscriptions(db: Kysely<DB>, who: Subscriber): Promise<PushDevice[]> {
  const rows = await db
    .selectFrom('push_subscription')
    .select(['push_subscription_id', 'endpoint', 'device_label', 'session_id', 'create_time', 'update_time', 'last_push_time', 'last_push_error'])
    .where('user_id', '=', who.userId)
    .orderBy('push_subscription_id')
    .execute();
  return rows.map(({ session_id, ...r }) => ({ ...r, current: session_id === who.sessionId }));
}
