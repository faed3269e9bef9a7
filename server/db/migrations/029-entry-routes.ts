import type { Kysely } from 'kysely';
import type { Dialect } from '../index';
import { withId } from './001-foundation';

const time = 'varchar(19)';

/**
 * 行车路线 (spec 001 "Vehicle entry routes", issue 27):
 *
 * - location: the park's named points, WGS-84. A vehicle gate of the
 *   equipment register is a point of its own (equipment_id, one location per
 *   gate); the point list fills itself from the register when it is read
 *   (modules/driving-routes.ts), so a gate added later is a point too.
 * - driving_route: the line (path, JSON text of [lat, lng] vertices), the
 *   points it passes (location_id, comma list as the spec names it) and its
 *   publish state; soft-deleted like the other registers.
 * - driving_route_depart: which route a department's vehicle visitors follow;
 *   the department is the key, so a department is bound to one route at most.
 * - gate_record_car.deviated: 1 when the crossing was at a gate that is not a
 *   point of the published route of the visit's department (偏离路线).
 */
export function entryRoutes(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await withId(db.schema.createTable('location'), 'id', dialect)
        .addColumn('name', 'varchar(50)', (c) => c.notNull())
        .addColumn('longitude', 'double precision')
        .addColumn('latitude', 'double precision')
        .addColumn('equipment_id', 'integer')
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .execute();
      // One point per gate (NULLs stay distinct on both databases), and the deviation check's lookup by the crossing's device.
      await db.schema.createIndex('location_equipment').on('location').column('equipment_id').unique().execute();

      await withId(db.schema.createTable('driving_route'), 'id', dialect)
        .addColumn('name', 'varchar(50)', (c) => c.notNull())
        .addColumn('publish', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('location_id', 'varchar(1000)', (c) => c.notNull().defaultTo(''))
        .addColumn('create_user_id', 'integer')
        .addColumn('update_user_id', 'integer')
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      // The list: live rows by id, optionally one publish state.
      await db.schema.createIndex('driving_route_live').on('driving_route').columns(['deleted', 'publish', 'id']).execute();

      await db.schema
        .createTable('driving_route_depart')
        .addColumn('depart_id', 'integer', (c) => c.primaryKey())
        .addColumn('route_id', 'integer', (c) => c.notNull())
        .addColumn('create_time', time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('driving_route_depart_route').on('driving_route_depart').columns(['route_id', 'depart_id']).execute();

      await db.schema
        .alterTable('gate_record_car')
        .addColumn('deviated', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
