import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { enumLabel, type EnumName } from '../../domain/enums';
import { ErrorCode } from '../../domain/errors';
import { piiApi, type RevealRecord } from '../../domain/schemas/pii';
import { anonymiseName, maskIdNumber, maskPhone } from '../../domain/personal-data';
import { retentionClasses, retentionCutoff } from '../../domain/retention';
import { xlsxExports, type ExportSheet } from '../core/xlsx-export';
import { anonymisers, releaseFiles, type BatchResult } from './retention/classes';
import { fileNamesIn } from '../core/file-refs';
import { AppState } from '../../domain/appointments';
import { removeFreed } from './retention/run';
import type { AuthContext } from '../core/context';
import { fail, ok } from '../core/errors';
import { answerInClear } from '../core/personal-data';
import { route } from '../core/route';
import type { DB } from '../db/schema';
import { anyReadable, type RecordKind } from './access';

/**
 * 个人信息保护 (domain/schemas/pii.ts): one masked field of one record,
 * whole, to a holder of pii:view who may read the record by its own rule and
 * gives a reason. The call's operation-log entry keeps who, which field of
 * which record, and the reason (the declared operation logs the body).
 */

type Db = Kysely<DB>;

/** Where each revealable record lives, and whose read rule decides (modules/access.ts). */
const sources: Record<RevealRecord, { table: keyof DB; key: string; readAs: (db: Db, id: number) => Promise<{ kind: RecordKind; id: number } | null> }> = {
  car_application: { table: 'car_application', key: 'car_application_id', readAs: async (_db, id) => ({ kind: 'car_application', id }) },
  // A car's driver or passenger is read through the application that carries them.
  car_person: {
    table: 'car_person',
    key: 'car_person_id',
    readAs: async (db, id) => {
      const row = await db.selectFrom('car_person').select('car_application_id').where('car_person_id', '=', id).executeTakeFirst();
      return row ? { kind: 'car_application', id: row.car_application_id } : null;
    },
  },
  person_application: { table: 'person_application', key: 'person_application_id', readAs: async (_db, id) => ({ kind: 'person_application', id }) },
  person_black_white_list: { table: 'person_black_white_list', key: 'id', readAs: async (_db, id) => ({ kind: 'person_black_white_list', id }) },
  vehicle_registration: { table: 'vehicle_registration', key: 'id', readAs: async (_db, id) => ({ kind: 'vehicle_registration', id }) },
  transport_list: { table: 'transport_list', key: 'id', readAs: async (_db, id) => ({ kind: 'transport_list', id }) },
  gate_record_person: { table: 'gate_record_person', key: 'id', readAs: async (_db, id) => ({ kind: 'gate_record_person', id }) },
  user: { table: 'sys_user', key: 'user_id', readAs: async (_db, id) => ({ kind: 'user', id }) },
};

/** The stored value of one revealable field, or null when the record is absent or not the caller's to read. */
export async function revealField(db: Db, auth: AuthContext, record: RevealRecord, id: number, field: string): Promise<string | null> {
  const source = sources[record];
  const readAs = await source.readAs(db, id);
  if (!readAs || !(await anyReadable(db, auth, readAs.kind, [readAs.id]))) return null;
  // The field is one of revealableFields[record] (the input's rule), so it is a column of the table.
  const row = (await (db as Kysely<any>).selectFrom(source.table).select(field).where(source.key, '=', id).executeTakeFirst()) as Record<string, unknown> | undefined;
  if (!row) return null;
  const value = row[field];
  return typeof value === 'string' ? value : value == null ? '' : String(value);
}

/** Rows a page: each page is its own short query on the ID number's index, so a person with years of crossings costs no memory. */
const SUBJECT_PAGE = 500;

type AnyRow = Record<string, any>;
const label = (name: EnumName) => (v: unknown) => (v === null || v === undefined || v === '' ? '' : enumLabel(name, v as number));

/** Pages of a query ordered by `key` ascending, after the last key seen. */
function keyset(db: Db, build: (db: Kysely<any>) => any, key: string) {
  return async function* pages(): AsyncIterable<AnyRow[]> {
    let after: number | null = null;
    for (;;) {
      let q = build(db as Kysely<any>);
      if (after !== null) q = q.where(key, '>', after);
      const rows = (await q.orderBy(key).limit(SUBJECT_PAGE).execute()) as AnyRow[];
      if (rows.length) yield rows;
      if (rows.length < SUBJECT_PAGE) return;
      after = Number(rows[rows.length - 1]![key.split('.').pop()!.split(' as ').pop()!]);
    }
  };
}

const sheet = (name: string, columns: Array<[string, (r: AnyRow) => unknown]>, pages: () => AsyncIterable<AnyRow[]>): ExportSheet<AnyRow> => ({
  sheet: name,
  columns: columns.map(([header, cell]) => ({ header, cell })),
  pages,
});

/**
 * Everything the park holds about the holder of one ID number, one sheet per
 * kind of record, numbers whole: it is the person's own copy (PIPL art. 45).
 * Each sheet reads on its table's ID-number index.
 */
async function subjectSheets(db: Db, idcard: string): Promise<Array<ExportSheet<AnyRow>>> {
  const plates = (await db.selectFrom('car_application').select('license_plate').distinct().where('applicant_idcard', '=', idcard).execute()).map((r) => r.license_plate);
  return [
    sheet(
      '人员预约',
      [
        ['申请单号', (r) => r.application_number],
        ['访客姓名', (r) => r.visitor_name],
        ['证件号码', (r) => r.visitor_idcard],
        ['手机号', (r) => r.visitor_phone],
        ['来访单位', (r) => r.visitor_company],
        ['来访开始时间', (r) => r.visit_begin_time],
        ['来访结束时间', (r) => r.visit_end_time],
        ['被访人', (r) => r.interviewee_name],
        ['状态', (r) => label('applicationState')(r.state)],
        ['创建时间', (r) => r.create_time],
      ],
      keyset(db, (k) => k.selectFrom('person_application').selectAll().where('visitor_idcard', '=', idcard), 'person_application_id'),
    ),
    sheet(
      '车辆预约',
      [
        ['申请单号', (r) => r.application_number],
        ['车牌号', (r) => r.license_plate],
        ['申请人姓名', (r) => r.applicant_name],
        ['证件号码', (r) => r.applicant_idcard],
        ['手机号', (r) => r.applicant_phone],
        ['来访单位', (r) => r.visitor_company],
        ['来访开始时间', (r) => r.visitor_begin_time],
        ['来访结束时间', (r) => r.visitor_end_time],
        ['状态', (r) => label('applicationState')(r.state)],
        ['创建时间', (r) => r.create_time],
      ],
      keyset(db, (k) => k.selectFrom('car_application').selectAll().where('applicant_idcard', '=', idcard), 'car_application_id'),
    ),
    sheet(
      '车辆预约司乘人员',
      [
        ['申请单号', (r) => r.application_number],
        ['车牌号', (r) => r.license_plate],
        ['姓名', (r) => r.name],
        ['证件号码', (r) => r.id_card],
        ['手机号', (r) => r.phone],
        ['从业资格证号', (r) => r.pqc_number],
      ],
      keyset(
        db,
        (k) =>
          k
            .selectFrom('car_person as p')
            .innerJoin('car_application as a', 'a.car_application_id', 'p.car_application_id')
            .select(['p.car_person_id', 'p.name', 'p.id_card', 'p.phone', 'p.pqc_number', 'a.application_number', 'a.license_plate'])
            .where('p.id_card', '=', idcard),
        'p.car_person_id',
      ),
    ),
    sheet(
      '人员过闸记录',
      [
        ['抓拍时间', (r) => r.capture_time],
        ['姓名', (r) => r.person_name],
        ['证件号码', (r) => r.idcard],
        ['设备名称', (r) => r.device_name],
        ['进出方向', (r) => label('gateDirection')(r.direction)],
        ['开闸结果', (r) => label('gateOpenResult')(r.open_result)],
      ],
      keyset(
        db,
        (k) =>
          k
            .selectFrom('gate_record_person as g')
            .leftJoin('equipment as e', 'e.id', 'g.device_id')
            .select(['g.id', 'g.capture_time', 'g.person_name', 'g.idcard', 'g.direction', 'g.open_result', 'e.name as device_name'])
            .where('g.idcard', '=', idcard),
        'g.id',
      ),
    ),
    sheet(
      '人员黑白名单',
      [
        ['姓名', (r) => r.name],
        ['证件号码', (r) => r.idcard],
        ['名单类型', (r) => label('blackWhiteType')(r.type)],
        ['开始时间', (r) => r.start_time],
        ['结束时间', (r) => r.end_time],
        ['状态', (r) => label('applicationState')(r.status)],
        ['原因', (r) => r.in_reason],
        ['创建时间', (r) => r.create_time],
      ],
      keyset(db, (k) => k.selectFrom('person_black_white_list').selectAll().where('idcard', '=', idcard), 'id'),
    ),
    sheet(
      '人员批量导入',
      [
        ['导入任务', (r) => r.task_id],
        ['行号', (r) => r.row_no],
        ['姓名', (r) => r.name],
        ['证件号码', (r) => r.idcard],
        ['申请单号', (r) => r.application_number ?? ''],
        ['原因', (r) => r.error],
        ['时间', (r) => r.create_time],
      ],
      keyset(db, (k) => k.selectFrom('person_import_row').selectAll().where('idcard', '=', idcard), 'id'),
    ),
    sheet(
      '应急清点名单',
      [
        ['清点开始时间', (r) => r.started_at],
        ['姓名', (r) => r.name],
        ['证件号码', (r) => r.subject],
        ['手机号', (r) => r.phone],
        ['所属单位', (r) => r.enterprise],
        ['入园道闸', (r) => r.gate],
        ['入园时间', (r) => r.entry_time],
        ['到达时间', (r) => r.marked_at],
        ['集合点', (r) => r.mark_place],
      ],
      // An anonymised row holds the number masked: the person's rows are those not yet anonymised.
      keyset(
        db,
        (k) =>
          k
            .selectFrom('muster_subject as s')
            .innerJoin('muster as m', 'm.id', 's.muster_id')
            .select(['s.id', 'm.started_at', 's.name', 's.subject', 's.phone', 's.enterprise', 's.gate', 's.entry_time', 's.marked_at', 's.mark_place'])
            .where('s.subject', '=', idcard)
            .where('s.kind', '=', 'person')
            .where('s.anonymised_at', 'is', null),
        's.id',
      ),
    ),
    sheet(
      '车辆标记',
      [
        ['车牌号', (r) => r.license_plate],
        ['来访单位', (r) => r.visitor_company],
        ['标记说明', (r) => r.remark],
        ['创建时间', (r) => r.create_time],
      ],
      // Marks are on plates: those of the vehicles this person booked.
      plates.length ? keyset(db, (k) => k.selectFrom('vehicle_mark').selectAll().where('license_plate', 'in', plates.slice(0, 500)), 'id') : async function* () {},
    ),
  ];
}

/**
 * Anonymises now everything held about the holder of one ID number, black-list entries in force aside (they keep
 * the person out of the park, which security needs whole), in one
 * transaction, except what a legal minimum keeps whole for now: crossings
 * younger than the gate records' minimum (GB 50396), waybills younger than
 * theirs, list entries in force, and the list of a muster still running.
 * Answers the counts, and the files no record holds any more, to remove
 * after commit.
 */
async function anonymiseSubject(trx: Db, idcard: string, now: string) {
  const counts: Array<{ record: string; rows: number }> = [];
  const kept: Array<{ record: string; rows: number; rule: string }> = [];
  const freed: BatchResult = { rows: 0, files: [], zips: [] };
  const take = (record: string, ...done: BatchResult[]) => {
    counts.push({ record, rows: Math.max(0, ...done.map((d) => d.rows)) });
    for (const d of done) freed.files.push(...d.files);
  };
  const ids = async (q: Promise<Array<{ id: number }>>) => (await q).map((r) => r.id);

  const persons = await ids(trx.selectFrom('person_application').select('person_application_id as id').where('visitor_idcard', '=', idcard).execute());
  take('人员预约', await anonymisers.personPhotos(trx, persons, now), await anonymisers.personFields(trx, persons, now));
  const cars = await ids(trx.selectFrom('car_application').select('car_application_id as id').where('applicant_idcard', '=', idcard).execute());
  take('车辆预约', await anonymisers.carPhotos(trx, cars, now), await anonymisers.carFields(trx, cars, now));
  const riders = await ids(trx.selectFrom('car_person').select('car_person_id as id').where('id_card', '=', idcard).execute());
  counts.push({ record: '车辆预约司乘人员', rows: await anonymisers.carPersons(trx, riders) });

  const entries = await trx.selectFrom('person_black_white_list').select(['id', 'status', 'end_time', 'deleted']).where('idcard', '=', idcard).execute();
  const inForce = entries.filter((e) => e.deleted === 0 && e.status === AppState.APPROVED && (e.end_time === null || e.end_time >= now));
  const listIds = entries.filter((e) => !inForce.includes(e)).map((e) => e.id);
  take('人员黑白名单', await anonymisers.listPhotos(trx, listIds, now), await anonymisers.listFields(trx, listIds, now));
  if (inForce.length) kept.push({ record: '人员黑白名单', rows: inForce.length, rule: '生效中的名单：园区安全管理需要，失效后按数据保留期限匿名化' });

  const imported = await trx
    .updateTable('person_import_row')
    .set({ idcard: maskIdNumber(idcard), name: '' })
    .where('idcard', '=', idcard)
    .executeTakeFirst();
  counts.push({ record: '人员批量导入', rows: Number(imported.numUpdatedRows) });

  // A running muster's list is what the marshals call people by (docs/muster.md): it waits for the muster's end.
  const mustered = await trx
    .selectFrom('muster_subject as s')
    .innerJoin('muster as m', 'm.id', 's.muster_id')
    .select(['s.id', 'm.ended_at'])
    .where('s.subject', '=', idcard)
    .where('s.kind', '=', 'person')
    .where('s.anonymised_at', 'is', null)
    .execute();
  const musterEnded = mustered.filter((r) => r.ended_at !== null).map((r) => r.id);
  take('应急清点名单', await anonymisers.musterSubjects(trx, musterEnded, now));
  if (mustered.length > musterEnded.length) kept.push({ record: '应急清点名单', rows: mustered.length - musterEnded.length, rule: '进行中的应急清点：清点结束后按数据保留期限匿名化' });

  const gate = retentionClasses.gate_rows.minimum!;
  const gateCutoff = retentionCutoff(now, gate.days);
  const crossings = await trx.selectFrom('gate_record_person').select(['id', 'person_name', 'snapshot', 'capture_time']).where('idcard', '=', idcard).execute();
  const oldCrossings = crossings.filter((c) => c.capture_time < gateCutoff);
  for (const c of oldCrossings) {
    await trx
      .updateTable('gate_record_person')
      .set({ person_name: anonymiseName(c.person_name), idcard: maskIdNumber(idcard), snapshot: '' })
      .where('id', '=', c.id)
      .execute();
  }
  const snapshots = fileNamesIn(...oldCrossings.map((c) => c.snapshot));
  freed.files.push(
    ...(await releaseFiles(
      trx,
      'gate_record_person',
      oldCrossings.map((c) => c.id),
      snapshots,
    )),
  );
  counts.push({ record: '人员过闸记录', rows: oldCrossings.length });
  if (crossings.length > oldCrossings.length) kept.push({ record: '人员过闸记录', rows: crossings.length - oldCrossings.length, rule: `${gate.days} 天内的过闸记录（${gate.short}）` });

  const waybill = retentionClasses.waybills.minimum!;
  const waybillCutoff = retentionCutoff(now, waybill.days);
  for (const role of ['driver', 'supercargo'] as const) {
    const cert = `${role}_qualification_certificate` as const;
    const rows = await trx
      .selectFrom('transport_list')
      .select(['id', role, `${role}_phone`, 'create_time'])
      .where(cert, '=', idcard)
      .execute();
    const old = rows.filter((r) => r.create_time < waybillCutoff);
    for (const r of old) {
      const row = r as unknown as Record<string, string>;
      await trx
        .updateTable('transport_list')
        .set({ [role]: anonymiseName(row[role] ?? ''), [cert]: maskIdNumber(idcard), [`${role}_phone`]: maskPhone(row[`${role}_phone`] ?? '') })
        .where('id', '=', r.id)
        .execute();
    }
    counts.push({ record: role === 'driver' ? '运单（驾驶员）' : '运单（押运员）', rows: old.length });
    if (rows.length > old.length) kept.push({ record: role === 'driver' ? '运单（驾驶员）' : '运单（押运员）', rows: rows.length - old.length, rule: waybill.short });
  }
  return { counts, kept, freed };
}

export async function piiRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const sendXlsx = xlsxExports(app);

  route(app, piiApi.subjectAnonymise, async (req) => {
    const { idcard } = req.body;
    const now = app.ctx.time();
    const done = await db.transaction().execute((trx) => anonymiseSubject(trx, idcard, now));
    // The photos and snapshots go once the rows no longer name them, and only those no other record holds.
    await removeFreed(app.ctx, done.freed);
    return ok({ idcard_masked: maskIdNumber(idcard), counts: done.counts, kept: done.kept }, '已匿名化');
  });

  route(app, piiApi.subjectExport, async (req, reply) => {
    const { idcard } = req.body;
    const [first, ...more] = await subjectSheets(db, idcard);
    const day = app.ctx.time().slice(0, 10).replace(/-/g, '');
    return sendXlsx(req, reply, { ...first!, more, inFull: true, fileName: `个人信息_尾号${idcard.slice(-4)}_${day}.xlsx`, fallback: `personal-data_${day}.xlsx` });
  });

  route(app, piiApi.reveal, async (req) => {
    const { record, id, field } = req.body;
    const value = await revealField(db, req.auth!, record, id, field);
    // The same answer for "absent" and "not yours".
    if (value === null) fail(ErrorCode.NOT_FOUND, '记录不存在或无权查看');
    answerInClear(req);
    return ok({ value: value! }, '已记录本次查看');
  });
}
