import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import { AppState } from '../../../domain/appointments';
import { Direction } from '../../../domain/gate';
import { addMinutes } from '../../../domain/time';
import type { Db } from '../../core/repository';
import type { Dialect } from '../../db/index';
import type { DB } from '../../db/schema';
import { blackListedOn, carVisitCovering, personVisitCovering } from '../park-rules';

/**
 * Who is inside (DESIGN.md §8 "Stranded"): an 'in' crossing that opened the
 * gate opens a stay, the next 'out' closes it, in capture order whatever the
 * order of arrival (trackCrossing). The stay's deadline is when it
 * becomes stranded: the visit's end, or sooner the vehicle model's dwell
 * limit; a black-listed subject is stranded the moment it is inside.
 * Stranded detection (modules/stranded/detection.ts, raiseDueAlarms) raises
 * one alarm per stay.
 */

/** A gate crossing as presence sees it, whichever event type reported it (event-handlers.ts). */
export interface Crossing {
  kind: 'car' | 'person';
  /** The plate of a vehicle, the document number of a person. */
  subject: string;
  direction: number;
  /** 1 when the gate opened: only such a crossing moves who is inside. */
  open_result: number;
  capture_time: string;
  device_id: number;
}

/** The approved visit of the subject that covers `at` (park-rules.ts visitCovering), with what a stay and its alarm need: a vehicle's model's dwell limit (a person has none, so the visit's end alone decides). */
async function visitAt(db: Db, kind: 'car' | 'person', subject: string, at: string): Promise<{ id: number; visit_area: number; end: string; dwell: number | null } | undefined> {
  if (kind === 'car') {
    return carVisitCovering(db, subject, at)
      .leftJoin('vehicle_type as m', 'm.id', 'a.vehicle_type_id')
      .select(['a.car_application_id as id', 'a.visit_area', 'a.visitor_end_time as end', 'm.dwell_limit_minutes as dwell'])
      .executeTakeFirst();
  }
  const row = await personVisitCovering(db, subject, at).select(['a.person_application_id as id', 'a.visit_area', 'a.visit_end_time as end']).executeTakeFirst();
  return row && { ...row, dwell: null };
}

/** The class of this module's advisory locks, apart from any other lock's numbers. */
const SUBJECT_LOCK_CLASS = 23;

/**
 * On PostgreSQL, holds the subjects of a batch's crossings until the
 * ingesting transaction ends: trackCrossing reads a subject's stays and
 * crossings and then writes, so two gates delivering the same subject at once
 * (one live, one replaying late) must take turns, or each would place its
 * crossing among what the other has not yet committed. One statement takes
 * them in sorted order, so two batches never wait on each other in a cycle.
 * SQLite needs none: its write transactions already take turns.
 */
export async function lockSubjects(trx: Db, dialect: Dialect, crossings: readonly Omit<Crossing, 'device_id'>[]): Promise<void> {
  if (dialect !== 'postgres') return;
  const keys = new Set<string>();
  for (const c of crossings) if (c.open_result === 1) keys.add(`${c.kind}:${c.subject}`);
  if (!keys.size) return;
  await sql`select count(pg_advisory_xact_lock(${SUBJECT_LOCK_CLASS}, hashtext(k))) from (select unnest(${[...keys].sort()}::text[]) as k order by k) s`.execute(trx);
}

/** Where each kind's crossings are recorded, and which column names the subject. */
const crossings = { car: { table: 'gate_record_car', subject: 'license_plate' }, person: { table: 'gate_record_person', subject: 'idcard' } } as const;

/**
 * The subject's first crossing that opened the gate after `at` in crossing
 * order: capture time, and within one second an entry before an exit, so
 * that the order does not depend on which gate's event arrived first.
 */
async function crossingAfter(db: Db, kind: 'car' | 'person', subject: string, at: string): Promise<{ capture_time: string; direction: number; device_id: number } | undefined> {
  const c = crossings[kind];
  return (db as unknown as Kysely<any>)
    .selectFrom(c.table)
    .select(['capture_time', 'direction', 'device_id'])
    .where(c.subject, '=', subject)
    .where('open_result', '=', 1)
    .where((eb: ExpressionBuilder<any, any>) => eb.or([eb('capture_time', '>', at), eb.and([eb('capture_time', '=', at), eb('direction', '=', Direction.OUT)])]))
    .orderBy('capture_time')
    .orderBy('direction')
    .limit(1)
    .executeTakeFirst();
}

/** A stay ends; its alarm, if raised, records the same exit (an alarm's exit is its stay's). */
async function endStay(t: Kysely<DB>, id: number, exitTime: string, exitDevice: number | null): Promise<void> {
  await t.updateTable('presence').set({ exit_time: exitTime, exit_device_id: exitDevice }).where('id', '=', id).execute();
  await t.updateTable('stranded_alarm').set({ exit_time: exitTime }).where('presence_id', '=', id).execute();
}

/**
 * Places a crossing that opened the gate among the subject's crossings by
 * capture time, not by arrival: a gate that lost its network replays its
 * buffer late, after other gates' later crossings. Runs in the ingesting
 * transaction, before the crossing's own gate record is stored. In crossing
 * order an entry opens a stay that the next crossing ends (an exit, or a
 * missed exit shown by the next entry), and an exit ends the stay it falls
 * in. So a crossing changes at most the stay it falls in (which now ends
 * here) and, an entry, adds its own stay, ended by the crossing after it if
 * one is already known; in-order delivery is the case with none after.
 * Answers true when a black-listed subject came in and is still inside, so
 * that the caller raises its alarm as soon as the batch is stored.
 */
export async function trackCrossing(trx: Db, e: Crossing): Promise<boolean> {
  if (e.open_result !== 1) return false;
  const { kind, subject } = e;
  const entry = e.direction === Direction.IN;
  const t = trx as unknown as Kysely<DB>;
  const current = await t
    .selectFrom('presence')
    .select(['id', 'exit_time'])
    .where('kind', '=', kind)
    .where('subject', '=', subject)
    .where('entry_time', '<=', e.capture_time)
    .orderBy('entry_time', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  // An exit of the same second as the stay's end was ordered after this entry, so it belongs to the entry's stay now.
  if (current && (current.exit_time === null || current.exit_time > e.capture_time || (entry && current.exit_time === e.capture_time))) {
    await endStay(t, current.id, e.capture_time, entry ? null : e.device_id);
  }
  if (!entry) return false;
  const next = await crossingAfter(trx, kind, subject, e.capture_time);
  const black = await blackListedOn(trx, kind, subject, e.capture_time.slice(0, 10));
  const visit = await visitAt(trx, kind, subject, e.capture_time);
  const byDwell = visit?.dwell ? addMinutes(e.capture_time, visit.dwell) : null;
  const deadline = black ? e.capture_time : byDwell && visit && byDwell < visit.end ? byDwell : (visit?.end ?? null);
  await t
    .insertInto('presence')
    .values({
      kind,
      subject,
      application_id: visit?.id ?? null,
      visit_area: visit?.visit_area ?? null,
      deadline,
      entry_time: e.capture_time,
      entry_device_id: e.device_id,
      exit_time: next?.capture_time ?? null,
      exit_device_id: next?.direction === Direction.OUT ? next.device_id : null,
      black: black ? 1 : 0,
    })
    .execute();
  return black && !next;
}
