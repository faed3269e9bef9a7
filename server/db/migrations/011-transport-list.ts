import type { Kysely } from 'kysely';
import type { Dialect } from '../index';
import { withId } from './001-foundation';

const time = 'varchar(19)';

/**
 * Transport waybills (运单, spec 001 §3): filed by a carrier's contact and
 * approved through the waybill process. The number is written right after
 * the insert in the same transaction (approvable.ts), so it is null only
 * there. Indexes follow the lists: the filer's history by creator, the
 * all-history by id, the filters by plate and state.
 */
export function transportList(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await withId(db.schema.createTable('transport_list'), 'id', dialect)
        .addColumn('application_number', 'varchar(32)')
        .addColumn('transport_type', 'integer', (c) => c.notNull())
        .addColumn('list_number', 'varchar(50)', (c) => c.notNull().defaultTo(''))
        .addColumn('cargo_name', 'varchar(60)', (c) => c.notNull().defaultTo(''))
        .addColumn('cargo_quantity', 'double precision', (c) => c.notNull())
        .addColumn('cargo_unit', 'varchar(10)', (c) => c.notNull().defaultTo('吨'))
        .addColumn('enterprise', 'varchar(60)', (c) => c.notNull().defaultTo(''))
        .addColumn('unified_social_credit_code', 'varchar(18)', (c) => c.notNull().defaultTo(''))
        .addColumn('business_license_number', 'varchar(50)', (c) => c.notNull().defaultTo(''))
        .addColumn('contact_phone', 'varchar(20)', (c) => c.notNull().defaultTo(''))
        .addColumn('license_plate', 'varchar(16)', (c) => c.notNull())
        .addColumn('license_plate_color', 'integer', (c) => c.notNull())
        .addColumn('vehicle_transport_license', 'varchar(50)', (c) => c.notNull().defaultTo(''))
        .addColumn('trailer_license', 'varchar(16)', (c) => c.notNull().defaultTo(''))
        .addColumn('trailer_transport_license', 'varchar(50)', (c) => c.notNull().defaultTo(''))
        .addColumn('tank_volume', 'double precision')
        .addColumn('driver', 'varchar(30)', (c) => c.notNull().defaultTo(''))
        .addColumn('driver_qualification_certificate', 'varchar(50)', (c) => c.notNull().defaultTo(''))
        .addColumn('driver_phone', 'varchar(20)', (c) => c.notNull().defaultTo(''))
        .addColumn('supercargo', 'varchar(30)', (c) => c.notNull().defaultTo(''))
        .addColumn('supercargo_qualification_certificate', 'varchar(50)', (c) => c.notNull().defaultTo(''))
        .addColumn('supercargo_phone', 'varchar(20)', (c) => c.notNull().defaultTo(''))
        .addColumn('shipper', 'varchar(60)', (c) => c.notNull().defaultTo(''))
        .addColumn('shipper_phone', 'varchar(20)', (c) => c.notNull().defaultTo(''))
        .addColumn('recipient', 'varchar(60)', (c) => c.notNull().defaultTo(''))
        .addColumn('recipient_phone', 'varchar(20)', (c) => c.notNull().defaultTo(''))
        .addColumn('carrier', 'varchar(60)', (c) => c.notNull().defaultTo(''))
        .addColumn('carrier_phone', 'varchar(20)', (c) => c.notNull().defaultTo(''))
        .addColumn('loader', 'varchar(30)', (c) => c.notNull().defaultTo(''))
        .addColumn('loader_phone', 'varchar(20)', (c) => c.notNull().defaultTo(''))
        .addColumn('shipment_date', 'varchar(10)', (c) => c.notNull().defaultTo(''))
        .addColumn('shipment_addr', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('destination', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        // ';'-joined stored file names (core/file-refs.ts).
        .addColumn('annex', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('state', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('revoke_reason', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('process_instance_id', 'integer')
        .addColumn('create_user_id', 'integer')
        .addColumn('update_user_id', 'integer')
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      // Nulls are distinct on both databases, so a row not yet numbered collides with nothing.
      await db.schema.createIndex('transport_list_number').on('transport_list').column('application_number').unique().execute();
      await db.schema.createIndex('transport_list_own').on('transport_list').columns(['create_user_id', 'deleted', 'id']).execute();
      await db.schema.createIndex('transport_list_live').on('transport_list').columns(['deleted', 'id']).execute();
      await db.schema.createIndex('transport_list_plate').on('transport_list').columns(['license_plate', 'id']).execute();
      await db.schema.createIndex('transport_list_state').on('transport_list').columns(['state', 'id']).execute();
    },
  };
}
