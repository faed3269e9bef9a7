import { sql, type Kysely } from 'kysely';
import { ErrorCode } from '../../domain/errors';
import type { DB } from '../db/schema';
import { AppError } from './errors';

/**
 * Fixed-window counters in the database (table rate_counter), so that every
 * server on one PostgreSQL adds to the same count. A hit is one atomic
 * upsert: of any number of concurrent hits on one bucket, each reads back
 * its own count, so "the first five" are exactly five.
 */

export interface Window {
  /** Hits in the current window, this one included. */
  count: number;
  /** ms since the epoch when the window ends. */
  resetAt: number;
}

/** Counts one hit on `bucket`; a window that ended starts again at this hit. */
export async function hit(db: Kysely<DB>, bucket: string, windowMs: number, now = Date.now()): Promise<Window> {
  const ended = sql<boolean>`rate_counter.reset_at <= ${now}`;
  const row = await db
    .insertInto('rate_counter')
    .values({ bucket, count: 1, reset_at: now + windowMs })
    .onConflict((oc) =>
      oc.column('bucket').doUpdateSet({
        count: sql<number>`case when ${ended} then 1 else rate_counter.count + 1 end`,
        reset_at: sql<number>`case when ${ended} then ${now + windowMs} else rate_counter.reset_at end`,
      }),
    )
    .returning(['count', 'reset_at'])
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), resetAt: Number(row.reset_at) };
}

/** The bucket's current window without counting a hit; null when none is running. */
export async function peek(db: Kysely<DB>, bucket: string, now = Date.now()): Promise<Window | null> {
  const row = await db.selectFrom('rate_counter').select(['count', 'reset_at']).where('bucket', '=', bucket).executeTakeFirst();
  if (!row || Number(row.reset_at) <= now) return null;
  return { count: Number(row.count), resetAt: Number(row.reset_at) };
}

export async function clear(db: Kysely<DB>, bucket: string): Promise<void> {
  await db.deleteFrom('rate_counter').where('bucket', '=', bucket).execute();
}

/** Removes windows that ended (they count as absent anyway); answers how many. */
export async function purgeRateCounters(db: Kysely<DB>, now = Date.now()): Promise<number> {
  const r = await db.deleteFrom('rate_counter').where('reset_at', '<=', now).executeTakeFirst();
  return Number(r.numDeletedRows ?? 0);
}

export const minutesUntil = (resetAt: number, now = Date.now()) => Math.max(1, Math.ceil((resetAt - now) / 60_000));

/** 429 once a window holds more than `limit` hits, saying how long to wait. */
export async function limitHits(db: Kysely<DB>, bucket: string, limit: number, windowMs: number, what: string, now = Date.now()): Promise<void> {
  const w = await hit(db, bucket, windowMs, now);
  if (w.count > limit) throw new AppError(ErrorCode.RATE_LIMITED, `${what}过于频繁，请${minutesUntil(w.resetAt, now)}分钟后再试`);
}
