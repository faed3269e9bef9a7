import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../index';
import { withId } from './001-foundation';

const time = 'varchar(19)';

/**
 * The park's equipment (spec 001 §3 Devices): the seven kinds share one
 * table, since a device's number is unique across kinds (the device API of
 * DESIGN.md §8 names a device by number alone). Columns a kind does not use
 * stay null. state and state_update_time come from the device API (issue 12).
 */
export function equipment(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await withId(db.schema.createTable('equipment'), 'id', dialect)
        .addColumn('kind', 'varchar(40)', (c) => c.notNull())
        .addColumn('name', 'varchar(30)', (c) => c.notNull())
        .addColumn('number', 'varchar(50)', (c) => c.notNull())
        .addColumn('type', 'integer')
        .addColumn('entrances_type', 'integer')
        .addColumn('is_security_check', 'integer')
        .addColumn('temporary_reservation', 'integer')
        .addColumn('lane_number', 'varchar(30)')
        .addColumn('plate', 'varchar(10)')
        .addColumn('longitude', 'double precision')
        .addColumn('latitude', 'double precision')
        .addColumn('state', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('state_update_time', time)
        .addColumn('create_user_id', 'integer')
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      // Each kind's list is its live rows newest first.
      await db.schema.createIndex('equipment_kind_live').on('equipment').columns(['kind', 'deleted', 'id']).execute();
      await db.schema.createIndex('equipment_number_live').on('equipment').column('number').unique().where(sql.ref('deleted'), '=', 0).execute();
    },
  };
}
