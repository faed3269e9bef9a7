import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepared, preparedIn } from '../../server/db/prepared';

interface T {
  item: { id: number; owner: number; name: string };
}

/** The statements are written against the project's schema; these run on a table of their own. */
const own = (k: unknown) => k as Kysely<T>;

describe('prepared statements', () => {
  let db: Kysely<T>;
  const issued: string[] = [];
  beforeEach(async () => {
    issued.length = 0;
    db = new Kysely<T>({ dialect: new SqliteDialect({ database: new Database(':memory:') }), log: (e) => void issued.push(e.query.sql) });
    await sql`create table item (id integer primary key, owner integer not null, name text not null)`.execute(db);
    await db
      .insertInto('item')
      .values(Array.from({ length: 120 }, (_, i) => ({ id: i + 1, owner: i % 2, name: `n${i + 1}` })))
      .execute();
    issued.length = 0;
  });
  afterEach(() => db.destroy());

  it('runs one compiled statement with each call’s values, a page’s limit and offset among them', async () => {
    const page = prepared<{ owner: number; limit: number; offset: number }, { id: number }>((k, arg) =>
      own(k).selectFrom('item').select('id').where('owner', '=', arg('owner')).orderBy('id', 'desc').limit(arg('limit')).offset(arg('offset')),
    );
    const ids = async (owner: number, limit: number, offset: number) => (await page(db, 'sqlite', { owner, limit, offset })).rows.map((r) => r.id);
    expect(await ids(1, 3, 0)).toEqual([120, 118, 116]);
    expect(await ids(0, 2, 1)).toEqual([117, 115]);
    expect(new Set(issued).size).toBe(1);
    expect(() => page(db, 'sqlite', { owner: 1, limit: 1 } as never)).toThrow("no value for 'offset'");
  });

  it('pads a list to a few lengths with its last value, and answers each row once', async () => {
    const byIds = preparedIn<string, { owner: number }, { id: number }>((_key, k, arg, list) =>
      own(k).selectFrom('item').select('id').where('id', 'in', list).where('owner', '=', arg('owner')).orderBy('id'),
    );
    const read = async (ids: number[], owner = 1) => (await byIds('item', ids)(db, 'sqlite', { owner })).rows.map((r) => r.id);
    expect(await read([4])).toEqual([4]);
    expect(await read([2, 8, 6])).toEqual([2, 6, 8]);
    expect(await read([3, 2, 5], 0)).toEqual([3, 5]);
    expect(await read(Array.from({ length: 10 }, (_, i) => 2 * i + 2))).toHaveLength(10);
    expect(await read(Array.from({ length: 11 }, (_, i) => 2 * i + 2))).toHaveLength(11);
    // Lengths 3 and 10 share the statement for ten, 11 takes the one for twenty; past the longest, the list's own length.
    expect(new Set(issued).size).toBe(3);
    expect(await read(Array.from({ length: 110 }, (_, i) => i + 1))).toHaveLength(55);
    expect(issued.at(-1)!.match(/\?/g)).toHaveLength(111);
    expect(() => byIds('item', [])).toThrow('an empty list');
  });
});
