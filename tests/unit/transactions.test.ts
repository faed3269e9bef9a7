import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { afterCommit, inSavepoint, requestScope, withTransactionHooks } from '../../server/core/transactions';

interface T {
  item: { name: string };
}

describe('transaction hooks', () => {
  let db: Kysely<T>;
  beforeEach(async () => {
    db = withTransactionHooks(new Kysely<T>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) }));
    await sql`create table item (name text not null)`.execute(db);
  });
  afterEach(() => db.destroy());
  const names = async () => (await db.selectFrom('item').select('name').execute()).map((r) => r.name);

  it('runs after-commit work once the change is committed, in order', async () => {
    const seen: string[] = [];
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('item').values({ name: 'a' }).execute();
      afterCommit(trx, () => seen.push('first'));
      afterCommit(trx, () => seen.push('second'));
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual(['first', 'second']);
  });

  it('never runs after-commit work of a rolled-back transaction', async () => {
    const seen: string[] = [];
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('item').values({ name: 'a' }).execute();
        afterCommit(trx, () => seen.push('x'));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await new Promise((r) => setTimeout(r, 0));
    expect(seen).toEqual([]);
    expect(await names()).toEqual([]);
  });

  it('runs the request scope inside each transaction, and its failure rolls the change back', async () => {
    await requestScope({ beforeCommit: [async (trx) => void (await trx.insertInto('item').values({ name: 'marker' }).execute())] }, () =>
      db.transaction().execute((trx) => trx.insertInto('item').values({ name: 'change' }).execute()),
    );
    expect(await names()).toEqual(['change', 'marker']);

    await expect(
      requestScope({ beforeCommit: [async () => Promise.reject(new Error('marker refused'))] }, () => db.transaction().execute((trx) => trx.insertInto('item').values({ name: 'lost' }).execute())),
    ).rejects.toThrow('marker refused');
    expect(await names()).toEqual(['change', 'marker']);
  });

  it('runs work registered outside a transaction soon after', async () => {
    let ran = false;
    afterCommit(db, () => (ran = true));
    await Promise.resolve();
    expect(ran).toBe(true);
  });

  it('keeps the steps of a batch that succeed when one fails in its savepoint, each with its own outcome', async () => {
    const signals: string[] = [];
    const outcomes = await db.transaction().execute(async (trx) => {
      const results: string[] = [];
      for (const name of ['first', 'refused', 'third']) {
        try {
          await inSavepoint(trx, async () => {
            await trx.insertInto('item').values({ name }).execute();
            afterCommit(trx, () => signals.push(name));
            if (name === 'refused') throw new Error(`${name} failed`);
          });
          results.push(`${name}: done`);
        } catch (err) {
          results.push(`${name}: ${(err as Error).message}`);
        }
      }
      return results;
    });
    expect(outcomes).toEqual(['first: done', 'refused: refused failed', 'third: done']);
    // One commit kept both others; the refused step's row and its after-commit signal are gone.
    expect(await names()).toEqual(['first', 'third']);
    expect(signals).toEqual(['first', 'third']);
  });

  it('refuses a second transaction opened inside a unit of work, where SQLite would wait for its own connection', async () => {
    const scope = { beforeCommit: [] as never[], unitOfWork: undefined as unknown };
    await requestScope(scope as never, () =>
      db.transaction().execute(async (trx) => {
        (scope as { unitOfWork: unknown }).unitOfWork = trx;
        await expect(db.transaction().execute(async () => undefined)).rejects.toThrow('inside a unit of work');
      }),
    );
  });
});
