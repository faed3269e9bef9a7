import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema';
import { isFileName } from './storage';

/**
 * Which records hold which uploaded files, so that reading a file can be
 * decided by the records that show it (server/modules/file-access.ts).
 *
 * A kind of record that holds files plugs in with three steps: a name here,
 * a `recordFileRefs` call wherever such a record is saved (and a backfill for
 * the rows that exist already), and a case in `mayReadFile`'s switch. Until
 * the case exists the switch denies the kind, so forgetting it fails closed.
 */
export type FileRecordKind =
  'car_application' | 'person_application' | 'vehicle_mark' | 'person_black_white_list' | 'vehicle_registration' | 'transport_list' | 'gate_record_car' | 'gate_record_person' | 'notice';

type Db = Kysely<DB> | Transaction<DB>;

/**
 * The columns of each kind that hold stored names: ';'-joined lists, or
 * JSON objects of them (dump_truck_file, cargo_info.annex). car_person's
 * face_photo belongs to its car_application and is added by the caller.
 */
export const fileColumns = {
  car_application: ['applicant_face_photo', 'vehicle_img', 'img12123', 'blind_video_photo', 'register_record_photo', 'dump_truck_file', 'cargo_info'],
  person_application: ['visitor_face_photo', 'visitor_idcard_photo1', 'visitor_idcard_photo2'],
  vehicle_mark: ['photo', 'cancel_photo'],
  person_black_white_list: ['face_photo'],
  vehicle_registration: [
    'registry_img',
    'business_license_img',
    'company_road_transport_img',
    'legal_person_idcard_img',
    'driver_info_img',
    'supercargo_info_img',
    'driving_permit_img',
    'road_transport_img',
    'compulsory_insurance_img',
    'commercial_insurance_img',
    'carrier_liability_insurance_img',
    'report_instruction_img',
    'commitment_letter_img',
    'gps_instruction_img',
  ],
  transport_list: ['annex'],
  gate_record_car: ['plate_image', 'vehicle_image'],
  gate_record_person: ['snapshot'],
  // A notice's files are its attachments' rows (notice_attachment.file_url), recorded by modules/notices.ts.
  notice: [],
} as const satisfies Record<FileRecordKind, readonly string[]>;

/**
 * The stored file names in some values, each once: ';'-joined strings,
 * arrays, objects and JSON text of those, at any depth. Anything that is not
 * a stored name (a 'blob:' URL still on a phone, a placeholder in a test) is
 * skipped: only the store's own names can ever be served.
 */
export function fileNamesIn(...values: unknown[]): string[] {
  const names = new Set<string>();
  const walk = (v: unknown, depth: number): void => {
    if (depth > 5 || v == null) return;
    if (typeof v === 'string') {
      const t = v.trim();
      if (t.startsWith('{') || t.startsWith('[')) {
        try {
          walk(JSON.parse(t), depth + 1);
        } catch {
          /* plain text that happens to start with a bracket */
        }
        return;
      }
      for (const part of t.split(';')) if (isFileName(part.trim())) names.add(part.trim());
      return;
    }
    if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (typeof v === 'object') for (const x of Object.values(v)) walk(x, depth + 1);
  };
  for (const v of values) walk(v, 0);
  return [...names];
}

/** The names in the file columns of one stored (or about to be stored) row of a kind. */
export const fileNamesOfRow = (kind: FileRecordKind, row: Record<string, unknown>, ...more: unknown[]): string[] => fileNamesIn(...fileColumns[kind].map((c) => row[c]), ...more);

/**
 * Who uploaded a file: written with the upload, so the uploader can show it
 * before any record holds it, and a device's events can name only its own files.
 */
export async function recordFileObject(db: Db, name: string, uploaderUserId: number, now: number, uploaderDeviceId: number | null = null): Promise<void> {
  await db.insertInto('file_object').values({ name, uploader_user_id: uploaderUserId, uploader_device_id: uploaderDeviceId, created_at: now }).execute();
}

/** Multi-row inserts stay well under SQLite's bound-parameter limit. */
const REF_CHUNK = 300;

/**
 * Makes `names` the files that one record holds, replacing what it held
 * before (a photo taken off an application stops granting access through it).
 * Call it in the transaction that saves the record.
 */
export async function recordFileRefs(db: Db, kind: FileRecordKind, recordId: number, names: Iterable<string>): Promise<void> {
  await db.deleteFrom('file_ref').where('record_kind', '=', kind).where('record_id', '=', recordId).execute();
  const rows = [...new Set(names)].filter(isFileName).map((file_name) => ({ file_name, record_kind: kind, record_id: recordId }));
  for (let i = 0; i < rows.length; i += REF_CHUNK)
    await db
      .insertInto('file_ref')
      .values(rows.slice(i, i + REF_CHUNK))
      .execute();
}
