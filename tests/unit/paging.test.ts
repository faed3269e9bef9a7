import { describe, expect, it } from 'vitest';
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import { containsText, rememberedTotal, tableChanged, TOTAL_TTL_MS } from '../../server/core/paging';

describe('rememberedTotal', () => {
  const counter = () => {
    let rows = 10;
    let calls = 0;
    return { add: () => rows++, calls: () => calls, count: async () => (calls++, { total: rows }) };
  };

  it('counts once within the window and again after it', async () => {
    const c = counter();
    expect(await rememberedTotal('t1', c.count, 1000)()).toEqual({ total: 10 });
    c.add();
    expect(await rememberedTotal('t1', c.count, 1000 + TOTAL_TTL_MS - 1)()).toEqual({ total: 10 });
    expect(c.calls()).toBe(1);
    expect(await rememberedTotal('t1', c.count, 1000 + TOTAL_TTL_MS)()).toEqual({ total: 11 });
    expect(c.calls()).toBe(2);
  });

  it('forgets the total when this server writes the table', async () => {
    const c = counter();
    await rememberedTotal('t2', c.count, 0)();
    c.add();
    tableChanged('t2');
    expect(await rememberedTotal('t2', c.count, 1)()).toEqual({ total: 11 });
  });

  it('does not keep a total counted while a write landed', async () => {
    const c = counter();
    const racing = async () => {
      const r = await c.count();
      c.add();
      tableChanged('t3');
      return r;
    };
    expect(await rememberedTotal('t3', racing, 0)()).toEqual({ total: 10 });
    expect(await rememberedTotal('t3', c.count, 1)()).toEqual({ total: 11 });
  });

  it('keeps tables apart', async () => {
    const a = counter();
    await rememberedTotal('t4', a.count, 0)();
    tableChanged('t5');
    await rememberedTotal('t4', a.count, 1)();
    expect(a.calls()).toBe(1);
  });
});

describe('containsText', () => {
  const db = new Kysely<any>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new SqliteIntrospector(k),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });

  it('takes % and _ literally, says which character escapes them, and ignores case', () => {
    const q = containsText('u.account', '5%_a').compile(db);
    expect(q.sql).toBe(`lower("u"."account") like lower(?) escape '\\'`);
    expect(q.parameters).toEqual(['%5\\%\\_a%']);
  });
});
