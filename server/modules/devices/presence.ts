import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import { AppState } from '../../../domain/appointments';
import { Direction } from '../../../domain/gate';
import type { DeviceEvent, PersonEvent, VehicleEvent } from '../../../domain/schemas/device-event';
import { addMinutes } from '../../../domain/time';
import type { AppContext } from '../../core/context';
import type { Db } from '../../core/repository';
import { raiseStrandedAlarmNotifications, sendAlarmSms } from '../../core/stranded-alarm';
import type { Dialect } from '../../db/index';
import type { DB } from '../../db/schema';
import { blackListedOn } from '../park-rules';

/**
 * Who is inside (DESIGN.md §8 "Stranded"): an 'in' crossing that opened the
 * gate opens a stay, the next 'out' closes it, in capture order whatever the
 * order of arrival (trackCrossing). The stay's deadline is when it
 * becomes stranded: the visit's end, or sooner the vehicle model's dwell
 * limit; a black-listed subject is stranded the moment it is inside. The
 * alarm timer (raiseDueAlarms) raises one alarm per stay.
 */

export const AlarmLevel = { VISIT_END: 1, DWELL_LIMIT: 2, BLACK_LISTED: 3 } as const;

type Crossing = (VehicleEvent | PersonEvent) & { device_id: number };

/** Where each kind's approved visits are, and which column names the subject at the gate. */
const visits = {
  car: { table: 'car_application', key: 'car_application_id', subject: 'license_plate', begin: 'visitor_begin_time', end: 'visitor_end_time' },
  person: { table: 'person_application', key: 'person_application_id', subject: 'visitor_idcard', begin: 'visit_begin_time', end: 'visit_end_time' },
} as const;

/** The approved visit of the subject that covers `at`, with what a stay and its alarm need (a vehicle's model's dwell limit). */
async function visitAt(db: Db, kind: 'car' | 'person', subject: string, at: string): Promise<{ id: number; visit_area: number; end: string; dwell: number | null } | undefined> {
  const v = visits[kind];
  let q = (db as unknown as Kysely<any>)
    .selectFrom(`${v.table} as a`)
    .select([`a.${v.key} as id`, 'a.visit_area', `a.${v.end} as end`])
    .where(`a.${v.subject}`, '=', subject)
    .where('a.state', '=', AppState.APPROVED)
    .where('a.is_deleted', '=', 0)
    .where(`a.${v.begin}`, '<=', at)
    .where(`a.${v.end}`, '>=', at);
  if (kind === 'car') q = q.leftJoin('vehicle_type as m', 'm.id', 'a.vehicle_type_id').select('m.dwell_limit_minutes as dwell');
  const row = await q.orderBy(`a.${v.key}`, 'desc').limit(1).executeTakeFirst();
  return row ? { dwell: null, ...row } : undefined;
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
export async function lockSubjects(trx: Db, dialect: Dialect, events: readonly DeviceEvent[]): Promise<void> {
  if (dialect !== 'postgres') return;
  const keys = new Set<string>();
  for (const e of events) {
    if (e.type === 'vehicle' && e.open_result === 1) keys.add(`car:${e.license_plate}`);
    if (e.type === 'person' && e.open_result === 1) keys.add(`person:${e.idcard}`);
  }
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
  const kind = e.type === 'vehicle' ? 'car' : 'person';
  const subject = e.type === 'vehicle' ? e.license_plate : e.idcard;
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

/** What an alarm keeps about the visit, as it was when raised (application_info). */
async function applicationInfo(db: Db, kind: 'car' | 'person', id: number | null): Promise<Record<string, unknown>> {
  if (id == null) return {};
  const t = db as unknown as Kysely<DB>;
  if (kind === 'car') {
    const a = await t
      .selectFrom('car_application as a')
      .leftJoin('sys_department as d', 'd.depart_id', 'a.interviewee_depart_id')
      .leftJoin('vehicle_type as m', 'm.id', 'a.vehicle_type_id')
      .select([
        'a.application_number',
        'a.license_plate',
        'a.applicant_name',
        'a.applicant_phone',
        'a.visitor_company',
        'a.visitor_begin_time',
        'a.visitor_end_time',
        'a.interviewee_name',
        'a.interviewee_phone',
        'd.name as interviewee_depart_name',
        'm.name as vehicle_type_name',
        'a.cargo_type',
        'a.cargo_name',
      ])
      .where('a.car_application_id', '=', id)
      .executeTakeFirst();
    return a ?? {};
  }
  const a = await t
    .selectFrom('person_application as a')
    .leftJoin('sys_department as d', 'd.depart_id', 'a.interviewee_depart_id')
    .select([
      'a.application_number',
      'a.visitor_name',
      'a.visitor_phone',
      'a.visitor_company',
      'a.visit_begin_time',
      'a.visit_end_time',
      'a.interviewee_name',
      'a.interviewee_phone',
      'd.name as interviewee_depart_name',
    ])
    .where('a.person_application_id', '=', id)
    .executeTakeFirst();
  return a ?? {};
}

/**
 * The alarm timer's work (at each deadline and every minute, every server):
 * each open stay past its deadline gets its one alarm, claimed by a
 * conditional update so that of two servers exactly one raises (and texts)
 * it; the holders of the deal codes are notified in the transaction and
 * texted after it commits, and the SMS outcome is stored on the alarm.
 * Answers how many alarms this call raised.
 */
export async function raiseDueAlarms(ctx: AppContext, batch = 100): Promise<number> {
  const now = ctx.time();
  const due = await ctx.db.selectFrom('presence').select(['id']).where('exit_time', 'is', null).where('alarmed', '=', 0).where('deadline', '<=', now).orderBy('deadline').limit(batch).execute();
  let raised = 0;
  for (const { id } of due) {
    const done = await ctx.db.transaction().execute(async (trx) => {
      const claimed = await trx.updateTable('presence').set({ alarmed: 1 }).where('id', '=', id).where('alarmed', '=', 0).where('exit_time', 'is', null).executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 0) return false;
      const stay = await trx.selectFrom('presence').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      const kind = stay.kind as 'car' | 'person';
      const info = await applicationInfo(trx, kind, stay.application_id);
      const level = stay.black
        ? AlarmLevel.BLACK_LISTED
        : stay.application_id != null && stay.deadline !== (info.visitor_end_time ?? info.visit_end_time)
          ? AlarmLevel.DWELL_LIMIT
          : AlarmLevel.VISIT_END;
      const personName = kind === 'person' ? String(info.visitor_name ?? (await lastName(trx, stay.subject))) : '';
      const alarm = await trx
        .insertInto('stranded_alarm')
        .values({
          kind,
          presence_id: id,
          application_id: stay.application_id,
          application_info: JSON.stringify(info),
          license_plate: kind === 'car' ? stay.subject : '',
          idcard: kind === 'person' ? stay.subject : '',
          person_name: personName,
          visit_area: stay.visit_area,
          level_type: level,
          is_black: stay.black,
          entry_time: stay.entry_time,
          alarm_time: now,
          create_time: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const gate = await trx.selectFrom('equipment').select('name').where('id', '=', stay.entry_device_id).executeTakeFirst();
      const sms = await raiseStrandedAlarmNotifications(trx as unknown as Kysely<DB>, ctx, {
        kind,
        alarmId: alarm.id,
        subject: kind === 'car' ? stay.subject : personName || stay.subject,
        visitArea: stay.visit_area,
        alarmTime: now,
        black: Boolean(stay.black),
        gate: gate?.name ?? '',
        entryTime: stay.entry_time,
      });
      await trx.updateTable('stranded_alarm').set(sms).where('id', '=', alarm.id).execute();
      return alarm.id;
    });
    if (done === false) continue;
    raised++;
    // The SMS leaves only now that the alarm is committed (DESIGN.md §11); the minute pass sends it should this server stop first.
    await sendAlarmSms(ctx, done);
  }
  return raised;
}

/** A person's name as the gate last read it, for an alarm without a visit. */
async function lastName(db: Db, idcard: string): Promise<string> {
  const r = await (db as unknown as Kysely<DB>).selectFrom('gate_record_person').select('person_name').where('idcard', '=', idcard).orderBy('capture_time', 'desc').limit(1).executeTakeFirst();
  return r?.person_name ?? '';
}
