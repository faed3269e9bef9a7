import { sql, type Kysely } from 'kysely';
import { AppState } from '../../../domain/appointments';
import { anonymiseName, maskIdNumber, maskPhone } from '../../../domain/personal-data';
import type { RetentionClass } from '../../../domain/retention';
import { personInMark } from '../../../domain/schemas/muster';
import { ImportStatus } from '../../../domain/schemas/person-import';
import { dateOf } from '../../../domain/visit-rules';
import { fileNamesIn, type FileRecordKind } from '../../core/file-refs';
import type { DB } from '../../db/schema';

/**
 * What each class of domain/retention.ts takes, as SQL: for every source
 * table, how many rows are past the cut-off (counted on the partial or time
 * indexes of migration 034), the time the oldest kept row's period runs
 * from, and one batch of at most `limit` rows taken in the caller's
 * transaction. A batch answers the stored files it freed (no record holds
 * them any more); the caller removes them from the store once its
 * transaction has committed.
 */

type Db = Kysely<DB>;

export interface BatchInput {
  /** Rows whose period runs from before this (park time) are past it. */
  cutoff: string;
  /** Park time now: what photos_removed_at / anonymised_at record. */
  stamp: string;
  limit: number;
  runId: number;
}

export interface BatchResult {
  rows: number;
  /** Stored files no record holds any more: removed from the store after commit. */
  files: string[];
  /** Person-import zips (their tasks' file_path), removed after commit wherever they are kept (person-import/job.ts dropZip). */
  zips: string[];
}

export interface RetentionSource {
  /** The table a batch changes: the lists' remembered totals of it are forgotten after commit. */
  table: string;
  count(db: Db, cutoff: string): Promise<number>;
  /**
   * The time the period of the oldest row still holding the class's data runs from: with `cutoff`, among the rows
   * that would stay (the preview); without, among every row left (a run's proof). Null when there is none.
   */
  oldest(db: Db, cutoff: string | null): Promise<string | null>;
  take(trx: Db, input: BatchInput): Promise<BatchResult>;
}

const none: BatchResult = { rows: 0, files: [], zips: [] };
const num = (v: unknown) => Number(v ?? 0);
const orNull = (v: unknown) => (v == null ? null : String(v));
/** At most this many values in one IN list: well under both databases' bound-parameter limits. */
const IN_CHUNK = 500;
const chunks = <T>(xs: T[]) => Array.from({ length: Math.ceil(xs.length / IN_CHUNK) }, (_, i) => xs.slice(i * IN_CHUNK, (i + 1) * IN_CHUNK));

/**
 * Drops the file references `kind` records `ids` hold on `names` (every reference of theirs when `names` is null),
 * and answers the names that no record holds any more: the files to remove once the transaction has committed.
 */
export async function releaseFiles(trx: Db, kind: FileRecordKind, ids: number[], names: string[] | null): Promise<string[]> {
  if (!ids.length) return [];
  const dropped = new Set<string>(names ?? []);
  if (names === null) {
    for (const part of chunks(ids)) {
      const refs = await trx.selectFrom('file_ref').select('file_name').where('record_kind', '=', kind).where('record_id', 'in', part).execute();
      for (const r of refs) dropped.add(r.file_name);
    }
  }
  if (!dropped.size) return [];
  for (const part of chunks(ids)) {
    let q = trx.deleteFrom('file_ref').where('record_kind', '=', kind).where('record_id', 'in', part);
    if (names !== null) q = q.where('file_name', 'in', [...dropped]);
    await q.execute();
  }
  // A copied draft or a list entry made from an application may hold the same file: it stays while any record does.
  const held = new Set<string>();
  for (const part of chunks([...dropped])) for (const r of await trx.selectFrom('file_ref').select('file_name').where('file_name', 'in', part).execute()) held.add(r.file_name);
  return [...dropped].filter((n) => !held.has(n));
}

const minOf = (...values: Array<string | null>): string | null => values.reduce<string | null>((m, v) => (v !== null && (m === null || v < m) ? v : m), null);

// ---------------------------------------------------------------- appointments

/** The two appointment tables: the visit's end is where their periods run from, whatever their state (see docs/retention.md). */
const appointment = {
  person: { table: 'person_application', key: 'person_application_id', end: 'visit_end_time' },
  car: { table: 'car_application', key: 'car_application_id', end: 'visitor_end_time' },
} as const;
type AppointmentKind = keyof typeof appointment;
type Flag = 'photos_removed_at' | 'anonymised_at';

/** Counting and the oldest of an appointment table's rows not yet taken for `flag`, on its partial index. */
function appointmentSource(kind: AppointmentKind, flag: Flag, take: RetentionSource['take']): RetentionSource {
  const t = appointment[kind];
  const pending = (db: Db) => (db as unknown as Kysely<any>).selectFrom(t.table).where(flag, 'is', null);
  return {
    table: t.table,
    async count(db, cutoff) {
      const r = await pending(db)
        .select((eb) => eb.fn.countAll().as('n'))
        .where(t.end, '<', cutoff)
        .executeTakeFirst();
      return num(r?.n);
    },
    async oldest(db, cutoff) {
      let q = pending(db).select((eb) => eb.fn.min(t.end).as('t'));
      if (cutoff !== null) q = q.where(t.end, '>=', cutoff);
      return orNull((await q.executeTakeFirst())?.t);
    },
    take,
  };
}

/** Due rows of an appointment table not yet taken for `flag`, oldest visit first: a batch's ids. */
async function dueAppointments(trx: Db, kind: AppointmentKind, flag: Flag, cutoff: string, limit: number): Promise<number[]> {
  const t = appointment[kind];
  const rows = await (trx as unknown as Kysely<any>).selectFrom(t.table).select(`${t.key} as id`).where(flag, 'is', null).where(t.end, '<', cutoff).orderBy(t.end).limit(limit).execute();
  return rows.map((r: { id: number }) => Number(r.id));
}

/**
 * The personal data of some records, removed or anonymised: what a retention batch does to the rows past their
 * period, and what a request about one person does to theirs (modules/pii.ts). Each answers the rows it changed
 * and the files no record holds any more, to remove once the transaction has committed.
 */
export const anonymisers = {
  async personPhotos(trx: Db, ids: number[], stamp: string): Promise<BatchResult> {
    if (!ids.length) return none;
    const rows = await trx
      .selectFrom('person_application')
      .select(['person_application_id as id', 'visitor_face_photo', 'visitor_idcard_photo1', 'visitor_idcard_photo2'])
      .where('person_application_id', 'in', ids)
      .execute();
    await trx
      .updateTable('person_application')
      .set({ visitor_face_photo: '', visitor_idcard_photo1: '', visitor_idcard_photo2: '', photos_removed_at: stamp })
      .where('person_application_id', 'in', ids)
      .execute();
    const names = fileNamesIn(...rows.flatMap((r) => [r.visitor_face_photo, r.visitor_idcard_photo1, r.visitor_idcard_photo2]));
    return { rows: rows.length, files: await releaseFiles(trx, 'person_application', ids, names), zips: [] };
  },

  async carPhotos(trx: Db, ids: number[], stamp: string): Promise<BatchResult> {
    if (!ids.length) return none;
    const rows = await trx.selectFrom('car_application').select(['car_application_id as id', 'applicant_face_photo']).where('car_application_id', 'in', ids).execute();
    // The car's persons' face photos are files of their application (core/file-refs.ts).
    const persons = await trx.selectFrom('car_person').select('face_photo').where('car_application_id', 'in', ids).execute();
    await trx.updateTable('car_application').set({ applicant_face_photo: '', photos_removed_at: stamp }).where('car_application_id', 'in', ids).execute();
    await trx.updateTable('car_person').set({ face_photo: '' }).where('car_application_id', 'in', ids).where('face_photo', '<>', '').execute();
    const names = fileNamesIn(...rows.map((r) => r.applicant_face_photo), ...persons.map((p) => p.face_photo));
    return { rows: rows.length, files: await releaseFiles(trx, 'car_application', ids, names), zips: [] };
  },

  async personFields(trx: Db, ids: number[], stamp: string): Promise<BatchResult> {
    if (!ids.length) return none;
    const rows = await trx
      .selectFrom('person_application')
      .select(['person_application_id as id', 'visitor_name', 'visitor_idcard', 'visitor_phone'])
      .where('person_application_id', 'in', ids)
      .execute();
    for (const r of rows) {
      await trx
        .updateTable('person_application')
        .set({ visitor_name: anonymiseName(r.visitor_name), visitor_idcard: maskIdNumber(r.visitor_idcard), visitor_phone: maskPhone(r.visitor_phone), visitor_address: '', anonymised_at: stamp })
        .where('person_application_id', '=', r.id)
        .execute();
    }
    return { ...none, rows: rows.length };
  },

  async carFields(trx: Db, ids: number[], stamp: string): Promise<BatchResult> {
    if (!ids.length) return none;
    const rows = await trx.selectFrom('car_application').select(['car_application_id as id', 'applicant_name', 'applicant_idcard', 'applicant_phone']).where('car_application_id', 'in', ids).execute();
    for (const r of rows) {
      await trx
        .updateTable('car_application')
        .set({ applicant_name: anonymiseName(r.applicant_name), applicant_idcard: maskIdNumber(r.applicant_idcard), applicant_phone: maskPhone(r.applicant_phone), anonymised_at: stamp })
        .where('car_application_id', '=', r.id)
        .execute();
    }
    const persons = await trx.selectFrom('car_person').select('car_person_id as id').where('car_application_id', 'in', ids).execute();
    await anonymisers.carPersons(
      trx,
      persons.map((p) => p.id),
    );
    return { ...none, rows: rows.length };
  },

  /** A car's driver and passengers; a qualification certificate number names its holder as an ID number does. */
  async carPersons(trx: Db, ids: number[]): Promise<number> {
    if (!ids.length) return 0;
    const persons = await trx.selectFrom('car_person').select(['car_person_id as id', 'name', 'id_card', 'phone', 'pqc_number']).where('car_person_id', 'in', ids).execute();
    for (const p of persons) {
      await trx
        .updateTable('car_person')
        .set({ name: anonymiseName(p.name), id_card: p.id_card ? maskIdNumber(p.id_card) : '', phone: maskPhone(p.phone), pqc_number: p.pqc_number ? maskIdNumber(p.pqc_number) : '' })
        .where('car_person_id', '=', p.id)
        .execute();
    }
    return persons.length;
  },

  async listPhotos(trx: Db, ids: number[], stamp: string): Promise<BatchResult> {
    if (!ids.length) return none;
    const rows = await trx.selectFrom('person_black_white_list').select(['id', 'face_photo']).where('id', 'in', ids).execute();
    await trx.updateTable('person_black_white_list').set({ face_photo: '', photos_removed_at: stamp }).where('id', 'in', ids).execute();
    return { rows: rows.length, files: await releaseFiles(trx, 'person_black_white_list', ids, fileNamesIn(...rows.map((r) => r.face_photo))), zips: [] };
  },

  async listFields(trx: Db, ids: number[], stamp: string): Promise<BatchResult> {
    if (!ids.length) return none;
    const rows = await trx.selectFrom('person_black_white_list').select(['id', 'name', 'idcard']).where('id', 'in', ids).execute();
    for (const r of rows) {
      await trx
        .updateTable('person_black_white_list')
        .set({ name: anonymiseName(r.name), idcard: maskIdNumber(r.idcard), anonymised_at: stamp })
        .where('id', '=', r.id)
        .execute();
    }
    return { ...none, rows: rows.length };
  },

  /**
   * 应急清点名单 rows: name and phone anonymised, a person's ID number masked (a plate stays, as a car appointment
   * keeps its plate), and the mark texts that name the person rewritten with the anonymised name.
   */
  async musterSubjects(trx: Db, ids: number[], stamp: string): Promise<BatchResult> {
    if (!ids.length) return none;
    const rows = await trx.selectFrom('muster_subject').select(['id', 'kind', 'subject', 'name', 'phone']).where('id', 'in', ids).where('anonymised_at', 'is', null).execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    // Read before the rows change: the texts name the person as the mark wrote them.
    const events = await trx.selectFrom('muster_event').select(['id', 'subject_id', 'text']).where('subject_id', 'in', ids).where('type', '=', 'mark').execute();
    for (const r of rows) {
      await trx
        .updateTable('muster_subject')
        .set({ name: anonymiseName(r.name), phone: maskPhone(r.phone), subject: r.kind === 'person' ? maskIdNumber(r.subject) : r.subject, anonymised_at: stamp })
        .where('id', '=', r.id)
        .execute();
    }
    for (const e of events) {
      const r = byId.get(e.subject_id ?? 0);
      if (!r || r.kind !== 'person') continue;
      const masked = maskIdNumber(r.subject);
      const text = e.text.replace(personInMark(r.name, masked), personInMark(anonymiseName(r.name), masked));
      if (text !== e.text) await trx.updateTable('muster_event').set({ text }).where('id', '=', e.id).execute();
    }
    return { ...none, rows: rows.length };
  },
};

const personPhotos = appointmentSource('person', 'photos_removed_at', async (trx, { cutoff, stamp, limit }) =>
  anonymisers.personPhotos(trx, await dueAppointments(trx, 'person', 'photos_removed_at', cutoff, limit), stamp),
);

const carPhotos = appointmentSource('car', 'photos_removed_at', async (trx, { cutoff, stamp, limit }) =>
  anonymisers.carPhotos(trx, await dueAppointments(trx, 'car', 'photos_removed_at', cutoff, limit), stamp),
);

const personFields = appointmentSource('person', 'anonymised_at', async (trx, { cutoff, stamp, limit }) =>
  anonymisers.personFields(trx, await dueAppointments(trx, 'person', 'anonymised_at', cutoff, limit), stamp),
);

const carFields = appointmentSource('car', 'anonymised_at', async (trx, { cutoff, stamp, limit }) =>
  anonymisers.carFields(trx, await dueAppointments(trx, 'car', 'anonymised_at', cutoff, limit), stamp),
);

// ---------------------------------------------------------------- the person black/white list

/**
 * A list entry's period runs from its end, or, once it is not in force or never was (deleted, a draft, rejected,
 * revoked), from its last change if that came first. An entry in force without an end, or in review, is kept.
 */
const listDue = (cutoff: string) =>
  sql<boolean>`((end_time IS NOT NULL AND end_time < ${cutoff}) OR ((deleted = 1 OR status IN (${AppState.DRAFT}, ${AppState.REJECTED}, ${AppState.REVOKED})) AND update_time < ${cutoff}))`;
const listClock = sql<string>`(CASE WHEN deleted = 1 OR status IN (${AppState.DRAFT}, ${AppState.REJECTED}, ${AppState.REVOKED})
  THEN (CASE WHEN end_time IS NOT NULL AND end_time < update_time THEN end_time ELSE update_time END) ELSE end_time END)`;

function listSource(flag: Flag, take: RetentionSource['take']): RetentionSource {
  const pending = (db: Db) => db.selectFrom('person_black_white_list').where(flag, 'is', null);
  return {
    table: 'person_black_white_list',
    async count(db, cutoff) {
      const r = await pending(db)
        .select((eb) => eb.fn.countAll().as('n'))
        .where(listDue(cutoff))
        .executeTakeFirst();
      return num(r?.n);
    },
    async oldest(db, cutoff) {
      let q = pending(db).select(sql<string | null>`min(${listClock})`.as('t'));
      if (cutoff !== null) q = q.where((eb) => eb.not(listDue(cutoff)));
      return orNull((await q.executeTakeFirst())?.t);
    },
    take,
  };
}

/** Due list entries not yet taken for `flag`: a batch's ids. */
const dueListEntries = async (trx: Db, flag: Flag, cutoff: string, limit: number) =>
  (await trx.selectFrom('person_black_white_list').select('id').where(flag, 'is', null).where(listDue(cutoff)).orderBy('id').limit(limit).execute()).map((r) => r.id);

const listPhotos = listSource('photos_removed_at', async (trx, { cutoff, stamp, limit }) => anonymisers.listPhotos(trx, await dueListEntries(trx, 'photos_removed_at', cutoff, limit), stamp));

const listFields = listSource('anonymised_at', async (trx, { cutoff, stamp, limit }) => anonymisers.listFields(trx, await dueListEntries(trx, 'anonymised_at', cutoff, limit), stamp));

// ---------------------------------------------------------------- 应急清点名单

/**
 * A muster's list goes with the visitors' fields, its period running from the muster's end; a running muster's is
 * never taken. Read muster by muster (they are few), each one's rows not yet anonymised on its index (migration 039).
 */
const endedMusters = (db: Db) =>
  db
    .selectFrom('muster as m')
    .where('m.ended_at', 'is not', null)
    .where((eb) => eb.exists(eb.selectFrom('muster_subject as s').select('s.id').whereRef('s.muster_id', '=', 'm.id').where('s.anonymised_at', 'is', null)));

const musterSubjects: RetentionSource = {
  table: 'muster_subject',
  async count(db, cutoff) {
    const rows = await db
      .selectFrom('muster as m')
      .select((eb) =>
        eb
          .selectFrom('muster_subject as s')
          .select((c) => c.fn.countAll().as('n'))
          .whereRef('s.muster_id', '=', 'm.id')
          .where('s.anonymised_at', 'is', null)
          .as('n'),
      )
      .where('m.ended_at', '<', cutoff)
      .execute();
    return rows.reduce((n, r) => n + num(r.n), 0);
  },
  async oldest(db, cutoff) {
    let q = endedMusters(db).select((eb) => eb.fn.min('m.ended_at').as('t'));
    if (cutoff !== null) q = q.where('m.ended_at', '>=', cutoff);
    return orNull((await q.executeTakeFirst())?.t);
  },
  async take(trx, { cutoff, stamp, limit }) {
    // Each due muster holds a pending row: at most `limit` of them fill a batch.
    const musters = await endedMusters(trx).select('m.id').where('m.ended_at', '<', cutoff).orderBy('m.ended_at').orderBy('m.id').limit(limit).execute();
    const ids: number[] = [];
    for (const m of musters) {
      if (ids.length >= limit) break;
      const rows = await trx
        .selectFrom('muster_subject')
        .select('id')
        .where('muster_id', '=', m.id)
        .where('anonymised_at', 'is', null)
        // By id; anonymised_at (null in every row) named too, so PostgreSQL walks the index in its order.
        .orderBy('anonymised_at')
        .orderBy('id')
        .limit(limit - ids.length)
        .execute();
      ids.push(...rows.map((r) => r.id));
    }
    return anonymisers.musterSubjects(trx, ids, stamp);
  },
};

// ---------------------------------------------------------------- person-import zips

/** A task's zip (its persons' photos) goes a photos period after the task last changed; a running task keeps it. */
const importZips: RetentionSource = {
  table: 'person_import_task',
  async count(db, cutoff) {
    const r = await db
      .selectFrom('person_import_task')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('zip_removed_at', 'is', null)
      .where('status', '<>', ImportStatus.RUNNING)
      .where('update_time', '<', cutoff)
      .executeTakeFirst();
    return num(r?.n);
  },
  async oldest(db, cutoff) {
    let q = db
      .selectFrom('person_import_task')
      .select((eb) => eb.fn.min('update_time').as('t'))
      .where('zip_removed_at', 'is', null);
    if (cutoff !== null) q = q.where((eb) => eb.or([eb('update_time', '>=', cutoff), eb('status', '=', ImportStatus.RUNNING)]));
    return orNull((await q.executeTakeFirst())?.t);
  },
  async take(trx, { cutoff, stamp, limit }) {
    const rows = await trx
      .selectFrom('person_import_task')
      .select(['id', 'file_path', 'status'])
      .where('zip_removed_at', 'is', null)
      .where('status', '<>', ImportStatus.RUNNING)
      .where('update_time', '<', cutoff)
      .orderBy('update_time')
      .limit(limit)
      .execute();
    if (!rows.length) return none;
    const ids = rows.map((r) => r.id);
    // Conditional on the state read: a start that claimed the task meanwhile keeps its zip.
    const done = await trx
      .updateTable('person_import_task')
      .set({ zip_removed_at: stamp, update_time: stamp })
      .where('id', 'in', ids)
      .where('status', '<>', ImportStatus.RUNNING)
      .returning(['id', 'file_path', 'status'])
      .execute();
    // A task that could still be started says why it cannot: its zip is gone, a new one may be uploaded.
    const startable = done.filter((r) => r.status === ImportStatus.WAITING || r.status === ImportStatus.FAILED).map((r) => r.id);
    if (startable.length) {
      await trx.updateTable('person_import_task').set({ status: ImportStatus.FAILED, reason: '导入文件已超过照片保留期限并已删除，请重新上传zip文件后再导入' }).where('id', 'in', startable).execute();
    }
    return { rows: done.length, files: [], zips: done.map((r) => r.file_path).filter((p) => p !== '') };
  },
};

// ---------------------------------------------------------------- crossings

const crossing = {
  car: { table: 'gate_record_car', images: ['plate_image', 'vehicle_image'], withImages: sql<boolean>`(plate_image <> '' OR vehicle_image <> '')` },
  person: { table: 'gate_record_person', images: ['snapshot'], withImages: sql<boolean>`snapshot <> ''` },
} as const;

/** A crossing's images: cleared (the row stays), files removed. Read on the partial index of the rows still holding some. */
function gateImages(kind: keyof typeof crossing): RetentionSource {
  const c = crossing[kind];
  const anyDb = (db: Db) => db as unknown as Kysely<any>;
  return {
    table: c.table,
    async count(db, cutoff) {
      const r = await anyDb(db)
        .selectFrom(c.table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where(c.withImages)
        .where('capture_time', '<', cutoff)
        .executeTakeFirst();
      return num(r?.n);
    },
    async oldest(db, cutoff) {
      let q = anyDb(db)
        .selectFrom(c.table)
        .select((eb) => eb.fn.min('capture_time').as('t'))
        .where(c.withImages);
      if (cutoff !== null) q = q.where('capture_time', '>=', cutoff);
      return orNull((await q.executeTakeFirst())?.t);
    },
    async take(trx, { cutoff, limit }) {
      const rows = (await anyDb(trx)
        .selectFrom(c.table)
        .select(['id', ...c.images])
        .where(c.withImages)
        .where('capture_time', '<', cutoff)
        .orderBy('capture_time')
        .orderBy('id')
        .limit(limit)
        .execute()) as Array<Record<string, unknown> & { id: number }>;
      if (!rows.length) return none;
      const ids = rows.map((r) => r.id);
      await anyDb(trx)
        .updateTable(c.table)
        .set(Object.fromEntries(c.images.map((col) => [col, ''])))
        .where('id', 'in', ids)
        .execute();
      return { rows: rows.length, files: await releaseFiles(trx, c.table, ids, null), zips: [] };
    },
  };
}

/** A crossing's row: deleted with its files, the rollups kept (the purge mark, migration 034). Read on the time index. */
function gateRows(kind: keyof typeof crossing): RetentionSource {
  const c = crossing[kind];
  const anyDb = (db: Db) => db as unknown as Kysely<any>;
  return {
    table: c.table,
    async count(db, cutoff) {
      const r = await anyDb(db)
        .selectFrom(c.table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('capture_time', '<', cutoff)
        .executeTakeFirst();
      return num(r?.n);
    },
    async oldest(db, cutoff) {
      let q = anyDb(db)
        .selectFrom(c.table)
        .select((eb) => eb.fn.min('capture_time').as('t'));
      if (cutoff !== null) q = q.where('capture_time', '>=', cutoff);
      return orNull((await q.executeTakeFirst())?.t);
    },
    async take(trx, { cutoff, limit, runId }) {
      const rows = (await anyDb(trx).selectFrom(c.table).select('id').where('capture_time', '<', cutoff).orderBy('capture_time').orderBy('id').limit(limit).execute()) as Array<{ id: number }>;
      if (!rows.length) return none;
      const ids = rows.map((r) => r.id);
      // Inside this transaction only: the rollup triggers leave the reports' counts as they are.
      await trx.insertInto('retention_purge_mark').values({ run_id: runId }).execute();
      await anyDb(trx).deleteFrom(c.table).where('id', 'in', ids).execute();
      await trx.deleteFrom('retention_purge_mark').where('run_id', '=', runId).execute();
      return { rows: rows.length, files: await releaseFiles(trx, c.table, ids, null), zips: [] };
    },
  };
}

// ---------------------------------------------------------------- waybills

/**
 * A waybill's period runs from its filing, or from its shipment date when that is later; one in review is kept
 * until it is decided. Its approval's instance and tasks stay: they hold no personal data and 审批统计 counts them.
 */
const waybillDue = (cutoff: string) => sql<boolean>`(create_time < ${cutoff} AND coalesce(shipment_date, '') < ${dateOf(cutoff)} AND state <> ${AppState.REVIEW})`;

const waybills: RetentionSource = {
  table: 'transport_list',
  async count(db, cutoff) {
    const r = await db
      .selectFrom('transport_list')
      .select((eb) => eb.fn.countAll().as('n'))
      .where(waybillDue(cutoff))
      .executeTakeFirst();
    return num(r?.n);
  },
  async oldest(db, cutoff) {
    let q = db.selectFrom('transport_list').select((eb) => eb.fn.min('create_time').as('t'));
    if (cutoff !== null) q = q.where((eb) => eb.not(waybillDue(cutoff)));
    return orNull((await q.executeTakeFirst())?.t);
  },
  async take(trx, { cutoff, limit }) {
    const rows = await trx.selectFrom('transport_list').select(['id', 'annex']).where(waybillDue(cutoff)).orderBy('create_time').orderBy('id').limit(limit).execute();
    if (!rows.length) return none;
    const ids = rows.map((r) => r.id);
    await trx.deleteFrom('transport_list').where('id', 'in', ids).execute();
    return { rows: rows.length, files: await releaseFiles(trx, 'transport_list', ids, null), zips: [] };
  },
};

// ---------------------------------------------------------------- logs

function logSource(table: 'sys_login_log' | 'sys_operation_log', column: 'login_time' | 'operate_time'): RetentionSource {
  const anyDb = (db: Db) => db as unknown as Kysely<any>;
  return {
    table,
    async count(db, cutoff) {
      const r = await anyDb(db)
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where(column, '<', cutoff)
        .executeTakeFirst();
      return num(r?.n);
    },
    async oldest(db, cutoff) {
      let q = anyDb(db)
        .selectFrom(table)
        .select((eb) => eb.fn.min(column).as('t'));
      if (cutoff !== null) q = q.where(column, '>=', cutoff);
      return orNull((await q.executeTakeFirst())?.t);
    },
    async take(trx, { cutoff, limit }) {
      const rows = (await anyDb(trx).selectFrom(table).select('id').where(column, '<', cutoff).orderBy(column).orderBy('id').limit(limit).execute()) as Array<{ id: number }>;
      if (!rows.length) return none;
      await anyDb(trx)
        .deleteFrom(table)
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        )
        .execute();
      return { ...none, rows: rows.length };
    },
  };
}

/** Every class's sources, in the order a run takes them. */
export const retentionSources: Record<RetentionClass, readonly RetentionSource[]> = {
  photos: [personPhotos, carPhotos, listPhotos, importZips],
  visitor_fields: [personFields, carFields, listFields, musterSubjects],
  gate_images: [gateImages('car'), gateImages('person')],
  gate_rows: [gateRows('car'), gateRows('person')],
  waybills: [waybills],
  logs: [logSource('sys_login_log', 'login_time'), logSource('sys_operation_log', 'operate_time')],
};

/** How many rows of a class are past `cutoff`. */
export async function countDue(db: Db, key: RetentionClass, cutoff: string): Promise<number> {
  let n = 0;
  for (const s of retentionSources[key]) n += await s.count(db, cutoff);
  return n;
}

/** The oldest time kept by a class (see RetentionSource.oldest). */
export async function oldestKept(db: Db, key: RetentionClass, cutoff: string | null): Promise<string | null> {
  let oldest: string | null = null;
  for (const s of retentionSources[key]) oldest = minOf(oldest, await s.oldest(db, cutoff));
  return oldest;
}
