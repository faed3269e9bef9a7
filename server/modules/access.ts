import type { Kysely, Transaction } from 'kysely';
import { AppState, appointmentCodes, type AppointmentKind } from '../../domain/appointments';
import { SCAN_PERMISSION } from '../../domain/permissions';
import { equipmentKinds, type EquipmentKindDef } from '../../domain/schemas/equipment';
import { NoticeStatus } from '../../domain/notices';
import type { Access, AuthContext } from '../core/context';
import { ErrorCode } from '../../domain/errors';
import { fail } from '../core/errors';
import { fileColumns, fileNamesIn, type FileRecordKind } from '../core/file-refs';
import { holdsPiiView } from '../core/personal-data';
import { personalKindOf } from '../../domain/personal-data';
import type { ReadRule } from '../core/resource';
import { isFileName } from '../core/storage';
import type { DB } from '../db/schema';
import { subjectByTable } from '../workflow/subjects';
import { kinds } from './appointments/kinds';
import { readableBy } from './appointments/service';

/**
 * Who may read an uploaded file (issue 9, item 8), deny by default: its
 * uploader (a form shows a photo before the record is saved), or whoever may
 * read a record that holds it, by that record's own read rule. A file no
 * record holds, or held only by records of a kind without a case below, is
 * nobody else's to read.
 */

type Db = Kysely<DB> | Transaction<DB>;

/** Ids per query when a file is held by many records (one demo photo is on every seeded application). */
const ID_CHUNK = 200;

const NOTICE_LIST = 'notice:list';

const chunks = <T>(list: T[], size: number): T[][] => Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));

/** May the caller read any of these applications? Their detail's rule (readableBy); deleted ones read as absent there, so here too. */
async function anyApplicationReadable(db: Db, auth: AuthContext, kind: AppointmentKind, ids: number[]): Promise<boolean> {
  const codes = appointmentCodes[kind];
  // Holders of the all-history list read every live application: one query instead of one per record.
  const cheap = auth.permissions.has(codes.allList);
  for (const part of chunks(ids, ID_CHUNK)) {
    const k = kinds[kind];
    const rows = (await (db as unknown as Kysely<any>)
      .selectFrom(k.table)
      .select(['create_user_id', 'interviewee_depart_id', 'process_instance_id', 'state'])
      .where(k.key, 'in', part)
      .where('is_deleted', '=', 0)
      .execute()) as Array<{ create_user_id: number; interviewee_depart_id: number; process_instance_id: number | null; state: number }>;
    if (cheap && rows.length) return true;
    for (const row of rows) if (await readableBy(db, auth, kind, row)) return true;
  }
  return false;
}

/**
 * Vehicle flags: their creator; the all-history list, whose flag column
 * reads them (/label/vehicle/queryRemark); and the scan screen, which shows
 * a plate's live flags with their photos (/pass/lookup).
 */
async function anyVehicleMarkReadable(db: Db, auth: AuthContext, ids: number[]): Promise<boolean> {
  const wide = auth.permissions.has(appointmentCodes.car.allList) || auth.permissions.has(SCAN_PERMISSION);
  for (const part of chunks(ids, ID_CHUNK)) {
    let q = db.selectFrom('vehicle_mark').select('id').where('id', 'in', part).where('deleted', '=', 0);
    if (!wide) q = q.where('create_user_id', '=', auth.userId);
    if (await q.limit(1).executeTakeFirst()) return true;
  }
  return false;
}

/**
 * Plain registers (core/resource.ts): who may read a row. Registers the park
 * preloads into every form (vehicle models, departments) are read by anyone
 * holding a role; the rest by the holders of their list code.
 */
export const registerReadCodes = {
  vehicle_type: 'role',
  department: 'role',
  user: 'user:list',
  // Gate crossing records and their images (DESIGN.md §8): the records screens' codes.
  gate_record_car: 'vehicleGateCrosRecords:list',
  gate_record_person: 'personGateCrosRecords:list',
  // 行车路线: the holders of its list code (a visit's own route is read through the visit, modules/driving-routes).
  driving_route: 'carRoute:list',
} as const satisfies Record<string, Access>;
/**
 * Registers under approval (modules/registers). A draft is its filer's until
 * submitted (README): `drafts` are the codes of those who file the park's lists
 * (their keepers, who edit every entry), `submitted` the approvers' and the
 * history screens', which read a row once it has entered approval (issue 23).
 * Registrations and waybills are filed by contacts, who read their own rows.
 */
export const approvableReadCodes = {
  // The squad reads both lists (menu codes, issue 24) but, holding no edit code, only what entered approval.
  car_black_white_list: { drafts: ['carList:edit'], submitted: ['menu:carList', 'carListApproval:list', 'carListApproval:check'] },
  person_black_white_list: { drafts: ['personList:edit'], submitted: ['menu:personList', 'personListApproval:list', 'personListApproval:check'] },
  vehicle_registration: { drafts: [], submitted: ['carRegistrationHistory:list', 'carRegistrationApproval:list', 'carRegistrationApproval:check'] },
  transport_list: { drafts: [], submitted: ['menu:allTransportListHis', 'transportListApproval:check'] },
} as const satisfies Record<string, { drafts: readonly Access[]; submitted: readonly Access[] }>;

/** Registers whose rows are their filer's: the filer reads their own, drafts included. */
const filedRegisters = new Set<string>(['vehicle_registration', 'transport_list']);
export type RegisterKind = keyof typeof registerReadCodes | keyof typeof approvableReadCodes | 'equipment' | 'stranded_alarm';

async function anyApprovableReadable(db: Db, auth: AuthContext, kind: keyof typeof approvableReadCodes, ids: number[]): Promise<boolean> {
  const codes = approvableReadCodes[kind];
  if (codes.drafts.some((code) => holds(auth, code))) return true;
  const submitted = codes.submitted.some((code) => holds(auth, code));
  const filer = filedRegisters.has(kind);
  if (!submitted && !filer) return false;
  const state = subjectByTable[kind].stateColumn;
  return !!(await (db as Kysely<any>)
    .selectFrom(kind)
    .select('id')
    .where('id', 'in', ids.slice(0, ID_CHUNK))
    .where('deleted', '=', 0)
    .where((eb) => eb.or([...(filer ? [eb('create_user_id', '=', auth.userId)] : []), ...(submitted ? [eb(state, '!=', AppState.DRAFT)] : [])]))
    .limit(1)
    .executeTakeFirst());
}

/** Every kind of record whose rows are read through this switch. */
export type RecordKind = FileRecordKind | RegisterKind;

export const holds = (auth: AuthContext, access: Access) => (access === 'role' ? auth.roleIds.length > 0 : auth.permissions.has(access));

/**
 * Notices: their keepers (notice:list) read every one; anyone else only an
 * enabled notice that reached them, and its attachments with it, so taking a
 * notice back (停用) takes its files back too.
 */
async function anyNoticeReadable(db: Db, auth: AuthContext, ids: number[]): Promise<boolean> {
  if (auth.permissions.has(NOTICE_LIST)) return true;
  return !!(await db
    .selectFrom('notice_delivery as d')
    .innerJoin('notice as n', 'n.notice_id', 'd.notice_id')
    .select('d.notice_id')
    .where('d.user_id', '=', auth.userId)
    .where('d.notice_id', 'in', ids.slice(0, ID_CHUNK))
    .where('n.status', '=', NoticeStatus.ENABLED)
    .where('n.deleted', '=', 0)
    .limit(1)
    .executeTakeFirst());
}

/** One table for both kinds: an alarm is read by the holders of its kind's list code. */
async function anyStrandedReadable(db: Db, auth: AuthContext, ids: number[]): Promise<boolean> {
  const rows = await db.selectFrom('stranded_alarm').select('kind').where('id', 'in', ids.slice(0, ID_CHUNK)).execute();
  return rows.some((r) => auth.permissions.has(appointmentCodes[r.kind as AppointmentKind].strandedList));
}

async function anyEquipmentReadable(db: Db, auth: AuthContext, ids: number[]): Promise<boolean> {
  const rows = await db.selectFrom('equipment').select('kind').where('id', 'in', ids.slice(0, ID_CHUNK)).where('deleted', '=', 0).execute();
  return rows.some((r) => {
    const def = (equipmentKinds as Record<string, EquipmentKindDef>)[r.kind];
    return !!def && auth.permissions.has(`${def.codes}:list`);
  });
}

/**
 * The one record-level read rule, deny by default (immich's access.ts): may
 * the caller read any of these records of `stored` kind? Unknown kinds (a
 * later kind's refs read by older code) are denied.
 */
export async function anyReadable(db: Db, auth: AuthContext, stored: string, ids: number[]): Promise<boolean> {
  const kind = stored as RecordKind;
  if (ids.length === 0) return false;
  switch (kind) {
    case 'vehicle_type':
    case 'department':
    case 'user':
    case 'gate_record_car':
    case 'gate_record_person':
    case 'driving_route':
      return holds(auth, registerReadCodes[kind]);
    case 'car_black_white_list':
    case 'person_black_white_list':
    case 'vehicle_registration':
    case 'transport_list':
      return anyApprovableReadable(db, auth, kind, ids);
    case 'stranded_alarm':
      return anyStrandedReadable(db, auth, ids);
    case 'equipment':
      // One table for seven kinds: a device is read by the holders of its own kind's list code.
      return anyEquipmentReadable(db, auth, ids);
    case 'car_application':
      return anyApplicationReadable(db, auth, 'car', ids);
    case 'person_application':
      return anyApplicationReadable(db, auth, 'person', ids);
    case 'vehicle_mark':
      return anyVehicleMarkReadable(db, auth, ids);
    case 'notice':
      return anyNoticeReadable(db, auth, ids);
    default: {
      // A new RecordKind without a case here fails to compile, and an unknown stored kind reads as nothing.
      const unhandled: never = kind;
      void unhandled;
      return false;
    }
  }
}

/** A declared resource's read rule (core/resource.ts): this switch's case for its kind, so a row and the files it holds are read by the same rule. */
export const readRule =
  (kind: RecordKind): ReadRule =>
  (db, auth, ids) =>
    anyReadable(db, auth, kind, ids);

/**
 * Files a caller names on a record must be files the caller may read
 * already (typically their own uploads): otherwise writing someone else's
 * file name into one's own draft would be a way to read that file. Checked
 * by the routes that save records holding files, before the save.
 */
export async function assertFilesUsable(db: Db, auth: AuthContext, ...values: unknown[]): Promise<void> {
  for (const name of fileNamesIn(...values)) {
    if (!(await mayReadFile(db, auth, name))) fail(ErrorCode.VALIDATION, `文件“${name}”不存在或无权使用，请重新上传`);
  }
}

/** May this caller read the stored file `name`? */
export async function mayReadFile(db: Db, auth: AuthContext, name: string): Promise<boolean> {
  if (!isFileName(name)) return false;
  const own = await db.selectFrom('file_object').select('name').where('name', '=', name).where('uploader_user_id', '=', auth.userId).executeTakeFirst();
  if (own) return true;
  const refs = await db.selectFrom('file_ref').select(['record_kind', 'record_id']).where('file_name', '=', name).execute();
  const byKind = new Map<string, number[]>();
  for (const r of refs) {
    const ids = byKind.get(r.record_kind);
    if (ids) ids.push(r.record_id);
    else byKind.set(r.record_kind, [r.record_id]);
  }
  // Face and ID photos go only to pii:view (core/personal-data.ts); a record that holds one as such a photo grants no one else.
  const photosToo = holdsPiiView(auth);
  for (const [kind, ids] of byKind) {
    if (!(await anyReadable(db, auth, kind, ids))) continue;
    if (photosToo || !(await heldAsPersonalPhoto(db, kind, ids, name))) return true;
  }
  return false;
}

/** The columns of each kind that hold face or ID photos, by the field-name rule of domain/personal-data.ts. */
const photoColumns = Object.fromEntries(Object.entries(fileColumns).map(([kind, columns]) => [kind, (columns as readonly string[]).filter((c) => personalKindOf(c) === 'photo')])) as Record<
  FileRecordKind,
  string[]
>;
const keyColumn = (kind: FileRecordKind) => (kind === 'car_application' || kind === 'person_application' ? `${kind}_id` : 'id');

/** Whether these records hold the file as a face or ID photo (a car's persons' face photos belong to their application). */
async function heldAsPersonalPhoto(db: Db, stored: string, ids: number[], name: string): Promise<boolean> {
  const kind = stored as FileRecordKind;
  const columns = photoColumns[kind] ?? [];
  for (const part of chunks(ids, ID_CHUNK)) {
    if (columns.length) {
      const rows = await (db as Kysely<any>).selectFrom(kind).select(columns).where(keyColumn(kind), 'in', part).execute();
      if (fileNamesIn(...rows.flatMap((r) => columns.map((c) => (r as Record<string, unknown>)[c]))).includes(name)) return true;
    }
    if (kind === 'car_application') {
      const persons = await db.selectFrom('car_person').select('face_photo').where('car_application_id', 'in', part).execute();
      if (fileNamesIn(...persons.map((p) => p.face_photo)).includes(name)) return true;
    }
  }
  return false;
}
