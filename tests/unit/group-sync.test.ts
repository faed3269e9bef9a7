import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../server/db/index';
import { coalesce } from '../../server/db/group-sync';
import { afterCommit } from '../../server/core/transactions';

/** A flush the test finishes by hand, recording when each one starts. */
function manualFlush() {
  const started: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  const flush = () => new Promise<void>((resolve, reject) => started.push({ resolve, reject }));
  return { flush, started };
}

const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
};

describe('group commit: callers coalesce onto flushes (server/db/group-sync.ts)', () => {
  it('a lone caller starts a flush and resolves with it', async () => {
    const { flush, started } = manualFlush();
    const durable = coalesce(flush);
    const p = durable();
    expect(started).toHaveLength(1);
    expect(await settled(p)).toBe(false);
    started[0]!.resolve();
    await p;
  });

  it('callers that arrive during a flush wait for the next one, and all of them share it', async () => {
    const { flush, started } = manualFlush();
    const durable = coalesce(flush);
    const first = durable();
    const later = Array.from({ length: 10 }, () => durable());
    // The running flush may have begun before their writes: they must not ride on it.
    started[0]!.resolve();
    await first;
    expect(await settled(Promise.all(later))).toBe(false);
    expect(started).toHaveLength(2);
    started[1]!.resolve();
    await Promise.all(later);
    expect(started).toHaveLength(2);
  });

  it('a failed flush fails its own callers only; the next caller starts afresh', async () => {
    const { flush, started } = manualFlush();
    const durable = coalesce(flush);
    const first = durable();
    started[0]!.reject(new Error('EIO'));
    await expect(first).rejects.toThrow('EIO');
    const next = durable();
    expect(started).toHaveLength(2);
    started[1]!.resolve();
    await next;
  });

  it('given the commit count, a caller with no commit since the last sync began waits for nothing', async () => {
    const { flush, started } = manualFlush();
    let commits = 0;
    const durable = coalesce(flush, () => commits);
    commits = 1;
    const first = durable();
    expect(started).toHaveLength(1);
    // Nothing committed since that flush began: it covers this caller too, and no second flush is queued for it.
    const same = durable();
    started[0]!.resolve();
    await Promise.all([first, same]);
    expect(started).toHaveLength(1);
    expect(await settled(durable())).toBe(true);
    expect(started).toHaveLength(1);
    // A commit after it: the next caller gets a flush of its own.
    commits = 2;
    const next = durable();
    expect(started).toHaveLength(2);
    expect(await settled(next)).toBe(false);
    // A failed flush syncs nothing: the same count asks again.
    started[1]!.reject(new Error('EIO'));
    await expect(next).rejects.toThrow('EIO');
    void durable();
    expect(started).toHaveLength(3);
  });
});

describe('group commit on the embedded database', () => {
  const dirs: string[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('runs at synchronous=NORMAL and resolves a transaction, and its after-commit work, only after a WAL sync that began after its COMMIT', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'park-group-sync-'));
    dirs.push(dir);
    const database = openDatabase({ dataDir: dir });
    const { db } = database;
    expect((await sql<{ synchronous: number }>`pragma synchronous`.execute(db)).rows[0]!.synchronous).toBe(1);
    await sql`create table t (a integer)`.execute(db);

    const events: string[] = [];
    const real = fs.fdatasync;
    vi.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
      events.push('sync');
      real(fd, cb);
    }) as typeof fs.fdatasync);

    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('t' as never)
        .values({ a: 1 } as never)
        .execute();
      afterCommit(trx, () => events.push('after-commit'));
      events.push('commit');
    });
    events.push('resolved');
    expect(events).toEqual(['commit', 'sync', 'after-commit', 'resolved']);

    // Eight concurrent transactions share far fewer than eight syncs.
    events.length = 0;
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        db.transaction().execute((trx) =>
          trx
            .insertInto('t' as never)
            .values({ a: i } as never)
            .execute(),
        ),
      ),
    );
    expect(events.filter((e) => e === 'sync').length).toBeLessThanOrEqual(3);
    await database.close();
  });

  it('reads through a 64 MiB page cache and a memory map of the file (issue 28)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'park-group-sync-'));
    dirs.push(dir);
    const database = openDatabase({ dataDir: dir });
    try {
      expect((await sql<{ cache_size: number }>`pragma cache_size`.execute(database.db)).rows[0]!.cache_size).toBe(-65536);
      expect((await sql<{ mmap_size: number }>`pragma mmap_size`.execute(database.db)).rows[0]!.mmap_size).toBe(1073741824);
    } finally {
      await database.close();
    }
  });

  it('syncs after every kind of commit, and not for a call that only read', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'park-group-sync-'));
    dirs.push(dir);
    const database = openDatabase({ dataDir: dir });
    const { db } = database;
    await sql`create table t (a integer)`.execute(db);
    await database.durable();
    let syncs = 0;
    const real = fs.fdatasync;
    vi.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
      syncs++;
      real(fd, cb);
    }) as typeof fs.fdatasync);
    const syncsOf = async (work: () => Promise<unknown>) => {
      const before = syncs;
      await work();
      await database.durable();
      return syncs - before;
    };
    const t = () => db as unknown as Kysely<{ t: { a: number } }>;

    expect(await syncsOf(() => t().selectFrom('t').selectAll().execute())).toBe(0);
    expect(await syncsOf(() => t().insertInto('t').values({ a: 1 }).execute())).toBe(1);
    expect(await syncsOf(() => t().insertInto('t').values({ a: 2 }).returning('a').execute())).toBe(1);
    expect(await syncsOf(() => t().selectFrom('t').selectAll().execute())).toBe(0);
    // A transaction's own promise syncs; the call's sync after it has nothing left to do.
    expect(
      await syncsOf(() =>
        t()
          .transaction()
          .execute((trx) => trx.updateTable('t').set({ a: 3 }).execute()),
      ),
    ).toBe(1);
    // A read-only transaction ends with a COMMIT too: one sync too many is allowed, one too few never.
    expect(
      await syncsOf(() =>
        t()
          .transaction()
          .execute((trx) => trx.selectFrom('t').selectAll().execute()),
      ),
    ).toBeLessThanOrEqual(1);
    expect(await syncsOf(() => t().selectFrom('t').selectAll().execute())).toBe(0);
    await database.close();
  });
});
