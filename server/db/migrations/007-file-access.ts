import type { Kysely } from 'kysely';
import { fileNamesIn } from '../../core/file-refs';

/** Rows read per query while backfilling, so a large park does not load its applications at once. */
const PAGE = 500;
/** Rows per multi-row INSERT: three parameters each, far under SQLite's limit. */
const CHUNK = 300;

type Ref = { file_name: string; record_kind: string; record_id: number };

async function insertRefs(db: Kysely<any>, refs: Ref[]) {
  for (let i = 0; i < refs.length; i += CHUNK)
    await db
      .insertInto('file_ref')
      .values(refs.slice(i, i + CHUNK))
      .execute();
}

/**
 * Backfills the refs of one table, page by page in key order. The columns
 * are listed as they stand at this migration (not imported from the live
 * code, which may grow later kinds with their own backfill).
 */
async function backfill(db: Kysely<any>, table: string, key: string, kind: string, columns: string[], extra?: (ids: number[]) => Promise<Map<number, string[]>>) {
  let last = 0;
  for (;;) {
    const rows = (await db
      .selectFrom(table)
      .select([key, ...columns])
      .where(key, '>', last)
      .orderBy(key)
      .limit(PAGE)
      .execute()) as Array<Record<string, unknown>>;
    if (!rows.length) return;
    const ids = rows.map((r) => r[key] as number);
    const more = extra ? await extra(ids) : new Map<number, string[]>();
    const refs: Ref[] = [];
    for (const r of rows) {
      const id = r[key] as number;
      for (const file_name of fileNamesIn(...columns.map((c) => r[c]), more.get(id) ?? [])) refs.push({ file_name, record_kind: kind, record_id: id });
    }
    await insertRefs(db, refs);
    last = ids[ids.length - 1];
  }
}

/**
 * File access (issue 9): who uploaded each file, and which records hold
 * which files, so that GET /api/file/:name can follow the record-level read
 * rules. file_ref's primary key starts with the file name: the one lookup a
 * read makes. Files uploaded before this migration have no uploader row;
 * they are readable through the records that hold them, which are
 * backfilled here.
 */
export function fileAccess() {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('file_object')
        .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('uploader_user_id', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('file_ref')
        .addColumn('file_name', 'varchar(64)', (c) => c.notNull())
        .addColumn('record_kind', 'varchar(40)', (c) => c.notNull())
        .addColumn('record_id', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('file_ref_pk', ['file_name', 'record_kind', 'record_id'])
        .execute();
      // Saving a record replaces its refs: found by the record.
      await db.schema.createIndex('file_ref_record').on('file_ref').columns(['record_kind', 'record_id']).execute();

      const driversOf = async (ids: number[]) => {
        const map = new Map<number, string[]>();
        const rows = await db.selectFrom('car_person').select(['car_application_id', 'face_photo']).where('car_application_id', 'in', ids).execute();
        for (const p of rows) map.set(p.car_application_id, [...(map.get(p.car_application_id) ?? []), p.face_photo]);
        return map;
      };
      await backfill(
        db,
        'car_application',
        'car_application_id',
        'car_application',
        ['applicant_face_photo', 'vehicle_img', 'img12123', 'blind_video_photo', 'register_record_photo', 'dump_truck_file', 'cargo_info'],
        driversOf,
      );
      await backfill(db, 'person_application', 'person_application_id', 'person_application', ['visitor_face_photo', 'visitor_idcard_photo1', 'visitor_idcard_photo2']);
      await backfill(db, 'vehicle_mark', 'id', 'vehicle_mark', ['photo', 'cancel_photo']);
    },
  };
}
