import type { ExpressionBuilder, Kysely } from 'kysely';
import { AppState } from '../../domain/appointments';
import { ListType } from '../../domain/registers';
import type { Db } from '../core/repository';

/**
 * What the registers mean for the rest of the park (DESIGN.md §7), read by
 * every path that lets a vehicle in: appointment submit, resume, delay and
 * amend, and the gate's decision.
 */

/**
 * need_record: a vehicle whose model needs a registration is let in only
 * with an approved, live registration of its plate whose begin..end covers
 * the whole visit. True when the model needs one and none covers it.
 */
export async function registrationMissing(db: Db, visit: { vehicle_type_id: number; license_plate: string; begin: string; end: string }): Promise<boolean> {
  const model = await db.selectFrom('vehicle_type').select('need_record').where('id', '=', visit.vehicle_type_id).where('deleted', '=', 0).executeTakeFirst();
  if (model?.need_record !== 1) return false;
  const covering = await db
    .selectFrom('vehicle_registration')
    .select('id')
    .where('license_plate', '=', visit.license_plate.toUpperCase())
    .where('state', '=', AppState.APPROVED)
    .where('deleted', '=', 0)
    .where('begin_time', '<=', visit.begin)
    .where('end_time', '>=', visit.end)
    .limit(1)
    .executeTakeFirst();
  return !covering;
}

/** Each kind's black and white list, and the column its subject is found by. */
const blackLists = {
  car: { table: 'car_black_white_list', column: 'license_plate' },
  person: { table: 'person_black_white_list', column: 'idcard' },
} as const;

/**
 * Whether a black-list entry of the plate ('car') or ID number ('person') is
 * in force on `day` (YYYY-MM-DD): approved, live, the day within its dates
 * (either end open). What refuses a submit and raises a stranded alarm the
 * moment the subject is inside.
 */
export async function blackListedOn(db: Db, kind: 'car' | 'person', subject: string, day: string): Promise<boolean> {
  const list = blackLists[kind];
  const hit = await (db as unknown as Kysely<any>)
    .selectFrom(list.table)
    .select('id')
    .where(list.column, '=', subject.toUpperCase())
    .where('type', '=', ListType.BLACK)
    .where('status', '=', AppState.APPROVED)
    .where('deleted', '=', 0)
    .where((eb: ExpressionBuilder<any, any>) => eb.or([eb('start_time', 'is', null), eb('start_time', '<=', `${day} 23:59:59`)]))
    .where((eb: ExpressionBuilder<any, any>) => eb.or([eb('end_time', 'is', null), eb('end_time', '>=', `${day} 00:00:00`)]))
    .limit(1)
    .executeTakeFirst();
  return !!hit;
}
