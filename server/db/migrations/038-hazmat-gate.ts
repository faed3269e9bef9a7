import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../index';

/**
 * Hazardous goods checked at the gate, and repeat offenders (docs/decisions.md):
 *
 * - gate_record_car.hazmat and waybill_number: stamped when the crossing is
 *   ingested (1 when the visit's vehicle model is hazardous; the covering
 *   waybill's 全国运单编号, '' without one), so the list shows and filters
 *   them without a join. The 危化品 filter's rows are their own partial index
 *   by (capture_time, id), as the whole list's are.
 * - stranded_alarm.dedupe_key: an alarm that may be raised once per key (the
 *   危化品无运单 alarm: once per plate and park day), unique where set.
 * - stranded_alarm by plate and by ID number, then alarm time: the alarms
 *   that count towards a repeat offender's black-list draft.
 */
export function hazmatGate(dialect: Dialect) {
  void dialect;
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('gate_record_car')
        .addColumn('hazmat', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('gate_record_car')
        .addColumn('waybill_number', 'varchar(50)', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema.createIndex('gate_record_car_hazmat').on('gate_record_car').columns(['capture_time', 'id']).where(sql.ref('hazmat'), '=', 1).execute();

      await db.schema.alterTable('stranded_alarm').addColumn('dedupe_key', 'varchar(80)').execute();
      await db.schema.createIndex('stranded_alarm_once').on('stranded_alarm').column('dedupe_key').unique().execute();
      await db.schema.createIndex('stranded_alarm_plate_time').on('stranded_alarm').columns(['license_plate', 'alarm_time']).execute();
      await db.schema.createIndex('stranded_alarm_idcard_time').on('stranded_alarm').columns(['idcard', 'alarm_time']).execute();
    },
  };
}
