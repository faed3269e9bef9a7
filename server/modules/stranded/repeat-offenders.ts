import { sql, type Kysely, type Transaction } from 'kysely';
import { AppState, ProcessType } from '../../../domain/appointments';
import { enumLabel } from '../../../domain/enums';
import { isMainlandIdNumber } from '../../../domain/identity';
import { NotificationKind, recordLink } from '../../../domain/notifications';
import { menuRoutes, type PermissionCode } from '../../../domain/permissions';
import { ListType } from '../../../domain/registers';
import { strandedKinds, type StrandedKind } from '../../../domain/schemas/stranded';
import { formatInZone } from '../../../domain/time';
import { addDays, dateOf } from '../../../domain/visit-rules';
import type { AppContext } from '../../core/context';
import { AppError } from '../../core/errors';
import { notify } from '../../core/notify';
import { tableChanged } from '../../core/paging';
import { afterCommit, inSavepoint } from '../../core/transactions';
import type { DB } from '../../db/schema';
import { submitForApproval } from '../../workflow/subject-actions';
import { readSafetySettings } from '../safety-settings';
import { holdersOf } from './notification';

/**
 * Repeat offenders (docs/decisions.md): a plate or an ID number whose alarms
 * were handled as real (not 误判) at least `repeat_offender_threshold` times
 * within `repeat_offender_days` (安全设置) gets a black-list draft filed by
 * the system, its reason listing those alarms, submitted into the list's
 * usual approval; the list's keepers (its add code) are told. Checked when an
 * alarm is handled as real. No draft while the subject has a black-list
 * entry pending (draft, under review) or in force, or one approved to begin later.
 */

/** Each kind's black list: its table, the column naming the subject, its process, its keepers' code and its screen. */
const lists: Record<
  StrandedKind,
  { table: 'car_black_white_list' | 'person_black_white_list'; column: 'license_plate' | 'idcard'; processType: number; add: PermissionCode; menu: string; word: string }
> = {
  car: { table: 'car_black_white_list', column: 'license_plate', processType: ProcessType.CAR_LIST, add: 'carList:add', menu: 'menu:carList', word: '车辆' },
  person: { table: 'person_black_white_list', column: 'idcard', processType: ProcessType.PERSON_LIST, add: 'personList:add', menu: 'menu:personList', word: '人员' },
};

/** How long the system's draft keeps the subject out once approved: a year from the day it was filed. */
export const REPEAT_OFFENDER_LIST_DAYS = 365;
/** The class of this module's advisory locks, apart from any other lock's numbers. */
const OFFENDER_LOCK_CLASS = 38;
/** The list's reason column holds 200 characters. */
const REASON_CHARS = 200;

interface CountedAlarm {
  id: number;
  alarm_time: string;
  level_type: number;
  application_id: number | null;
  person_name: string;
}

/** The reason: the rule, then each alarm (newest first) as far as 200 characters allow, the rest counted. */
export function offenderReason(days: number, alarms: readonly Pick<CountedAlarm, 'id' | 'alarm_time' | 'level_type'>[]): string {
  const head = `系统自动提报：${days}天内${alarms.length}次告警经处理属实：`;
  const items = alarms.map((a) => `${a.alarm_time.slice(0, 16)}${enumLabel('strandedLevel', a.level_type)}（告警${a.id}）`);
  for (let n = items.length; n > 0; n--) {
    const rest = items.length - n;
    const text = `${head}${items.slice(0, n).join('；')}${rest ? `；另${rest}次略` : ''}`;
    if (text.length <= REASON_CHARS) return text;
  }
  return head.slice(0, REASON_CHARS);
}

/**
 * After alarm `alarmId` was handled as real by `userId`, in the handling's
 * transaction: files and submits the subject's black-list draft when the rule
 * says so, and answers the new entry's id, or null. On PostgreSQL an advisory
 * lock on the subject makes two handlings at once, on any servers, file one
 * draft (SQLite's write transactions take turns). Where the list's process
 * cannot start (none configured, no approver), the draft is still filed,
 * unsubmitted, and the keepers are told so.
 */
export async function fileRepeatOffender(trx: Transaction<DB>, ctx: AppContext, alarmId: number, userId: number): Promise<number | null> {
  const alarm = await trx.selectFrom('stranded_alarm').select(['kind', 'license_plate', 'idcard', 'false_alarm', 'handle_time']).where('id', '=', alarmId).executeTakeFirst();
  if (!alarm || alarm.false_alarm !== 0 || !alarm.handle_time) return null;
  const kind = alarm.kind as StrandedKind;
  const list = lists[kind];
  const subject = alarm[strandedKinds[kind].subjectColumn];
  if (!list || !subject) return null;
  const settings = await readSafetySettings(trx);
  const since = formatInZone(ctx.now() - settings.repeat_offender_days * 86_400_000, ctx.config.tz);
  if (ctx.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${OFFENDER_LOCK_CLASS}, hashtext(${`${kind}:${subject}`}))`.execute(trx);
  const alarms = await trx
    .selectFrom('stranded_alarm')
    .select(['id', 'alarm_time', 'level_type', 'application_id', 'person_name'])
    .where(list.column, '=', subject)
    .where('kind', '=', kind)
    .where('alarm_time', '>=', since)
    .where('handle_time', 'is not', null)
    .where('false_alarm', '=', 0)
    .orderBy('alarm_time', 'desc')
    .orderBy('id', 'desc')
    .execute();
  if (alarms.length < settings.repeat_offender_threshold) return null;
  if (await listedOrPending(trx, list, subject, dateOf(ctx.time()))) return null;
  const id = await insertDraft(trx, ctx, kind, subject, settings.repeat_offender_days, alarms);
  let submitted = true;
  try {
    await inSavepoint(trx, () => submitForApproval(trx, ctx, list.table, id, { processType: list.processType, applicantUserId: userId, intervieweeDepartId: null }, {}));
  } catch (err) {
    // The list's process could not start: the draft waits for its keepers to submit it.
    if (!(err instanceof AppError)) throw err;
    submitted = false;
  }
  await tellKeepers(trx, ctx, kind, subject, id, alarms.length, settings.repeat_offender_days, submitted);
  afterCommit(trx, () => tableChanged(list.table));
  return id;
}

/** A black-list entry of the subject that is pending (draft, under review), in force, or approved and not yet ended. */
async function listedOrPending(trx: Kysely<DB>, list: (typeof lists)[StrandedKind], subject: string, today: string): Promise<boolean> {
  const hit = await (trx as unknown as Kysely<any>)
    .selectFrom(list.table)
    .select('id')
    .where(list.column, '=', subject)
    .where('type', '=', ListType.BLACK)
    .where('deleted', '=', 0)
    .where((eb: any) =>
      eb.or([eb('status', 'in', [AppState.DRAFT, AppState.REVIEW]), eb.and([eb('status', '=', AppState.APPROVED), eb.or([eb('end_time', 'is', null), eb('end_time', '>=', `${today} 00:00:00`)])])]),
    )
    .limit(1)
    .executeTakeFirst();
  return !!hit;
}

/** The draft: black, from today for a year, filed by nobody (the system), the reason listing the alarms. */
async function insertDraft(trx: Kysely<DB>, ctx: AppContext, kind: StrandedKind, subject: string, days: number, alarms: CountedAlarm[]): Promise<number> {
  const now = ctx.time();
  const today = dateOf(now);
  const common = {
    type: ListType.BLACK,
    start_time: `${today} 00:00:00`,
    end_time: `${addDays(today, REPEAT_OFFENDER_LIST_DAYS)} 23:59:59`,
    status: AppState.DRAFT,
    in_reason: offenderReason(days, alarms),
    create_user_id: null,
    update_user_id: null,
    create_time: now,
    update_time: now,
  };
  if (kind === 'car') {
    // The model of the newest alarm's visit, when it had one.
    const visit = alarms.find((a) => a.application_id !== null);
    const model = visit
      ? await trx
          .selectFrom('car_application as a')
          .innerJoin('vehicle_type as m', 'm.id', 'a.vehicle_type_id')
          .select('m.id')
          .where('a.car_application_id', '=', visit.application_id!)
          .where('m.deleted', '=', 0)
          .executeTakeFirst()
      : undefined;
    const row = await trx
      .insertInto('car_black_white_list')
      .values({ ...common, license_plate: subject, vehicle_type_id: model?.id ?? null })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }
  const name = alarms.find((a) => a.person_name)?.person_name ?? '';
  const row = await trx
    .insertInto('person_black_white_list')
    .values({ ...common, name, gender: null, idcard_type: isMainlandIdNumber(subject) ? 1 : null, idcard: subject, face_photo: '' })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The list's keepers (holders of its add code) learn of the draft, which their list opens. */
async function tellKeepers(trx: Kysely<DB>, ctx: AppContext, kind: StrandedKind, subject: string, id: number, count: number, days: number, submitted: boolean) {
  const list = lists[kind];
  const holders = await holdersOf(trx, list.add);
  const what = submitted ? '已提交审批' : '审批流程未能启动，请核实后提交';
  await notify(
    trx,
    ctx,
    holders.map((h) => ({
      userId: h.user_id,
      kind: NotificationKind.REPEAT_OFFENDER,
      title: '重复告警自动提报黑名单',
      body: `${list.word}${subject}在${days}天内${count}次告警经处理属实，系统已提报黑名单，${what}`,
      url: recordLink(menuRoutes.get(list.menu)?.route ?? '/', id),
      tag: `repeat-offender-${kind}-${id}`,
    })),
  );
}
