import type { ExpressionBuilder, Kysely } from 'kysely';
import { AppState, HAZARDOUS_TERM, isHazardousModel } from '../../domain/appointments';
import { earliestCoveringShipment, parksOfArea, type HazmatFacts } from '../../domain/gate';
import { ListType } from '../../domain/registers';
import { hazmatCapOf } from '../../domain/schemas/safety-setting';
import type { Db } from '../core/repository';
import { readSafetySettings } from './safety-settings';

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

/**
 * The visit a crossing at `at` belongs to: the subject's newest approved visit
 * whose window holds `at`. Presence counts it, the hazardous-goods check reads
 * its model and a route is judged by its department; callers add what they read.
 */
export const carVisitCovering = (db: Db, plate: string, at: string) =>
  db
    .selectFrom('car_application as a')
    .where('a.license_plate', '=', plate)
    .where('a.state', '=', AppState.APPROVED)
    .where('a.is_deleted', '=', 0)
    .where('a.visitor_begin_time', '<=', at)
    .where('a.visitor_end_time', '>=', at)
    .orderBy('a.car_application_id', 'desc')
    .limit(1);

/** The person's visit a crossing at `at` belongs to, as carVisitCovering. */
export const personVisitCovering = (db: Db, idcard: string, at: string) =>
  db
    .selectFrom('person_application as a')
    .where('a.visitor_idcard', '=', idcard)
    .where('a.state', '=', AppState.APPROVED)
    .where('a.is_deleted', '=', 0)
    .where('a.visit_begin_time', '<=', at)
    .where('a.visit_end_time', '>=', at)
    .orderBy('a.person_application_id', 'desc')
    .limit(1);

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
  return listedOn(db, kind, ListType.BLACK, subject, day);
}

/** The same for the white list: an entry in force lets the subject in without a visit's checks (domain/gate.ts). */
export async function whiteListedOn(db: Db, kind: 'car' | 'person', subject: string, day: string): Promise<boolean> {
  return listedOn(db, kind, ListType.WHITE, subject, day);
}

async function listedOn(db: Db, kind: 'car' | 'person', type: number, subject: string, day: string): Promise<boolean> {
  const list = blackLists[kind];
  const hit = await (db as unknown as Kysely<any>)
    .selectFrom(list.table)
    .select('id')
    .where(list.column, '=', subject.toUpperCase())
    .where('type', '=', type)
    .where('status', '=', AppState.APPROVED)
    .where('deleted', '=', 0)
    .where((eb: ExpressionBuilder<any, any>) => eb.or([eb('start_time', 'is', null), eb('start_time', '<=', `${day} 23:59:59`)]))
    .where((eb: ExpressionBuilder<any, any>) => eb.or([eb('end_time', 'is', null), eb('end_time', '>=', `${day} 00:00:00`)]))
    .limit(1)
    .executeTakeFirst();
  return !!hit;
}

/**
 * 危化品 at the gate (domain/gate.ts hazmatDenial): whether the visit's
 * vehicle model is hazardous, its covering waybill, and the parks' counts.
 */

/** Whether a vehicle model (by id) is hazardous: its name holds the term the appointment rules key on. */
export async function isHazardousModelId(db: Db, vehicleTypeId: number | null | undefined): Promise<boolean> {
  if (vehicleTypeId == null) return false;
  const model = await db.selectFrom('vehicle_type').select('name').where('id', '=', vehicleTypeId).executeTakeFirst();
  return isHazardousModel(model?.name);
}

/**
 * The approved, live waybill naming the plate that covers `day` (its shipment
 * date or the day before, domain/gate.ts waybillCovers): its 全国运单编号, the
 * newest when several do; null when none. One range of the plate's index.
 */
export async function coveringWaybill(db: Db, plate: string, day: string): Promise<string | null> {
  const row = await db
    .selectFrom('transport_list')
    .select('list_number')
    .where('license_plate', '=', plate.toUpperCase())
    .where('state', '=', AppState.APPROVED)
    .where('deleted', '=', 0)
    .where('shipment_date', '>=', earliestCoveringShipment(day))
    .where('shipment_date', '<=', day)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? row.list_number : null;
}

/**
 * Hazardous vehicles inside a park now: open vehicle stays (presence) of a
 * visit to that park (or to both parks) whose model is hazardous, the plate
 * at the gate not counted (a vehicle whose exit was missed is not counted
 * against itself). Open stays are few, and found by the partial index of open stays.
 */
export async function hazmatInside(db: Db, park: number, except: string): Promise<number> {
  const row = await db
    .selectFrom('presence as p')
    .innerJoin('car_application as a', 'a.car_application_id', 'p.application_id')
    .innerJoin('vehicle_type as m', 'm.id', 'a.vehicle_type_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('p.kind', '=', 'car')
    .where('p.exit_time', 'is', null)
    .where('p.visit_area', 'in', [park, 3])
    .where('p.subject', '!=', except.toUpperCase())
    .where('m.name', 'like', `%${HAZARDOUS_TERM}%`)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * The gate's hazardous-goods facts for a visit on park day `day`, or null
 * when its model is not hazardous. A park without a cap is not counted.
 */
export async function hazmatFactsOf(db: Db, visit: { license_plate: string; vehicle_type_id: number | null; visit_area: number | null }, day: string): Promise<HazmatFacts | null> {
  if (!(await isHazardousModelId(db, visit.vehicle_type_id))) return null;
  const plate = visit.license_plate.toUpperCase();
  const waybill = await coveringWaybill(db, plate, day);
  const settings = await readSafetySettings(db);
  const parks = [];
  for (const park of parksOfArea(visit.visit_area)) {
    const cap = hazmatCapOf(settings, park);
    parks.push({ park, cap, inside: cap === null ? 0 : await hazmatInside(db, park, plate) });
  }
  return { plate, waybill, parks };
}

/** A vehicle crossing as the gate records stamp it (gate_record_car.hazmat, waybill_number), and the visit behind it. */
export interface CrossingHazmat {
  hazmat: boolean;
  waybill: string | null;
  /** The approved visit whose window holds the crossing, if any. */
  visit: { id: number; visit_area: number | null; vehicle_type_id: number; begin: string; end: string } | undefined;
}

/**
 * Whether a crossing's vehicle is hazardous: the model of the visit the
 * crossing belongs to (carVisitCovering), or, for an exit after that
 * window, of the stay the exit ends; and
 * the waybill covering the crossing's day.
 */
export async function crossingHazmat(db: Db, plate: string, at: string, exit: boolean): Promise<CrossingHazmat> {
  const found = await carVisitCovering(db, plate, at)
    .leftJoin('vehicle_type as m', 'm.id', 'a.vehicle_type_id')
    .select(['a.car_application_id as id', 'a.visit_area', 'a.vehicle_type_id', 'a.visitor_begin_time as begin', 'a.visitor_end_time as end', 'm.name as model'])
    .executeTakeFirst();
  let model = found?.model ?? null;
  if (!found && exit) {
    const stay = await db
      .selectFrom('presence as p')
      .innerJoin('car_application as a', 'a.car_application_id', 'p.application_id')
      .leftJoin('vehicle_type as m', 'm.id', 'a.vehicle_type_id')
      .select('m.name as model')
      .where('p.kind', '=', 'car')
      .where('p.subject', '=', plate)
      .where('p.entry_time', '<=', at)
      .orderBy('p.entry_time', 'desc')
      .orderBy('p.id', 'desc')
      .limit(1)
      .executeTakeFirst();
    model = stay?.model ?? null;
  }
  const hazmat = isHazardousModel(model);
  const visit = found ? { id: found.id, visit_area: found.visit_area, vehicle_type_id: found.vehicle_type_id, begin: found.begin, end: found.end } : undefined;
  return { hazmat, waybill: hazmat ? await coveringWaybill(db, plate, at.slice(0, 10)) : null, visit };
}
