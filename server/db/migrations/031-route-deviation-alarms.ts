import { sql, type Kysely } from 'kysely';
import { AlarmLevel } from '../../../domain/stranded-kinds';
import { formatInZone } from '../../../domain/time';
import type { Dialect } from '../index';

const DEVIATION = AlarmLevel.ROUTE_DEVIATION;
const MENU = { code: 'menu:routeDeviation', name: '偏离路线告警', route: '/security/route-deviation', icon: 'EnvironmentOutline', under: 'dir:security', via: 'strandedManagementCar:list' };

/**
 * 偏离路线告警 (docs/decisions.md): a route deviation is a row of
 * stranded_alarm (kind 'car', level_type 4), one per visit, so that open
 * alarms everywhere are that table's unhandled rows.
 *
 * - presence_id becomes nullable and is unique only among the stay alarms: a
 *   deviation belongs to the visit's stay where there is one (its overstay
 *   alarm shares that stay), and to none when the crossing opened no stay (a
 *   refused entry, an exit whose entry was never recorded).
 * - One deviation alarm per visit holds in the database (a partial unique
 *   index on application_id), whichever servers ingest its crossings at once.
 * - crossings: the crossings off the route, each a JSON object, joined by
 *   commas (appended by one UPDATE, so concurrent appends lose none).
 * - Databases seeded before: the roles that read vehicle alarms get the new
 *   menu (the seed binds it on a fresh one, after the permission tree is written).
 */
export function routeDeviationAlarms(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      if (dialect === 'postgres') {
        await sql`alter table stranded_alarm alter column presence_id drop not null`.execute(db);
        const unique = await sql<{ conname: string }>`
          select c.conname from pg_constraint c
          join pg_attribute a on a.attrelid = c.conrelid and a.attnum = any (c.conkey)
          where c.conrelid = 'stranded_alarm'::regclass and c.contype = 'u' and a.attname = 'presence_id' and cardinality(c.conkey) = 1`.execute(db);
        for (const r of unique.rows) await sql`alter table stranded_alarm drop constraint ${sql.id(r.conname)}`.execute(db);
      } else {
        await rebuildSqliteWithoutStayUnique(db);
      }
      await db.schema
        .alterTable('stranded_alarm')
        .addColumn('crossings', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      // A stay's alarms (its exit is theirs, presence.ts endStay), and at most one stay alarm per stay, as before.
      await db.schema.createIndex('stranded_alarm_presence').on('stranded_alarm').column('presence_id').execute();
      await db.schema.createIndex('stranded_alarm_stay_once').on('stranded_alarm').column('presence_id').unique().where(sql.ref('level_type'), '!=', DEVIATION).execute();
      await db.schema.createIndex('stranded_alarm_visit_deviation').on('stranded_alarm').column('application_id').unique().where(sql.ref('level_type'), '=', DEVIATION).execute();
      await bindMenu(db);
    },
  };
}

/**
 * SQLite cannot drop a column's NOT NULL or UNIQUE: the table is rebuilt as
 * its documentation says (a new table from the stored definition with only
 * that column changed, the rows copied, the old one dropped, the new one
 * renamed), keeping every index and trigger any migration added and the
 * AUTOINCREMENT counter. One transaction, so a failure leaves the old table.
 */
async function rebuildSqliteWithoutStayUnique(db: Kysely<any>) {
  await db.transaction().execute(async (trx) => {
    const table = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'stranded_alarm'`.execute(trx);
    const ddl = table.rows[0]?.sql ?? '';
    const column = '"presence_id" integer not null unique';
    if (!ddl.includes(column)) throw new Error(`stranded_alarm 的表定义与预期不符，无法迁移：${ddl}`);
    const rebuilt = ddl.replace('CREATE TABLE "stranded_alarm"', 'CREATE TABLE "stranded_alarm_rebuilt"').replace(column, '"presence_id" integer');
    // Indexes and triggers other than the column's own automatic index, to be made again on the new table.
    const extras = (await sql<{ sql: string }>`select sql from sqlite_master where tbl_name = 'stranded_alarm' and type in ('index', 'trigger') and sql is not null`.execute(trx)).rows;
    const sequence = (await sql<{ seq: number }>`select seq from sqlite_sequence where name = 'stranded_alarm'`.execute(trx)).rows[0]?.seq ?? 0;
    await sql.raw(rebuilt).execute(trx);
    await sql`insert into stranded_alarm_rebuilt select * from stranded_alarm`.execute(trx);
    await sql`drop table stranded_alarm`.execute(trx);
    await sql`alter table stranded_alarm_rebuilt rename to stranded_alarm`.execute(trx);
    for (const e of extras) await sql.raw(e.sql).execute(trx);
    await sql`update sqlite_sequence set seq = ${sequence} where name = 'stranded_alarm' and seq < ${sequence}`.execute(trx);
  });
}

/** On a database whose permission tree is already written: the new menu under 安防管理, bound to each role that reads vehicle alarms. */
async function bindMenu(db: Kysely<any>) {
  const parent = await db.selectFrom('sys_permission').select('permission_id').where('code', '=', MENU.under).where('deleted', '=', 0).executeTakeFirst();
  if (!parent) return;
  // The migration has no configuration: the default park zone (the start's permission sync rewrites update_time anyway).
  const now = formatInZone(Date.now());
  let menu = await db.selectFrom('sys_permission').select('permission_id').where('code', '=', MENU.code).where('deleted', '=', 0).executeTakeFirst();
  // The start's permission sync puts it in its place and order; the sort here only has to be a number.
  menu ??= await db
    .insertInto('sys_permission')
    .values({ pid: parent.permission_id, name: MENU.name, code: MENU.code, type: 1, route: MENU.route, icon: MENU.icon, open: 0, sort: 0, status: 1, remark: '', create_time: now, update_time: now })
    .returning('permission_id')
    .executeTakeFirstOrThrow();
  const readers = await db
    .selectFrom('sys_role_permission as rp')
    .innerJoin('sys_permission as p', 'p.permission_id', 'rp.permission_id')
    .select('rp.role_id')
    .distinct()
    .where('p.code', '=', MENU.via)
    .where('p.deleted', '=', 0)
    .where('rp.role_id', 'not in', db.selectFrom('sys_role_permission').select('role_id').where('permission_id', '=', menu.permission_id))
    .execute();
  if (readers.length)
    await db
      .insertInto('sys_role_permission')
      .values(readers.map((r) => ({ role_id: r.role_id, permission_id: menu.permission_id })))
      .execute();
}
