import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Kysely } from 'kysely';
import { formatInZone } from '../../domain/time';
import type { DB } from '../db/schema';

/**
 * A lease over the database: a row of backup_claim under its key, held by
 * one holder at a time across every server that shares the database, and
 * lost by a holder that died once LEASE_MS pass without a renewal. A backup
 * and a retention run each hold their own while they work.
 */

/** A lease lasts this long unless renewed; withLease renews it every RENEW_MS. */
export const LEASE_MS = 60_000;
const RENEW_MS = 15_000;

/** host:pid:random, so a busy message can say which server and process holds it. */
export const holderName = () => `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

/**
 * Every write of a lease is a transaction of its own: on SQLite a transaction waits for another connection's write
 * lock without blocking the event loop (db/index.ts), where a bare statement would sleep the thread in SQLite's busy handler.
 */
const inTransaction = <T>(db: Kysely<DB>, work: (trx: Kysely<DB>) => Promise<T>): Promise<T> => db.transaction().execute(work);

/** Takes the lease unless someone holds one that has not expired: one conditional upsert, so of two servers at once exactly one gets it. */
export async function acquireLease(db: Kysely<DB>, key: string, holder: string, now = Date.now()): Promise<boolean> {
  const row = await inTransaction(db, (trx) =>
    trx
      .insertInto('backup_claim')
      .values({ claim_key: key, holder, claimed_at: now, expires_at: now + LEASE_MS })
      .onConflict((oc) =>
        oc
          .column('claim_key')
          .doUpdateSet({ holder, claimed_at: now, expires_at: now + LEASE_MS })
          .where('backup_claim.expires_at', '<=', now),
      )
      .returning('holder')
      .executeTakeFirst(),
  );
  return row?.holder === holder;
}

export async function releaseLease(db: Kysely<DB>, key: string, holder: string): Promise<void> {
  await inTransaction(db, (trx) => trx.deleteFrom('backup_claim').where('claim_key', '=', key).where('holder', '=', holder).execute());
}

/** Who holds the lease and since when, for a busy message: （host 进程 pid 于 time 开始）, or '' when nobody does. */
export async function leaseHolderText(db: Kysely<DB>, key: string, tz: string): Promise<string> {
  const held = await db.selectFrom('backup_claim').select(['holder', 'claimed_at']).where('claim_key', '=', key).executeTakeFirst();
  return held ? `（${held.holder.split(':').slice(0, 2).join(' 进程 ')} 于 ${formatInZone(held.claimed_at, tz)} 开始）` : '';
}

/** Runs `work` holding the lease, renewed while it runs; when another holds it, throws what `busy` makes. */
export async function withLease<T>(db: Kysely<DB>, key: string, busy: () => Promise<Error>, work: () => Promise<T>): Promise<T> {
  const holder = holderName();
  if (!(await acquireLease(db, key, holder))) throw await busy();
  const renew = setInterval(() => {
    const now = Date.now();
    inTransaction(db, (trx) =>
      trx
        .updateTable('backup_claim')
        .set({ expires_at: now + LEASE_MS })
        .where('claim_key', '=', key)
        .where('holder', '=', holder)
        .execute(),
    ).catch(() => undefined);
  }, RENEW_MS);
  renew.unref();
  try {
    return await work();
  } finally {
    clearInterval(renew);
    await releaseLease(db, key, holder).catch(() => undefined);
  }
}
