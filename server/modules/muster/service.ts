import type { Kysely, Transaction } from 'kysely';
import { AppState } from '../../../domain/appointments';
import { ErrorCode } from '../../../domain/errors';
import { isDocumentNumber, MOBILE_PATTERN, PLATE_PATTERN } from '../../../domain/identity';
import { maskIdNumber } from '../../../domain/personal-data';
import { NotificationKind } from '../../../domain/notifications';
import { ListType } from '../../../domain/registers';
import { enumLabel } from '../../../domain/enums';
import { verifyPass } from '../../../domain/pass';
import {
  MAX_MUSTER_SUBJECTS,
  NO_VISIT_GROUP,
  WHITE_GROUP,
  personInMark,
  type MusterCurrentAnswer,
  type MusterEvent,
  type MusterGroup,
  type MusterMarkInput,
  type MusterMarkMethod,
  type MusterReportAnswer,
  type MusterRow,
  type MusterSource,
  type MusterSubject,
} from '../../../domain/schemas/muster';
import type { AppContext, AuthContext } from '../../core/context';
import { isUniqueViolation } from '../../core/db-errors';
import { fail, notFound } from '../../core/errors';
import { notify } from '../../core/notify';
import { tableChanged } from '../../core/paging';
import { deliverWaitingSms, enqueueSms } from '../../core/sms-outbox';
import { afterCommit } from '../../core/transactions';
import type { DB } from '../../db/schema';
import type { PassKeys } from '../passes';

/**
 * The emergency headcount (docs/muster.md). Starting one takes a snapshot of
 * the open stays of the device API's presence (the last crossing was an
 * entry) in the chosen park: visitors with their visit, white-list staff,
 * and stays with neither. Marks set a row once; the timeline keeps every
 * start, mark and end for the report.
 */

type Db = Kysely<DB> | Transaction<DB>;

/** Rows per INSERT of the snapshot: well under PostgreSQL's 65,535 parameters at 12 columns. */
const INSERT_CHUNK = 500;
/** Phones per outbox row: a row is sent as one batch of parallel requests to the provider. */
const SMS_CHUNK = 200;

export const musterSmsText = (area: number, message: string, drill: boolean) => `【园区应急${drill ? '演练' : '通知'}】${enumLabel('visitArea', area)}：${message}`;

interface SnapshotRow {
  kind: 'person' | 'car';
  subject: string;
  name: string;
  phone: string;
  enterprise: string;
  gate: string;
  entry_time: string | null;
  source: MusterSource;
  application_number: string;
}

/** The parks a muster of `area` covers: one park's muster counts those visiting both (3) and those whose park is unknown. */
const areasOf = (area: number): number[] | null => (area === 3 ? null : [area, 3]);

/** Everyone and everything inside `area` now, with what a marshal needs to find and call them. */
async function snapshot(db: Db, area: number): Promise<SnapshotRow[]> {
  const areas = areasOf(area);
  let q = db
    .selectFrom('presence as p')
    .leftJoin('equipment as e', 'e.id', 'p.entry_device_id')
    .leftJoin('person_application as pa', (j) => j.onRef('pa.person_application_id', '=', 'p.application_id').on('p.kind', '=', 'person'))
    .leftJoin('car_application as ca', (j) => j.onRef('ca.car_application_id', '=', 'p.application_id').on('p.kind', '=', 'car'))
    .leftJoin('sys_department as d', (j) => j.on((eb) => eb.or([eb('d.depart_id', '=', eb.ref('pa.interviewee_depart_id')), eb('d.depart_id', '=', eb.ref('ca.interviewee_depart_id'))])))
    .select([
      'p.kind',
      'p.subject',
      'p.entry_time',
      'p.application_id',
      'e.name as gate',
      'pa.visitor_name',
      'pa.visitor_phone',
      'pa.application_number as pa_number',
      'ca.applicant_name',
      'ca.applicant_phone',
      'ca.application_number as ca_number',
      'd.name as enterprise',
    ])
    .where('p.exit_time', 'is', null);
  if (areas) {
    q = q.where((eb) => eb.or([eb('p.visit_area', 'in', areas), eb.and([eb('p.visit_area', 'is', null), eb.or([eb('e.entrances_type', 'in', areas), eb('e.entrances_type', 'is', null)])])]));
  }
  const stays = await q
    .orderBy('p.entry_time')
    .limit(MAX_MUSTER_SUBJECTS + 1)
    .execute();
  if (stays.length > MAX_MUSTER_SUBJECTS) fail(ErrorCode.STATE_CONFLICT, `在园人员和车辆超过${MAX_MUSTER_SUBJECTS}，请按园区分别发起清点`);

  // Stays without a visit: white-list staff by name, the rest as they are.
  const bare = stays.filter((s) => s.application_id === null);
  const whitePersons = new Map<string, string>();
  const whiteCars = new Set<string>();
  const ids = bare.filter((s) => s.kind === 'person').map((s) => s.subject);
  const plates = bare.filter((s) => s.kind === 'car').map((s) => s.subject);
  for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
    const rows = await db
      .selectFrom('person_black_white_list')
      .select(['idcard', 'name'])
      .where('idcard', 'in', ids.slice(i, i + INSERT_CHUNK))
      .where('type', '=', ListType.WHITE)
      .where('status', '=', AppState.APPROVED)
      .where('deleted', '=', 0)
      .execute();
    for (const r of rows) whitePersons.set(r.idcard, r.name);
  }
  for (let i = 0; i < plates.length; i += INSERT_CHUNK) {
    const rows = await db
      .selectFrom('car_black_white_list')
      .select('license_plate')
      .where('license_plate', 'in', plates.slice(i, i + INSERT_CHUNK))
      .where('type', '=', ListType.WHITE)
      .where('status', '=', AppState.APPROVED)
      .where('deleted', '=', 0)
      .execute();
    for (const r of rows) whiteCars.add(r.license_plate);
  }

  return stays.map((s): SnapshotRow => {
    const kind = s.kind === 'car' ? 'car' : 'person';
    const visit = s.application_id !== null;
    const white = !visit && (kind === 'person' ? whitePersons.has(s.subject) : whiteCars.has(s.subject));
    return {
      kind,
      subject: s.subject,
      name: (kind === 'person' ? (s.visitor_name ?? whitePersons.get(s.subject)) : s.applicant_name) ?? '',
      phone: (kind === 'person' ? s.visitor_phone : s.applicant_phone) ?? '',
      enterprise: visit ? (s.enterprise ?? NO_VISIT_GROUP) : white ? WHITE_GROUP : NO_VISIT_GROUP,
      gate: s.gate ?? '',
      entry_time: s.entry_time,
      source: visit ? 'visit' : white ? 'white' : 'none',
      application_number: (kind === 'person' ? s.pa_number : s.ca_number) ?? '',
    };
  });
}

const musterColumns = ['id', 'visit_area', 'drill', 'message', 'started_at', 'started_by_name', 'ended_at', 'ended_by_name', 'sms_count'] as const;

type MusterBase = Omit<MusterRow, 'total' | 'accounted'> & { sms_count: number };

async function musterBase(db: Db, id: number): Promise<MusterBase> {
  return (
    (await db
      .selectFrom('muster')
      .select([...musterColumns])
      .where('id', '=', id)
      .executeTakeFirst()) ?? notFound('应急清点')
  );
}

const rowOf = ({ sms_count: _sms, ...m }: MusterBase, total: number, accounted: number): MusterRow => ({ ...m, total, accounted });

interface Tally {
  total: number;
  accounted: number;
  groups: MusterGroup[];
  gates: MusterCurrentAnswer['gates'];
}

/**
 * The board's counts from one pass over the muster's rows (grouped by
 * enterprise, gate and kind): per enterprise, most unaccounted first (where
 * the marshals are needed), per gate of entry, and the totals.
 */
async function tally(db: Db, musterId: number): Promise<Tally> {
  const rows = await db
    .selectFrom('muster_subject')
    .select(['enterprise', 'gate', 'kind'])
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.count<number>('marked_at').as('marked')])
    .where('muster_id', '=', musterId)
    .groupBy(['enterprise', 'gate', 'kind'])
    .execute();
  const groups = new Map<string, MusterGroup>();
  const gates = new Map<string, { gate: string; persons: number; vehicles: number; unaccounted: number }>();
  let total = 0;
  let accounted = 0;
  for (const r of rows) {
    const n = Number(r.n);
    const marked = Number(r.marked);
    total += n;
    accounted += marked;
    const g = groups.get(r.enterprise) ?? { enterprise: r.enterprise, persons: 0, persons_accounted: 0, vehicles: 0, vehicles_accounted: 0 };
    const name = r.gate || '未知道闸';
    const gate = gates.get(name) ?? { gate: name, persons: 0, vehicles: 0, unaccounted: 0 };
    if (r.kind === 'car') {
      g.vehicles += n;
      g.vehicles_accounted += marked;
      gate.vehicles += n;
    } else {
      g.persons += n;
      g.persons_accounted += marked;
      gate.persons += n;
    }
    gate.unaccounted += n - marked;
    groups.set(r.enterprise, g);
    gates.set(name, gate);
  }
  const open = (g: MusterGroup) => g.persons - g.persons_accounted + g.vehicles - g.vehicles_accounted;
  return {
    total,
    accounted,
    groups: [...groups.values()].sort((a, b) => open(b) - open(a) || a.enterprise.localeCompare(b.enterprise, 'zh-CN')),
    gates: [...gates.values()].sort((a, b) => b.unaccounted - a.unaccounted || a.gate.localeCompare(b.gate, 'zh-CN')),
  };
}

/** The muster under way and its board; `muster` null when none runs. */
export async function currentMuster(db: Db): Promise<MusterCurrentAnswer> {
  const running = await db.selectFrom('muster').select('id').where('running', '=', 1).executeTakeFirst();
  if (!running) return { muster: null, groups: [], gates: [], sms_count: 0 };
  return boardOf(db, running.id);
}

export async function boardOf(db: Db, id: number): Promise<MusterCurrentAnswer> {
  const base = await musterBase(db, id);
  const t = await tally(db, id);
  return { muster: rowOf(base, t.total, t.accounted), groups: t.groups, gates: t.gates, sms_count: base.sms_count };
}

const subjectColumns = [
  'id',
  'kind',
  'subject',
  'name',
  'phone',
  'enterprise',
  'gate',
  'entry_time',
  'source',
  'application_number',
  'marked_at',
  'marked_by_name',
  'mark_place',
  'mark_method',
] as const;

/** A row as answered: a person's ID number masked (the list goes to every marshal's phone), a plate as it is. */
function answered(r: Record<(typeof subjectColumns)[number], unknown>): MusterSubject {
  const kind = r.kind === 'car' ? 'car' : 'person';
  return { ...(r as unknown as MusterSubject), kind, subject: kind === 'person' ? maskIdNumber(String(r.subject)) : String(r.subject) };
}

export async function subjectsOf(db: Db, musterId: number, onlyOpen = false): Promise<MusterSubject[]> {
  let q = db
    .selectFrom('muster_subject')
    .select([...subjectColumns])
    .where('muster_id', '=', musterId);
  if (onlyOpen) q = q.where('marked_at', 'is', null);
  const rows = await q.orderBy('enterprise').orderBy('kind', 'desc').orderBy('id').execute();
  return rows.map(answered);
}

export async function isRunning(db: Db, musterId: number): Promise<boolean> {
  const row = (await db.selectFrom('muster').select('running').where('id', '=', musterId).executeTakeFirst()) ?? notFound('应急清点');
  return row.running === 1;
}

async function addEvent(trx: Db, e: { muster_id: number; type: MusterEvent['type']; at: string; user: AuthContext; place?: string; subject_id?: number; text: string }) {
  await trx
    .insertInto('muster_event')
    .values({ muster_id: e.muster_id, type: e.type, at: e.at, user_id: e.user.userId, user_name: e.user.userName, place: e.place ?? '', subject_id: e.subject_id ?? null, text: e.text.slice(0, 300) })
    .execute();
}

const areaText = (area: number) => enumLabel('visitArea', area);

/**
 * Starts a muster in the caller's transaction: the snapshot, the SMS to
 * everyone inside with a mobile number (outbox rows, sent after commit by
 * deliverMusterSms), a push to every enabled user, and the timeline's start.
 * A muster already running, started here or on another server, is a 409.
 */
export async function startMuster(trx: Transaction<DB>, ctx: AppContext, auth: AuthContext, input: { visit_area: number; drill: number; message: string }): Promise<number> {
  const now = ctx.time();
  const running = await trx.selectFrom('muster').select(['started_by_name', 'started_at']).where('running', '=', 1).executeTakeFirst();
  if (running) fail(ErrorCode.STATE_CONFLICT, `已有应急清点正在进行（${running.started_by_name}于${running.started_at}发起），请先结束后再发起`);
  let id: number;
  try {
    id = (
      await trx
        .insertInto('muster')
        .values({ visit_area: input.visit_area, drill: input.drill, message: input.message, running: 1, started_at: now, started_by: auth.userId, started_by_name: auth.userName })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  } catch (err) {
    // Another server's start committed between the check and this insert (PostgreSQL): the unique index refuses the second.
    if (isUniqueViolation(err)) fail(ErrorCode.STATE_CONFLICT, '已有应急清点正在进行，请先结束后再发起');
    throw err;
  }
  const rows = await snapshot(trx, input.visit_area);
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await trx
      .insertInto('muster_subject')
      .values(rows.slice(i, i + INSERT_CHUNK).map((r) => ({ ...r, muster_id: id })))
      .execute();
  }
  const drill = input.drill === 1;
  const text = musterSmsText(input.visit_area, input.message, drill);
  const phones = [...new Set(rows.map((r) => r.phone.trim()).filter((p) => MOBILE_PATTERN.test(p)))];
  for (let i = 0; i < phones.length; i += SMS_CHUNK) {
    await enqueueSms(
      trx,
      'muster',
      id,
      phones.slice(i, i + SMS_CHUNK).map((phone) => ({ phone, account: '', text, time: now })),
      ctx.now(),
    );
  }
  await trx.updateTable('muster').set({ sms_count: phones.length }).where('id', '=', id).execute();
  const users = await trx.selectFrom('sys_user').select('user_id').where('deleted', '=', 0).where('status', '=', 1).execute();
  const title = drill ? `应急演练：${areaText(input.visit_area)}` : `应急清点：${areaText(input.visit_area)}`;
  await notify(
    trx,
    ctx,
    users.map((u) => ({ userId: u.user_id, kind: NotificationKind.MUSTER, title, body: input.message, url: '/security/muster', tag: `muster-${id}` })),
  );
  await addEvent(trx, {
    muster_id: id,
    type: 'start',
    at: now,
    user: auth,
    text: `${auth.userName}发起${drill ? '应急演练' : '应急清点'}（${areaText(input.visit_area)}），在园人员${rows.filter((r) => r.kind === 'person').length}人、车辆${rows.filter((r) => r.kind === 'car').length}辆，短信通知${phones.length}人`,
  });
  afterCommit(trx, () => tableChanged('muster'));
  return id;
}

/** A person or vehicle as a mark names them: its kind, stored subject, and the name to file a person not on the list under. */
interface Named {
  kind: 'person' | 'car';
  subject: string;
  name: string;
  application_number: string;
}

async function namedByPass(db: Db, keys: PassKeys, scanned: string, now: string): Promise<Named> {
  const check = await verifyPass(scanned, { kid: keys.kid, key: keys.verifyKey }, now);
  if (!check.payload || check.status === 'forged') fail(ErrorCode.VALIDATION, check.status === 'unknown-key' ? '通行码：不是本园区签发的通行码' : '通行码：无效（签名校验失败或不是园区通行码）');
  const p = check.payload!;
  if (p.kind === 'car') {
    const a = await db.selectFrom('car_application').select(['license_plate', 'applicant_name']).where('application_number', '=', p.number).executeTakeFirst();
    if (!a) return notFound('通行码对应的预约');
    return { kind: 'car', subject: a.license_plate, name: a.applicant_name, application_number: p.number };
  }
  const a = await db.selectFrom('person_application').select(['visitor_idcard', 'visitor_name']).where('application_number', '=', p.number).executeTakeFirst();
  if (!a) return notFound('通行码对应的预约');
  return { kind: 'person', subject: a.visitor_idcard, name: a.visitor_name, application_number: p.number };
}

/**
 * Marks one person or vehicle safe. The first mark of a row stands: a second
 * (another marshal, or the same mark sent again) answers `already`. A person
 * or vehicle not on the list, named by an ID number, plate or pass, is added
 * as found at the assembly point. A mark made offline keeps its own time,
 * provided it falls within the muster; one that reaches the server after the
 * end is still taken if it was made before the end.
 */
export async function markSafe(trx: Transaction<DB>, ctx: AppContext, keys: PassKeys, auth: AuthContext, input: MusterMarkInput & { method: MusterMarkMethod; muster_id: number; place: string }) {
  const m = (await trx.selectFrom('muster').select(['id', 'running', 'started_at', 'ended_at']).where('id', '=', input.muster_id).executeTakeFirst()) ?? notFound('应急清点');
  const now = ctx.time();
  let at = now;
  if (input.marked_at) {
    if (input.marked_at < m.started_at) fail(ErrorCode.VALIDATION, `标记时间：不能早于清点开始时间（${m.started_at}）`);
    // A phone whose clock runs ahead of the server's cannot mark in the future: such a mark is taken as now.
    at = input.marked_at > now ? now : input.marked_at;
  }
  // After the end only a mark that carries its own earlier time (made offline, synced late) is taken.
  if (m.ended_at !== null && (!input.marked_at || at > m.ended_at)) fail(ErrorCode.STATE_CONFLICT, `该应急清点已于${m.ended_at}结束，不能再标记`);

  let row: { id: number } | undefined;
  let named: Named | undefined;
  if (input.method === 'list') {
    row = await trx.selectFrom('muster_subject').select('id').where('id', '=', Number(input.subject_id)).where('muster_id', '=', m.id).executeTakeFirst();
    if (!row) fail(ErrorCode.VALIDATION, '人员：不在本次清点名单中，请重新选择');
  } else {
    if (input.method === 'pass') named = await namedByPass(trx, keys, String(input.pass), now);
    else if (input.method === 'idcard') {
      const id = String(input.idcard).toUpperCase();
      if (!isDocumentNumber(id)) fail(ErrorCode.VALIDATION, '证件号码：格式不正确（身份证号为18位且校验码正确，其他证件为5-30位字母数字）');
      named = { kind: 'person', subject: id, name: '', application_number: '' };
    } else {
      const plate = String(input.license_plate).toUpperCase();
      if (!PLATE_PATTERN.test(plate)) fail(ErrorCode.VALIDATION, '车牌号：格式不正确');
      named = { kind: 'car', subject: plate, name: '', application_number: '' };
    }
    row = await trx
      .selectFrom('muster_subject')
      .select('id')
      .where('muster_id', '=', m.id)
      .where('kind', '=', named!.kind)
      .where('subject', '=', named!.subject)
      .where('anonymised_at', 'is', null)
      .executeTakeFirst();
  }

  if (!row && named) {
    // Found at an assembly point but not inside by the gates' records: a tailgater, or a gate that missed them.
    try {
      row = await trx
        .insertInto('muster_subject')
        .values({ muster_id: m.id, kind: named.kind, subject: named.subject, name: named.name, enterprise: '名单外到场', source: 'extra', application_number: named.application_number })
        .returning('id')
        .executeTakeFirstOrThrow();
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      row = await trx
        .selectFrom('muster_subject')
        .select('id')
        .where('muster_id', '=', m.id)
        .where('kind', '=', named.kind)
        .where('subject', '=', named.subject)
        .where('anonymised_at', 'is', null)
        .executeTakeFirstOrThrow();
    }
  }
  const subjectId = row!.id;
  const marked = await trx
    .updateTable('muster_subject')
    .set({ marked_at: at, marked_by: auth.userId, marked_by_name: auth.userName, mark_place: input.place, mark_method: input.method })
    .where('id', '=', subjectId)
    .where('marked_at', 'is', null)
    .executeTakeFirst();
  const already = Number(marked.numUpdatedRows) === 0;
  const subject = answered(
    (await trx
      .selectFrom('muster_subject')
      .select([...subjectColumns])
      .where('id', '=', subjectId)
      .executeTakeFirstOrThrow()) as never,
  );
  if (!already) {
    const who = subject.kind === 'car' ? `车辆${subject.subject}` : personInMark(subject.name, subject.subject);
    await addEvent(trx, {
      muster_id: m.id,
      type: 'mark',
      at,
      user: auth,
      place: input.place,
      subject_id: subjectId,
      text: `${auth.userName}在${input.place}标记${who}已到达${subject.source === 'extra' ? '（名单外）' : ''}`,
    });
    afterCommit(trx, () => tableChanged('muster_subject'));
  }
  return { subject, already };
}

/** Ends the running muster; a muster already ended (here or on another server) is a 409. */
export async function endMuster(trx: Transaction<DB>, ctx: AppContext, auth: AuthContext, id: number): Promise<void> {
  const now = ctx.time();
  const r = await trx.updateTable('muster').set({ running: null, ended_at: now, ended_by: auth.userId, ended_by_name: auth.userName }).where('id', '=', id).where('running', '=', 1).executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) {
    const m = (await trx.selectFrom('muster').select('ended_at').where('id', '=', id).executeTakeFirst()) ?? notFound('应急清点');
    fail(ErrorCode.STATE_CONFLICT, `该应急清点已于${m.ended_at ?? ''}结束`);
  }
  const open = await trx
    .selectFrom('muster_subject')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('muster_id', '=', id)
    .where('marked_at', 'is', null)
    .executeTakeFirst();
  await addEvent(trx, { muster_id: id, type: 'end', at: now, user: auth, text: `${auth.userName}结束清点，未清点${Number(open?.n ?? 0)}人/辆` });
  afterCommit(trx, () => tableChanged('muster'));
}

export async function reportOf(db: Db, id: number): Promise<MusterReportAnswer> {
  const base = await musterBase(db, id);
  const t = await tally(db, id);
  const events = (await db.selectFrom('muster_event').select(['id', 'type', 'at', 'user_name', 'place', 'text']).where('muster_id', '=', id).orderBy('at').orderBy('id').execute()) as MusterEvent[];
  return { muster: rowOf(base, t.total, t.accounted), events, unaccounted: await subjectsOf(db, id, true), groups: t.groups };
}

export async function musterPage(db: Db, q: { size: number; pn: number; visit_area?: number; drill?: number }) {
  let base = db.selectFrom('muster');
  if (q.visit_area !== undefined) base = base.where('visit_area', '=', q.visit_area);
  if (q.drill !== undefined) base = base.where('drill', '=', q.drill);
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  const rows = await base
    .select([...musterColumns])
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(q.size)
    .offset((q.pn - 1) * q.size)
    .execute();
  // The page's counts in one grouped read over its musters.
  const counts = new Map(
    rows.length
      ? (
          await db
            .selectFrom('muster_subject')
            .select(['muster_id'])
            .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.count<number>('marked_at').as('marked')])
            .where(
              'muster_id',
              'in',
              rows.map((r) => r.id),
            )
            .groupBy('muster_id')
            .execute()
        ).map((c) => [c.muster_id, c])
      : [],
  );
  return { list: rows.map((r) => rowOf(r, Number(counts.get(r.id)?.n ?? 0), Number(counts.get(r.id)?.marked ?? 0))), total: Number(total?.n ?? 0) };
}

/**
 * Sends a muster's waiting SMS rows, each once (core/sms-outbox.ts: the
 * server whose claim succeeds sends it). Called after the start commits, and
 * by the minute pass for rows a stopped server left waiting. Answers how
 * many rows this call sent.
 */
export function deliverMusterSms(ctx: AppContext, musterId?: number, olderThanMs = 0): Promise<number> {
  return deliverWaitingSms(ctx, 'muster', { originId: musterId, olderThanMs });
}
