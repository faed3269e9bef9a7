import type { Kysely } from 'kysely';
import { AlarmLevel, strandedKinds, type StrandedKind } from '../../../domain/schemas/stranded';
import type { AppContext } from '../../core/context';
import { tableChanged } from '../../core/paging';
import type { Db } from '../../core/repository';
import type { DB } from '../../db/schema';
import { raiseStrandedAlarmNotifications, sendAlarmSms } from './notification';

/**
 * Stranded detection (DESIGN.md §8 "Stranded"): the stays that device
 * ingestion opens and closes (modules/devices/presence.ts) carry a deadline;
 * each open stay past it gets one alarm, raised here by the timer
 * (timer.ts) and, for a black-listed subject, by ingestion at once.
 */

/** Why the alarm was raised (stranded_alarm.level_type), declared with the alarm lists in domain/stranded-kinds.ts. */
export { AlarmLevel };

/**
 * What each kind's alarm keeps about its visit, as it was when raised
 * (application_info): a vehicle appointment's or a person appointment's
 * fields, from its own table; and the person's name, which a vehicle alarm
 * has none of (the visitor's, or the name the gate last read for the ID number).
 */
const alarmSubjects: Record<
  StrandedKind,
  { info: (t: Kysely<DB>, id: number) => Promise<Record<string, unknown> | undefined>; personName: (db: Db, subject: string, info: Record<string, unknown>) => Promise<string> }
> = {
  car: {
    info: (t, id) =>
      t
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
        .executeTakeFirst(),
    personName: async () => '',
  },
  person: {
    info: (t, id) =>
      t
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
        .executeTakeFirst(),
    personName: async (db, subject, info) => String(info.visitor_name ?? (await lastName(db, subject))),
  },
};

/** What an alarm keeps about the visit, as it was when raised (application_info); nothing without one. */
export async function applicationInfo(db: Db, kind: StrandedKind, id: number | null): Promise<Record<string, unknown>> {
  if (id == null) return {};
  return (await alarmSubjects[kind].info(db as unknown as Kysely<DB>, id)) ?? {};
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
      const kind = stay.kind as StrandedKind;
      const k = strandedKinds[kind];
      const info = await applicationInfo(trx, kind, stay.application_id);
      const level = stay.black
        ? AlarmLevel.BLACK_LISTED
        : stay.application_id != null && stay.deadline !== (info.visitor_end_time ?? info.visit_end_time)
          ? AlarmLevel.DWELL_LIMIT
          : AlarmLevel.VISIT_END;
      const personName = await alarmSubjects[kind].personName(trx, stay.subject, info);
      const subject = { license_plate: '', idcard: '', [k.subjectColumn]: stay.subject };
      const alarm = await trx
        .insertInto('stranded_alarm')
        .values({
          kind,
          presence_id: id,
          application_id: stay.application_id,
          application_info: JSON.stringify(info),
          ...subject,
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
        subject: k.subject({ ...subject, person_name: personName }),
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
    tableChanged('stranded_alarm');
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
