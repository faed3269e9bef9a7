import type { Kysely } from 'kysely';
import type { Dialect } from '../index';
import { withId } from './001-foundation';

const time = 'varchar(19)';

/**
 * The device API of DESIGN.md §8. A device's key is stored as its SHA-256
 * (the key is 32 random bytes: a slow hash adds nothing) and replaced when
 * issued again; last_seen_at (epoch ms) is when a heartbeat or an event last
 * came, which the online timer compares with a single conditional UPDATE.
 *
 * device_event is the ledger that makes a replayed batch safe: its primary
 * key (device_id, event_id) admits an event once, whatever server or
 * connection a replay arrives on; the crossing records hang off it. Records
 * are read newest first by capture time, per day (the screens' default is
 * today), and by plate or ID number.
 */
export function devices(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('equipment').addColumn('key_hash', 'varchar(64)').execute();
      await db.schema.alterTable('equipment').addColumn('key_issued_time', time).execute();
      await db.schema.alterTable('equipment').addColumn('last_seen_at', 'bigint').execute();
      await db.schema.createIndex('equipment_online').on('equipment').columns(['state', 'last_seen_at']).execute();

      await db.schema
        .createTable('device_event')
        .addColumn('device_id', 'integer', (c) => c.notNull())
        .addColumn('event_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('type', 'varchar(16)', (c) => c.notNull())
        .addColumn('capture_time', time, (c) => c.notNull())
        .addColumn('received_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('device_event_pk', ['device_id', 'event_id'])
        .execute();

      await withId(db.schema.createTable('gate_record_car'), 'id', dialect)
        .addColumn('device_id', 'integer', (c) => c.notNull())
        .addColumn('event_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('license_plate', 'varchar(16)', (c) => c.notNull())
        .addColumn('license_plate_color', 'integer')
        .addColumn('direction', 'integer', (c) => c.notNull())
        .addColumn('open_result', 'integer', (c) => c.notNull())
        .addColumn('plate_image', 'varchar(80)', (c) => c.notNull().defaultTo(''))
        .addColumn('vehicle_image', 'varchar(80)', (c) => c.notNull().defaultTo(''))
        .addColumn('vehicle_brand', 'varchar(30)', (c) => c.notNull().defaultTo(''))
        .addColumn('vehicle_type', 'varchar(30)', (c) => c.notNull().defaultTo(''))
        .addColumn('vehicle_color', 'integer')
        .addColumn('vehicle_compare_result', 'integer')
        .addColumn('face_compare_result', 'integer')
        .addColumn('capture_time', time, (c) => c.notNull())
        .addColumn('create_time', time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('gate_record_car_time').on('gate_record_car').columns(['capture_time', 'id']).execute();
      await db.schema.createIndex('gate_record_car_plate').on('gate_record_car').columns(['license_plate', 'capture_time']).execute();

      await withId(db.schema.createTable('gate_record_person'), 'id', dialect)
        .addColumn('device_id', 'integer', (c) => c.notNull())
        .addColumn('event_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('idcard', 'varchar(20)', (c) => c.notNull().defaultTo(''))
        .addColumn('person_name', 'varchar(30)', (c) => c.notNull().defaultTo(''))
        .addColumn('card_number', 'varchar(30)', (c) => c.notNull().defaultTo(''))
        .addColumn('card_status', 'integer')
        .addColumn('image_type', 'integer')
        .addColumn('direction', 'integer', (c) => c.notNull())
        .addColumn('open_result', 'integer', (c) => c.notNull())
        .addColumn('snapshot', 'varchar(80)', (c) => c.notNull().defaultTo(''))
        .addColumn('capture_time', time, (c) => c.notNull())
        .addColumn('create_time', time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('gate_record_person_time').on('gate_record_person').columns(['capture_time', 'id']).execute();
      await db.schema.createIndex('gate_record_person_idcard').on('gate_record_person').columns(['idcard', 'capture_time']).execute();

      // Alarms a device raises itself (tamper, fault): kept for the equipment and the dashboard's alarm counts.
      await withId(db.schema.createTable('device_alarm'), 'id', dialect)
        .addColumn('device_id', 'integer', (c) => c.notNull())
        .addColumn('event_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('alarm_type', 'varchar(30)', (c) => c.notNull())
        .addColumn('remark', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('capture_time', time, (c) => c.notNull())
        .addColumn('create_time', time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('device_alarm_time').on('device_alarm').columns(['capture_time', 'id']).execute();
    },
  };
}
