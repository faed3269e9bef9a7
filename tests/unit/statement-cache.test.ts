import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { withStatementCache } from '../../server/db/index';

describe('the SQLite statement cache (server/db/index.ts)', () => {
  it('compiles one statement per SQL text and reuses it', () => {
    const db = withStatementCache(new Database(':memory:'), 2);
    db.prepare('create table t (a integer)').run();
    const first = db.prepare('select a from t');
    expect(db.prepare('select a from t')).toBe(first);
    // The least recently used text goes when a third one arrives.
    db.prepare('select 1');
    db.prepare('select 2');
    expect(db.prepare('select a from t')).not.toBe(first);
    db.close();
  });

  it('answers the new shape after a migration changes the schema under a kept statement', () => {
    const db = withStatementCache(new Database(':memory:'));
    db.prepare('create table t (a integer)').run();
    db.prepare('insert into t (a) values (?)').run([1]);
    expect(db.prepare('select * from t').all([])).toEqual([{ a: 1 }]);
    db.prepare('alter table t add column b text').run();
    db.prepare('update t set b = ?').run(['x']);
    expect(db.prepare('select * from t').all([])).toEqual([{ a: 1, b: 'x' }]);
    db.prepare('drop table t').run();
    db.prepare('create table t (c integer)').run();
    db.prepare('insert into t (c) values (?)').run([2]);
    expect(db.prepare('select * from t').all([])).toEqual([{ c: 2 }]);
    db.close();
  });
});
