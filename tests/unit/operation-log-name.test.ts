import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { expect, it } from 'vitest';
import { operationLogName } from '../../server/db/migrations/019-operation-log-name';

it('migration 019 gives old operation log rows the name their user has now, and rows without a user none', async () => {
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
  try {
    await sql`create table sys_user (user_id integer primary key, user_name varchar(30) not null)`.execute(db);
    await sql`create table sys_operation_log (id integer primary key, user_id integer, account varchar(50) not null)`.execute(db);
    await sql`insert into sys_user values (1, '王芳'), (2, '李强')`.execute(db);
    await sql`insert into sys_operation_log (user_id, account) values (1, 'contact'), (2, 'reviewer'), (null, ''), (99, 'gone')`.execute(db);
    await operationLogName().up(db);
    const rows = await db.selectFrom('sys_operation_log').select(['account', 'user_name']).orderBy('id').execute();
    expect(rows).toEqual([
      { account: 'contact', user_name: '王芳' },
      { account: 'reviewer', user_name: '李强' },
      { account: '', user_name: '' },
      { account: 'gone', user_name: '' },
    ]);
    // Later rows that name nobody get the default, not an error.
    await sql`insert into sys_operation_log (user_id, account) values (null, '')`.execute(db);
    expect((await db.selectFrom('sys_operation_log').select('user_name').orderBy('id', 'desc').executeTakeFirstOrThrow()).user_name).toBe('');
  } finally {
    await db.destroy();
  }
});
