import os from 'node:os';
import type { Kysely } from 'kysely';
import { RETENTION_CLASSES, retentionClasses, retentionCutoff, type RetentionClass, type RetentionTrigger } from '../../../domain/retention';
import type { RetentionClassProof, RetentionDaysInput, RetentionPreviewAnswer, RetentionRunProof } from '../../../domain/schemas/retention';
import { formatInZone } from '../../../domain/time';
import type { AppContext } from '../../core/context';
import { tableChanged } from '../../core/paging';
import { leaseHolderText, withLease } from '../../core/lease';
import { fileStoreOf } from '../../core/storage';
import type { DB } from '../../db/schema';
import { dropZip } from '../person-import/job';
import { countDue, oldestKept, retentionSources, type BatchResult } from './classes';
import { countRemoved } from './metrics';
import { readPolicy } from './policy';

/**
 * A retention run: every class of domain/retention.ts, each source of it in
 * batches of at most MAX_BATCH rows, one transaction a batch, with a pause
 * between batches so that the gate's writes (SQLite has one writer) and the
 * calls are never held up for long. A batch's rows, its proof counts and the
 * release of its files commit together; the files leave the store only after
 * that commit, so a rolled-back batch never loses a file a row still names.
 *
 * One run at a time over the database: the RETENTION_LEASE lease
 * (core/lease.ts).
 */

/** A transaction takes at most this many rows. */
export const MAX_BATCH = 500;
/** The pause between two batches, in which the gate's and the calls' writes get the database. */
export const BATCH_PAUSE_MS = 100;
/**
 * A batch should hold the database no longer than this (SQLite has one
 * writer: a gate's call waits out a batch): past it the next batch takes half
 * the rows, well under it twice as many, up to the run's size.
 */
const BATCH_TARGET_MS = 40;
/** After a batch the database is the others' for at least this many times that batch's time: a run takes at most a fifth of it. */
const YIELD_FACTOR = 4;
/** The lease a run holds while it goes. */
export const RETENTION_LEASE = 'retention-running';

/** Another run holds the lease: the API answers 409 with the message. */
export class RetentionBusyError extends Error {}
/** The server is stopping: the run ends between two batches, its proof saying so. */
class RetentionStopped extends Error {}

export interface RunOptions {
  kind: RetentionTrigger;
  /** Who started a manual run; null for the nightly one. */
  user?: { id: number; name: string } | null;
  /** Epoch ms the cut-offs are taken from (the job's and the tests' clock); now by default. */
  now?: number;
  batchSize?: number;
  pauseMs?: number;
  /** Asked between batches: true ends the run there (server shutdown). */
  shouldStop?: () => boolean;
}

/** Every write of the lease is a transaction of its own: on SQLite it then waits for the write lock without blocking the event loop. */
const inTransaction = <T>(db: Kysely<DB>, work: (trx: Kysely<DB>) => Promise<T>): Promise<T> => db.transaction().execute(work);

const busyError = async (ctx: AppContext) => new RetentionBusyError(`已有数据清理正在进行${await leaseHolderText(ctx.db, RETENTION_LEASE, ctx.config.tz)}，请等它完成后再试`);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Removes what a committed batch freed: stored files, then their file_object rows (only while still unreferenced); answers how many went. */
export async function removeFreed(ctx: AppContext, freed: BatchResult): Promise<number> {
  const store = fileStoreOf(ctx);
  let removed = 0;
  for (const name of freed.files) {
    try {
      await store.remove(name);
      await inTransaction(ctx.db, (trx) =>
        trx
          .deleteFrom('file_object')
          .where('name', '=', name)
          .where((eb) => eb.not(eb.exists(eb.selectFrom('file_ref').select('file_ref.file_name').where('file_ref.file_name', '=', name))))
          .execute(),
      );
      removed++;
    } catch {
      // Left for the next look: a device file unreferenced for a day goes with the hourly cleanup (jobs/cleanup.ts).
    }
  }
  for (const zip of freed.zips) {
    await dropZip(ctx, zip);
    removed++;
  }
  return removed;
}

/**
 * One run now: takes the lease, writes the run's row, and each class's rows past its cut-off in batches, keeping
 * the proof as it goes. Answers the proof; throws RetentionBusyError while another run holds the lease.
 */
export async function runRetention(ctx: AppContext, opts: RunOptions): Promise<RetentionRunProof> {
  const limit = Math.min(MAX_BATCH, Math.max(1, opts.batchSize ?? MAX_BATCH));
  const pauseMs = opts.pauseMs ?? BATCH_PAUSE_MS;
  return withLease(
    ctx.db,
    RETENTION_LEASE,
    () => busyError(ctx),
    async () => {
      const stamp = formatInZone(opts.now ?? ctx.now(), ctx.config.tz);
      const policy = await readPolicy(ctx.db);
      const runId = await inTransaction(ctx.db, async (trx) => {
        const row = await trx
          .insertInto('retention_run')
          .values({ kind: opts.kind, started_at: stamp, user_id: opts.user?.id ?? null, user_name: opts.user?.name ?? '', host: os.hostname(), pid: process.pid })
          .returning('id')
          .executeTakeFirstOrThrow();
        await trx
          .insertInto('retention_run_class')
          .values(RETENTION_CLASSES.map((key) => ({ run_id: row.id, class_key: key, days: policy[key].days, cutoff: retentionCutoff(stamp, policy[key].days) })))
          .execute();
        return row.id;
      });
      let error: string | null = null;
      try {
        for (const key of RETENTION_CLASSES) await runClass(ctx, runId, key, retentionCutoff(stamp, policy[key].days), stamp, limit, pauseMs, opts.shouldStop);
      } catch (err) {
        error = err instanceof RetentionStopped ? '服务器停止，清理中断；已完成的批次已记录，下次清理继续' : `清理失败：${(err as Error).message}`;
        throw err;
      } finally {
        const end = Date.now();
        await inTransaction(ctx.db, (trx) =>
          trx
            .updateTable('retention_run')
            .set({ finished_at: formatInZone(end, ctx.config.tz), finished_ms: end, error: error?.slice(0, 2000) ?? null })
            .where('id', '=', runId)
            .execute(),
        ).catch(() => undefined);
      }
      return (await runProof(ctx.db, runId))!;
    },
  );
}

async function runClass(ctx: AppContext, runId: number, key: RetentionClass, cutoff: string, stamp: string, limit: number, pauseMs: number, shouldStop?: () => boolean) {
  for (const source of retentionSources[key]) {
    let size = limit;
    for (;;) {
      if (shouldStop?.()) throw new RetentionStopped();
      const started = performance.now();
      const batch = await inTransaction(ctx.db, async (trx) => {
        const taken = await source.take(trx, { cutoff, stamp, limit: size, runId });
        if (taken.rows) {
          await trx
            .updateTable('retention_run_class')
            .set((eb) => ({ row_count: eb('row_count', '+', taken.rows) }))
            .where('run_id', '=', runId)
            .where('class_key', '=', key)
            .execute();
        }
        return taken;
      });
      const took = performance.now() - started;
      if (batch.rows) {
        tableChanged(source.table);
        countRemoved(ctx, key, batch.rows);
        const files = await removeFreed(ctx, batch);
        if (files) {
          await inTransaction(ctx.db, (trx) =>
            trx
              .updateTable('retention_run_class')
              .set((eb) => ({ file_count: eb('file_count', '+', files) }))
              .where('run_id', '=', runId)
              .where('class_key', '=', key)
              .execute(),
          );
        }
      }
      if (batch.rows < size) break;
      if (took > BATCH_TARGET_MS) size = Math.max(Math.min(limit, 50), Math.floor(size / 2));
      else if (took < BATCH_TARGET_MS / 2) size = Math.min(limit, size * 2);
      await sleep(pauseMs && Math.max(pauseMs, took * YIELD_FACTOR));
    }
  }
  const oldest = await oldestKept(ctx.db, key, null);
  await inTransaction(ctx.db, (trx) => trx.updateTable('retention_run_class').set({ oldest_kept: oldest }).where('run_id', '=', runId).where('class_key', '=', key).execute());
}

/** A run's proof as the calls answer it; null when there is no such run. */
export async function runProof(db: Kysely<DB>, runId: number): Promise<RetentionRunProof | null> {
  const run = await db.selectFrom('retention_run').selectAll().where('id', '=', runId).executeTakeFirst();
  if (!run) return null;
  const rows = await db.selectFrom('retention_run_class').selectAll().where('run_id', '=', runId).execute();
  const byKey = new Map(rows.map((r) => [r.class_key, r]));
  const classes: RetentionClassProof[] = RETENTION_CLASSES.filter((k) => byKey.has(k)).map((key) => {
    const r = byKey.get(key)!;
    return { key, label: retentionClasses[key].label, days: r.days, cutoff: r.cutoff, rows: Number(r.row_count), files: Number(r.file_count), oldest_kept: r.oldest_kept };
  });
  return {
    id: run.id,
    trigger: run.kind as RetentionTrigger,
    started_at: run.started_at,
    finished_at: run.finished_at,
    user_name: run.user_name || null,
    host: run.host,
    error: run.error,
    classes,
  };
}

/** The latest run's proof, or null before the first. */
export async function lastRunProof(db: Kysely<DB>): Promise<RetentionRunProof | null> {
  const last = await db.selectFrom('retention_run').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return last ? runProof(db, last.id) : null;
}

/** What a run would take now: per class, with the saved days or those given, the rows past the cut-off and the oldest that would stay. */
export async function previewRetention(ctx: AppContext, days: RetentionDaysInput = {}): Promise<RetentionPreviewAnswer> {
  const at = ctx.time();
  const policy = await readPolicy(ctx.db);
  const classes: RetentionClassProof[] = [];
  for (const key of RETENTION_CLASSES) {
    const d = typeof days[key] === 'number' ? days[key] : policy[key].days;
    const cutoff = retentionCutoff(at, d);
    classes.push({ key, label: retentionClasses[key].label, days: d, cutoff, rows: await countDue(ctx.db, key, cutoff), files: 0, oldest_kept: await oldestKept(ctx.db, key, cutoff) });
  }
  return { at, classes };
}
