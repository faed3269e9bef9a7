import { sql, type Kysely, type Selectable } from 'kysely';
import { NotificationKind, type PushPayload } from '../domain/notifications';
import type { Dialect } from '../server/db/index';
import type { DB, NotificationTable } from '../server/db/schema';
import { sendPush, type PushOptions } from './send';
import { liveSubscriptions, pruneSubscriptions } from './subscriptions';
import type { VapidKeys } from './vapid';

/**
 * Urgency and lifetime per kind: a new task or an alarm should wake a phone
 * (high); a decision can wait for the next time the phone is awake anyway
 * (normal). After its TTL a message is dropped by the push service, and rows
 * older than that are not pushed at all (the centre still has them).
 */
export const deliveryOf: Record<string, PushOptions> = {
  [NotificationKind.TASK_ASSIGNED]: { urgency: 'high', ttl: 24 * 3600 },
  [NotificationKind.APPLICATION_DECIDED]: { urgency: 'normal', ttl: 3 * 24 * 3600 },
  [NotificationKind.STRANDED_ALARM]: { urgency: 'high', ttl: 4 * 3600 },
};
const fallback: PushOptions = { urgency: 'normal', ttl: 24 * 3600 };

export const PushState = { WAITING: 0, DONE: 1, GAVE_UP: 2 } as const;

const BATCH = 50;
/** How long a claim holds; a server that dies mid-batch loses its rows to the next sweep after this. */
const LEASE_MS = 2 * 60_000;
const MAX_ATTEMPTS = 4;
const retryDelayMs = (attempt: number) => 30_000 * 2 ** (attempt - 1);
const SWEEP_MS = 30_000;
const PRUNE_EVERY_MS = 3600_000;
/** The centre keeps half a year; older rows go in the hourly prune. */
const KEEP_MS = 183 * 24 * 3600_000;

type Row = Selectable<NotificationTable>;

export interface Dispatcher {
  /** Pushes whatever waits; concurrent kicks coalesce into one more pass. */
  kick(): void;
  /** Resolves when no pass is running (tests, shutdown). */
  idle(): Promise<void>;
  stop(): void;
}

export interface DispatchDeps {
  db: Kysely<DB>;
  dialect: Dialect;
  keys: VapidKeys;
  now(): number;
  time(): string;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/**
 * Claims unsent rows with one conditional UPDATE, so that several servers on
 * one database never push the same row at once: the WHERE is evaluated again
 * on the row each server locks (PostgreSQL re-checks it after a concurrent
 * update; SQLite runs one writer at a time), and SKIP LOCKED hands each
 * PostgreSQL claimer rows no other claimer holds. A row is at-least-once: a
 * server that dies after sending but before marking pushes it again after its
 * lease, and the tag makes the device replace, not repeat, the notification.
 */
export async function claimBatch(db: Kysely<DB>, dialect: Dialect, nowMs: number, batch = BATCH): Promise<Row[]> {
  let waiting = db.selectFrom('notification').select('notification_id').where('push_state', '=', PushState.WAITING).where('push_lease', '<', nowMs).orderBy('notification_id').limit(batch);
  // Concurrent claimers on PostgreSQL take disjoint rows instead of queueing behind one another's locks and finding nothing.
  if (dialect === 'postgres') waiting = waiting.forUpdate().skipLocked();
  return db
    .updateTable('notification')
    .set({ push_lease: nowMs + LEASE_MS, push_attempts: sql<number>`push_attempts + 1` })
    .where('notification_id', 'in', waiting)
    .where('push_state', '=', PushState.WAITING)
    .where('push_lease', '<', nowMs)
    .returningAll()
    .execute();
}

export const payloadOf = (r: Pick<Row, 'title' | 'body' | 'url' | 'tag'>): PushPayload => ({ title: r.title, body: r.body, url: r.url, tag: r.tag });

/** Pushes one claimed batch; answers how many rows it handled. */
export async function pushBatch(deps: DispatchDeps, rows: Row[]): Promise<number> {
  const { db, keys } = deps;
  const now = deps.now();
  const subs = await liveSubscriptions(db, [...new Set(rows.map((r) => r.user_id))], now);
  // Most rows have nobody to push to (no device opted in, or too old to matter): one statement settles them all.
  const nothingToSend = rows.filter((r) => !subs.some((s) => s.user_id === r.user_id) || now - r.created_at > (deliveryOf[r.kind] ?? fallback).ttl * 1000);
  if (nothingToSend.length) {
    await db
      .updateTable('notification')
      .set({ push_state: PushState.DONE })
      .where(
        'notification_id',
        'in',
        nothingToSend.map((r) => r.notification_id),
      )
      .execute();
  }
  for (const row of rows) {
    if (nothingToSend.includes(row)) continue;
    const opts = deliveryOf[row.kind] ?? fallback;
    const targets = subs.filter((s) => s.user_id === row.user_id);
    const results = await Promise.all(targets.map((t) => sendPush(keys, t, payloadOf(row), { ...opts, topic: row.tag })));
    let retry = false;
    for (let i = 0; i < targets.length; i++) {
      const t = targets[i]!;
      const r = results[i]!;
      if (r.outcome === 'sent') {
        await db.updateTable('push_subscription').set({ last_push_time: deps.time(), last_push_error: null }).where('push_subscription_id', '=', t.push_subscription_id).execute();
      } else if (r.outcome === 'gone') {
        // Only the endpoint that answered goes: the row may have been re-subscribed with fresh keys meanwhile.
        await db.deleteFrom('push_subscription').where('push_subscription_id', '=', t.push_subscription_id).where('endpoint', '=', t.endpoint).execute();
      } else {
        retry ||= r.outcome === 'retry';
        deps.log.warn({ push: { subscription: t.push_subscription_id, status: r.status } }, `web push failed: ${r.error}`);
        await db
          .updateTable('push_subscription')
          .set({ last_push_error: r.error.slice(0, 200) })
          .where('push_subscription_id', '=', t.push_subscription_id)
          .execute();
      }
    }
    // A retry goes to every device again: the ones that already got it replace it in place (same tag).
    const update = retry && row.push_attempts < MAX_ATTEMPTS ? { push_lease: deps.now() + retryDelayMs(row.push_attempts) } : { push_state: retry ? PushState.GAVE_UP : PushState.DONE };
    await db.updateTable('notification').set(update).where('notification_id', '=', row.notification_id).execute();
  }
  return rows.length;
}

/**
 * One per server process. Kicked after each commit that adds notifications
 * here; a sweep every 30 s picks up rows that another server committed but
 * never pushed (it crashed) and rows whose retry time has come.
 */
export function startDispatcher(deps: DispatchDeps): Dispatcher {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  let lastPrune = 0;

  async function pass() {
    do {
      again = false;
      for (;;) {
        if (stopped) return;
        const rows = await claimBatch(deps.db, deps.dialect, deps.now());
        if (rows.length === 0) break;
        await pushBatch(deps, rows);
      }
    } while (again && !stopped);
    if (deps.now() - lastPrune > PRUNE_EVERY_MS) {
      lastPrune = deps.now();
      await pruneSubscriptions(deps.db, deps.now());
      await deps.db
        .deleteFrom('notification')
        .where('created_at', '<', deps.now() - KEEP_MS)
        .execute();
    }
  }

  function kick() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pass()
      .catch((err) => deps.log.error({ err }, 'push dispatch failed'))
      .finally(() => {
        running = null;
      });
  }

  const timer = setInterval(kick, SWEEP_MS);
  timer.unref();
  kick();
  return {
    kick,
    idle: async () => {
      while (running) await running;
    },
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
