import { randomUUID } from 'node:crypto';
import { type Compilable, type Kysely, type SelectQueryBuilder, type Transaction } from 'kysely';
import { AppState, ProcessType, vehicleProcessType, type AppointmentAction, type AppointmentKind } from '../../../domain/appointments';
import { ErrorCode } from '../../../domain/errors';
import { carApplicationRuleErrors, stripHiddenCargo, type CarApplicationRow, type CarPersonRow, type VehicleModelFlags } from '../../../domain/schemas/car-application';
import type { PersonApplicationRow } from '../../../domain/schemas/person-application';
import { registrationMissingMessage } from '../../../domain/schemas/vehicle-registration';
import { carVisitErrors, dateOf, delayErrors, personVisitErrors, type FieldError } from '../../../domain/visit-rules';
import type { AppContext, AuthContext } from '../../core/context';
import { fail, notFound } from '../../core/errors';
import { fileNamesOfRow, recordFileRefs } from '../../core/file-refs';
import { containsText, pageOf, rememberedTotal, tableChanged } from '../../core/paging';
import { afterCommit } from '../../core/transactions';
import { parse, parseWithRules, ruleFailure } from '../../core/validate';
import { preparedIn, preparedPer } from '../../db/prepared';
import type { DB } from '../../db/schema';
import { rejectInstance, resumeInstance } from '../../workflow/engine';
import { applicationNumber, approvalProcess, assertAllows, instanceOf, lockLive, revokeApproval, submitForApproval, type SubjectRow } from '../../workflow/subject-actions';
import { departmentBranch } from '../../core/department-branch';
import { kinds, type KindDef } from './kinds';
import { blackListedOn, registrationMissing } from '../park-rules';
import { keepStoredWhereMasked } from '../../core/personal-data';

/**
 * Person and vehicle appointments, written once for both kinds (kinds.ts
 * says what differs). Routes, the approval queues, imports and the demo seed
 * all go through these functions, so every path applies the same rules:
 * schema, visit rules, model rules, black lists, the spec 000 §4 state table.
 *
 * Functions that change data take the caller's transaction and use nothing
 * else (SQLite has one connection).
 */

export type Db = Kysely<DB> | Transaction<DB>;
/** The two application tables share the columns this module touches by name. */
const anyDb = (db: Db) => db as unknown as Kysely<any>;
type AnySelect = SelectQueryBuilder<any, any, any>;

/** The stored row of either kind, as the module reads it before acting. */
export interface ApplicationRecord {
  [column: string]: any;
  state: number;
  create_user_id: number;
  interviewee_depart_id: number;
  process_instance_id: number | null;
  is_deleted: number;
  application_number: string;
}

export type ListScope = 'own' | 'history' | 'all';

const idOf = (k: KindDef, row: Record<string, any>) => row[k.key] as number;

const parseJson = (v: unknown) => {
  if (typeof v !== 'string' || v === '') return v ?? null;
  try {
    return JSON.parse(v);
  } catch {
    return null;
  }
};

/** JSON columns as objects, so every reader sees what the form sent. */
function decode(k: KindDef, row: Record<string, any>) {
  for (const c of k.jsonColumns) row[c] = parseJson(row[c]);
  return row;
}

/** Rows with the names the lists and details show beside the ids. */
function selectWithNames(db: Db, k: KindDef): AnySelect {
  const q: AnySelect = anyDb(db)
    .selectFrom(`${k.table} as a`)
    .leftJoin('sys_department as dep', 'dep.depart_id', 'a.interviewee_depart_id')
    .selectAll('a')
    .select('dep.name as interviewee_depart_name');
  return k.joinNames(q);
}

type Persons = Array<{ name?: string | null; id_card?: string | null } & Record<string, any>>;

/**
 * What the two kinds do differently beyond names and fields (kinds.ts has
 * those): a vehicle has a model whose rules apply, a process type chosen by
 * model and cargo, drivers and passengers stored beside it, a plate on the
 * black list and a registration to hold; a person has none of these.
 */
interface KindRules {
  /** The visit rules' model of a stored row, or null; `live`: only a model not deleted since. */
  visitModel(db: Db, row: Record<string, any>, live: boolean): Promise<{ name: string } | null>;
  /** The form's rules beyond the schema and the visit rules, and the model they read. */
  formErrors(db: Db, v: Record<string, any>, today: string): Promise<{ errors: FieldError[]; model: VehicleModelFlags | null }>;
  /** The columns to store from a parsed form, the persons to store beside them, and the process type. */
  toRow(parsed: Record<string, any>, model: VehicleModelFlags | null): { row: Record<string, any>; persons: Persons; processType: number };
  /** The approval process a stored row goes through. */
  processTypeOf(row: Record<string, any>): number;
  /** The drivers and passengers stored beside a row. */
  persons(db: Db, id: number): Promise<Persons>;
  /** Stores them (replacing an edit's). */
  savePersons(trx: Db, id: number, persons: Persons, replacing: boolean): Promise<void>;
  /** Why the row is black-listed, as a submit's 409 message, or null. */
  blackListHit(db: Db, day: string, v: Record<string, any>, persons: Persons): Promise<string | null>;
  /** Throws the 409 when the row's model needs a registration that does not cover the visit. */
  assertRegistered(db: Db, row: Record<string, any>): Promise<void>;
}

const personListed = async (db: Db, day: string, idcard: string | null | undefined) => !!idcard && (await blackListedOn(db, 'person', idcard, day));

const rules: Record<AppointmentKind, KindRules> = {
  car: {
    visitModel: async (db, row, live) =>
      live ? vehicleModel(db, row.vehicle_type_id) : ((await db.selectFrom('vehicle_type').select('name').where('id', '=', row.vehicle_type_id).executeTakeFirst()) ?? null),
    async formErrors(db, v, today) {
      const errors: FieldError[] = [];
      let model: VehicleModelFlags | null = null;
      if (v.vehicle_type_id != null) {
        model = await vehicleModel(db, v.vehicle_type_id);
        if (!model) errors.push({ field: 'vehicle_type_id', message: '车型不存在或已被删除' });
      }
      errors.push(...carVisitErrors(v as never, model, today), ...carApplicationRuleErrors(v, model));
      return { errors, model };
    },
    toRow(parsed, model) {
      const v = stripHiddenCargo(parsed, model);
      const { carPersonList, cargo_info, dump_truck_file, ...rest } = v;
      const processType = vehicleProcessType(model!.name, v.cargo_type);
      const persons = ((carPersonList ?? []) as Persons).filter((p) => p.name || p.id_card || p.phone);
      const row = {
        ...rest,
        cargo_type: v.cargo_type ?? null,
        cargo_name: v.cargo_name ?? '',
        car_load: v.car_load ?? null,
        // The hazardous-goods section exists only for cargo type 1 (spec 000 §4).
        cargo_info: v.cargo_type === 1 && cargo_info ? JSON.stringify(cargo_info) : null,
        dump_truck_file: hasAnyFile(dump_truck_file) ? JSON.stringify(dump_truck_file) : null,
        process_type: processType,
      };
      return { row, persons, processType };
    },
    processTypeOf: (row) => row.process_type as number,
    persons: (db, id) => carPersons(db, id),
    async savePersons(trx, id, persons, replacing) {
      if (replacing) await trx.deleteFrom('car_person').where('car_application_id', '=', id).execute();
      if (!persons.length) return;
      await trx
        .insertInto('car_person')
        .values(
          persons.map((p) => ({
            car_application_id: id,
            name: p.name ?? '',
            idcard_type: p.idcard_type ?? null,
            id_card: p.id_card ?? '',
            gender: p.gender ?? null,
            phone: p.phone ?? '',
            type: p.type ?? null,
            face_photo: p.face_photo ?? '',
            pqc_number: p.pqc_number ?? '',
          })),
        )
        .execute();
    },
    async blackListHit(db, day, v, persons) {
      if (await blackListedOn(db, 'car', String(v.license_plate), day)) return `该车辆（${v.license_plate}）在黑名单中，不能提交`;
      if (await personListed(db, day, v.applicant_idcard)) return `该申请人（${v.applicant_name}，证件号${v.applicant_idcard}）在黑名单中，不能提交`;
      for (const p of persons) if (await personListed(db, day, p.id_card)) return `司乘人员（${p.name || '未填姓名'}，证件号${p.id_card}）在黑名单中，不能提交`;
      return null;
    },
    async assertRegistered(db, row) {
      const plate = String(row.license_plate).toUpperCase();
      if (await registrationMissing(db, { vehicle_type_id: row.vehicle_type_id, license_plate: plate, begin: row.visitor_begin_time, end: row.visitor_end_time })) {
        fail(ErrorCode.STATE_CONFLICT, registrationMissingMessage(plate));
      }
    },
  },
  person: {
    visitModel: async () => null,
    formErrors: async (_db, v, today) => ({ errors: personVisitErrors(v as never, today), model: null }),
    toRow: (parsed) => ({ row: { ...parsed }, persons: [], processType: ProcessType.PERSON }),
    processTypeOf: () => ProcessType.PERSON,
    persons: async () => [],
    savePersons: async () => undefined,
    blackListHit: async (db, day, v) => ((await personListed(db, day, v.visitor_idcard)) ? `该申请人（${v.visitor_name}，证件号${v.visitor_idcard}）在黑名单中，不能提交` : null),
    assertRegistered: async () => undefined,
  },
};

// ---------------------------------------------------------------- reading

/** The full application: names, parsed cargo_info and dump_truck_file, carPersonList for vehicles. 404 when absent or deleted. */
export async function loadApplication(db: Db, kind: 'car', id: number): Promise<CarApplicationRow>;
export async function loadApplication(db: Db, kind: 'person', id: number): Promise<PersonApplicationRow>;
export async function loadApplication(db: Db, kind: AppointmentKind, id: number): Promise<CarApplicationRow | PersonApplicationRow>;
export async function loadApplication(db: Db, kind: AppointmentKind, id: number): Promise<any> {
  const k = kinds[kind];
  const row = await selectWithNames(db, k).where(`a.${k.key}`, '=', id).where('a.is_deleted', '=', 0).executeTakeFirst();
  if (!row) notFound(k.noun);
  decode(k, row);
  if (k.detailPersons) row.carPersonList = await rules[kind].persons(db, id);
  return row;
}

export async function carPersons(db: Db, carApplicationId: number): Promise<CarPersonRow[]> {
  return db
    .selectFrom('car_person')
    .select(['car_person_id', 'name', 'idcard_type', 'id_card', 'gender', 'phone', 'type', 'face_photo', 'pqc_number'])
    .where('car_application_id', '=', carApplicationId)
    .orderBy('car_person_id')
    .execute();
}

/** The live row under its lock (the engine's lock order), 404 when absent or deleted; lockOwn: the caller's only. */
const lockRow = async (trx: Db, ctx: AppContext, k: KindDef, id: number) => (await lockLive(trx, ctx, k.table, id)) as SubjectRow & ApplicationRecord;
const lockOwn = async (trx: Db, ctx: AppContext, auth: AuthContext, k: KindDef, id: number) => (await lockLive(trx, ctx, k.table, id, auth)) as SubjectRow & ApplicationRecord;

const inBranch = async (db: Db, auth: AuthContext, departId: number) => (await departmentBranch(db as Kysely<DB>, auth.departId)).includes(departId);

/**
 * Who answers for one application: its creator (a contact handles the
 * applications the contact filed); a holder of the all-history list code (the
 * squad); a holder of the department history list code when it visits their
 * department branch and was submitted (the visited enterprise's reviewer).
 * The visit pass goes to exactly these (server/modules/passes.ts).
 */
export async function answersFor(db: Db, auth: AuthContext, kind: AppointmentKind, row: Pick<ApplicationRecord, 'create_user_id' | 'interviewee_depart_id' | 'state'>): Promise<boolean> {
  const codes = kinds[kind].codes;
  if (row.create_user_id === auth.userId) return true;
  if (auth.permissions.has(codes.allList)) return true;
  return auth.permissions.has(codes.historyList) && row.state !== AppState.DRAFT && (await inBranch(db, auth, row.interviewee_depart_id));
}

/**
 * Who may read one application (detail, process view), deny by default: those
 * who answer for it (answersFor), and anybody holding a task of its approval.
 * Everybody else gets 404.
 */
export async function readableBy(
  db: Db,
  auth: AuthContext,
  kind: AppointmentKind,
  row: Pick<ApplicationRecord, 'create_user_id' | 'interviewee_depart_id' | 'process_instance_id' | 'state'>,
): Promise<boolean> {
  if (await answersFor(db, auth, kind, row)) return true;
  if (row.process_instance_id != null) {
    const task = await db
      .selectFrom('process_task')
      .select('process_task_id')
      .where('process_instance_id', '=', row.process_instance_id)
      .where('user_id', '=', auth.userId)
      .limit(1)
      .executeTakeFirst();
    if (task) return true;
  }
  return false;
}

/** loadApplication for a caller: 404 unless readableBy allows it. */
export async function loadReadable(db: Db, auth: AuthContext, kind: AppointmentKind, id: number) {
  const row = await loadApplication(db, kind, id);
  if (!(await readableBy(db, auth, kind, row))) notFound(kinds[kind].noun);
  return row;
}

// ---------------------------------------------------------------- lists

/**
 * The filters of one list (spec 000 §2) for one scope, as a function of a
 * query on `<table> as a`; the page and its count use the same one. Scopes
 * follow the indexes of migration 002: own by creator, history by visited
 * department, all by the live flag; each ordered by the key.
 */
export async function listFilter(db: Db, kind: AppointmentKind, scope: ListScope, auth: AuthContext | null, q: Record<string, unknown>) {
  return filterOf(kinds[kind], scope, auth, q, scope === 'history' ? await departmentBranch(db as Kysely<DB>, auth!.departId) : []);
}

function filterOf(k: KindDef, scope: ListScope, auth: AuthContext | null, q: Record<string, unknown>, branch: number[]) {
  return (qb: AnySelect): AnySelect => {
    let r = qb;
    if (scope === 'own') r = r.where('a.create_user_id', '=', auth!.userId);
    if (scope === 'history') {
      // One department (the usual enterprise) keeps the index's order, so the newest page needs no sort.
      r = branch.length === 1 ? r.where('a.interviewee_depart_id', '=', branch[0]) : r.where('a.interviewee_depart_id', 'in', branch);
    }
    r = r.where('a.is_deleted', '=', 0);
    if (scope === 'history') r = r.where('a.state', '!=', AppState.DRAFT);
    for (const f of k.textFilters) {
      const v = q[f.field];
      if (typeof v === 'string' && v !== '') r = r.where(containsText(`a.${f.field}`, v, f.upper));
    }
    for (const f of k.intFilters) {
      const v = q[f];
      if (typeof v === 'number') r = r.where(`a.${f}`, '=', v);
    }
    // Validity range: visits that overlap it.
    if (typeof q.begin_time === 'string') r = r.where(`a.${k.end}`, '>=', q.begin_time);
    if (typeof q.end_time === 'string') r = r.where(`a.${k.begin}`, '<=', q.end_time);
    return r;
  };
}

function hasFilters(k: (typeof kinds)[AppointmentKind], q: Record<string, unknown>): boolean {
  return (
    k.textFilters.some((f) => typeof q[f.field] === 'string' && q[f.field] !== '') ||
    k.intFilters.some((f) => typeof q[f] === 'number') ||
    typeof q.begin_time === 'string' ||
    typeof q.end_time === 'string'
  );
}

/**
 * A page of rows and their names, newest first: the page's keys first (from
 * the list's index alone unless a filter reads the row), then its rows. Joined
 * before the OFFSET, every skipped row would be read and joined too. As
 * `in (…)`, not a join: with the LIMIT a bound parameter, SQLite would not
 * know the subquery is small and could scan the table against it.
 */
function pageQuery(db: Db, k: KindDef, filter: (qb: AnySelect) => AnySelect, limit: number, offset: number): AnySelect {
  const keys = filter(anyDb(db).selectFrom(`${k.table} as a`))
    .select(`a.${k.key}`)
    .orderBy(`a.${k.key}`, 'desc')
    .limit(limit)
    .offset(offset);
  return selectWithNames(db, k).where(`a.${k.key}`, 'in', keys).orderBy(`a.${k.key}`, 'desc');
}

/**
 * The page of an unfiltered list, what every list screen opens on, compiled
 * once per kind and scope (issue 28): the same query as a filtered page's with
 * no filter, the filer and the one visited department as parameters. A
 * history over a branch of several departments is built per call.
 */
const unfilteredPage = preparedPer<`${AppointmentKind}:${ListScope}`, { userId: number; departId: number; limit: number; offset: number }, Record<string, any>>((key, db, arg) => {
  const [kind, scope] = key.split(':') as [AppointmentKind, ListScope];
  const filter = filterOf(kinds[kind], scope, { userId: arg('userId') } as AuthContext, {}, [arg('departId')]);
  return pageQuery(db as unknown as Db, kinds[kind], filter, arg('limit'), arg('offset')) as unknown as Compilable<Record<string, any>>;
});

/** One page of a list: { list, total }, newest first. `q` is the list query as the route's schema (the kind's listQuery) parsed it. */
export async function listApplications(ctx: Pick<AppContext, 'db' | 'dialect'>, auth: AuthContext, kind: AppointmentKind, scope: ListScope, q: Record<string, unknown> & { size: number; pn: number }) {
  const { db } = ctx;
  const k = kinds[kind];
  const branch = scope === 'history' ? await departmentBranch(db as Kysely<DB>, auth.departId) : [];
  const filter = filterOf(k, scope, auth, q, branch);
  const count = () =>
    filter(anyDb(db).selectFrom(`${k.table} as a`))
      .select((eb) => eb.fn.countAll().as('total'))
      .executeTakeFirst() as Promise<{ total: number }>;
  const filtered = hasFilters(k, q);
  // Unfiltered totals are remembered per table and scope (everyone's all-history, a department branch's history, a
  // filer's own list) and forgotten when this server saves, submits, deletes or imports an application.
  const key = { all: 'all', history: `history:${branch.join(',')}`, own: `own:${auth.userId}` }[scope];
  return pageOf(q, filtered ? count : rememberedTotal({ db, table: k.table, scope: key }, count), async (limit, offset) => {
    const rows =
      filtered || branch.length > 1
        ? await pageQuery(db, k, filter, limit, offset).execute()
        : (await unfilteredPage(`${kind}:${scope}`)(anyDb(db), ctx.dialect, { userId: auth.userId, departId: branch[0] ?? 0, limit, offset })).rows;
    return rows.map((r) => decode(k, r));
  });
}

/** Applications of one kind by key with their names (a queue page's rows), prepared per kind and page length; JSON columns left as stored. */
const rowsByKeys = preparedIn<AppointmentKind, Record<string, never>, Record<string, unknown>>(
  (kind, db, _arg, keys) => selectWithNames(db as unknown as Db, kinds[kind]).where(`a.${kinds[kind].key}`, 'in', keys) as unknown as Compilable<Record<string, unknown>>,
);

export async function applicationsByKeys(ctx: Pick<AppContext, 'db' | 'dialect'>, kind: AppointmentKind, keys: readonly number[]): Promise<Array<Record<string, unknown>>> {
  return keys.length ? (await rowsByKeys(kind, keys)(anyDb(ctx.db), ctx.dialect, {})).rows : [];
}

/**
 * Every row of a list, in pages of `pageSize` by key (newest first), for the
 * export: each page is its own short query, so neither the rows nor a read
 * transaction are held while the file is written.
 */
export async function* applicationPages(db: Db, auth: AuthContext | null, kind: AppointmentKind, scope: ListScope, q: Record<string, unknown>, pageSize = 1000) {
  const k = kinds[kind];
  const filter = await listFilter(db, kind, scope, auth, q);
  let last: number | null = null;
  for (;;) {
    let query = filter(selectWithNames(db, k));
    if (last !== null) query = query.where(`a.${k.key}`, '<', last);
    const rows = await query.orderBy(`a.${k.key}`, 'desc').limit(pageSize).execute();
    if (rows.length) yield rows.map((r) => decode(k, r));
    if (rows.length < pageSize) return;
    last = rows[rows.length - 1][k.key] as number;
  }
}

// ---------------------------------------------------------------- validation

async function vehicleModel(db: Db, id: number): Promise<VehicleModelFlags | null> {
  const m = await db.selectFrom('vehicle_type').select(['name', 'need_blind_video', 'need_record', 'show_cargo_type']).where('id', '=', id).where('deleted', '=', 0).executeTakeFirst();
  return m ?? null;
}

/**
 * The rules beyond the schema: visit times against today's park date, the
 * model-dependent fields, and that the model and the visited department exist.
 */
async function ruleErrors(db: Db, ctx: AppContext, k: KindDef, v: Record<string, any>): Promise<{ errors: FieldError[]; model: VehicleModelFlags | null }> {
  // `v` may hold only the fields that passed the schema (parseWithRules): a missing one was reported there.
  const { errors, model } = await rules[k.kind].formErrors(db, v, ctx.time());
  const dept =
    v.interviewee_depart_id == null || (await db.selectFrom('sys_department').select('depart_id').where('depart_id', '=', v.interviewee_depart_id).where('deleted', '=', 0).executeTakeFirst());
  if (!dept) errors.push({ field: 'interviewee_depart_id', message: '被访部门不存在或已被删除' });
  return { errors, model };
}

// ---------------------------------------------------------------- black lists

/**
 * Why an application is black-listed, as the 409 message of a submit, or null.
 * Vehicles: the plate, the applicant's and every driver's or passenger's ID;
 * persons: the visitor's ID.
 */
export async function blackListHit(db: Db, ctx: AppContext, kind: AppointmentKind, v: Record<string, any>, persons: Persons = []): Promise<string | null> {
  return rules[kind].blackListHit(db, dateOf(ctx.time()), v, persons);
}

/**
 * DESIGN.md §7: a vehicle model with need_record = 1 is booked only with an
 * approved registration of its plate whose begin..end covers the visit.
 * Throws the 409 of a submit, resume, delay or amend (new dates must be covered
 * too); read after the application's lock, as the black lists are.
 */
/** The model the visit rules of a stored row read (a vehicle's, even if deleted since), or null. */
export const visitModelOf = (db: Db, kind: AppointmentKind, row: Record<string, any>) => rules[kind].visitModel(db, row, false);

export async function assertRegistered(db: Db, k: KindDef, row: ApplicationRecord): Promise<void> {
  await rules[k.kind].assertRegistered(db, row);
}

// ---------------------------------------------------------------- saving

const hasAnyFile = (files: Record<string, string> | undefined | null) => !!files && Object.values(files).some((s) => !!s);

/**
 * Creates (no id) or edits (id) a draft of the caller's and answers its id.
 * Edit needs a state that allows it (0, 3, 4) and keeps the state: a
 * rejected or revoked application stays so until it is resumed. When the
 * edit changes which approval applies (the process type or the visited
 * department), an old approval cannot be resumed and the application goes
 * back to draft, to be submitted afresh.
 */
export async function saveApplication(trx: Db, ctx: AppContext, auth: AuthContext, kind: AppointmentKind, values: unknown, id?: number): Promise<number> {
  const k = kinds[kind];
  const current = id === undefined ? null : await lockOwn(trx, ctx, auth, k, id);
  if (current) assertAllows('edit', current.state);
  // A rejected or revoked application's form showed its personal fields masked: those sent back unchanged keep their values.
  if (current) values = keepStoredWhereMasked(values, await loadApplication(trx, kind, id!), k.labels);

  let model: VehicleModelFlags | null = null;
  const parsed = (await parseWithRules(k.schemas.save, values, k.labels, async (v) => {
    const checked = await ruleErrors(trx, ctx, k, v);
    model = checked.model;
    return checked.errors;
  })) as Record<string, any>;

  const now = ctx.time();
  const { row, persons, processType } = rules[kind].toRow(parsed, model);
  row.in_black_list = (await blackListHit(trx, ctx, kind, row, persons)) ? 1 : 0;
  row.update_user_name = auth.userName;
  row.update_time = now;

  let appId: number;
  // A new draft changes the all-history total; an edit may move the application to another department or back to draft.
  afterCommit(trx, () => tableChanged(k.table));
  if (!current) {
    const inserted = await anyDb(trx)
      .insertInto(k.table)
      // A unique placeholder until the id, which the number is made of, is known.
      .values({ ...row, application_number: `TMP${randomUUID().replace(/-/g, '').slice(0, 28)}`, state: AppState.DRAFT, create_user_id: auth.userId, create_time: now })
      .returning(k.key)
      .executeTakeFirstOrThrow();
    appId = inserted[k.key] as number;
    await anyDb(trx)
      .updateTable(k.table)
      .set({ application_number: applicationNumber(k.numberPrefix, now, appId) })
      .where(k.key, '=', appId)
      .execute();
  } else {
    appId = id!;
    const approvalChanged = current.process_instance_id != null && (rules[kind].processTypeOf(current) !== processType || current.interviewee_depart_id !== row.interviewee_depart_id);
    if (approvalChanged) Object.assign(row, { state: AppState.DRAFT, process_instance_id: null });
    await anyDb(trx).updateTable(k.table).set(row).where(k.key, '=', appId).execute();
  }

  await rules[kind].savePersons(trx, appId, persons, !!current);
  // Who may read a photo follows the applications holding it (modules/file-access.ts).
  await recordFileRefs(
    trx,
    k.table,
    appId,
    fileNamesOfRow(
      k.table,
      row,
      persons.map((p) => p.face_photo),
    ),
  );
  return appId;
}

// ---------------------------------------------------------------- actions

const touch = (auth: AuthContext, ctx: AppContext) => ({ update_user_name: auth.userName, update_time: ctx.time() });

/** Soft delete of the caller's own application (state not 1 or 2). */
export async function deleteApplication(trx: Db, ctx: AppContext, auth: AuthContext, kind: AppointmentKind, id: number): Promise<void> {
  const k = kinds[kind];
  const row = await lockOwn(trx, ctx, auth, k, id);
  assertAllows('delete', row.state);
  afterCommit(trx, () => tableChanged(k.table));
  await anyDb(trx)
    .updateTable(k.table)
    .set({ is_deleted: 1, ...touch(auth, ctx) })
    .where(k.key, '=', id)
    .execute();
}

/** Re-runs the visit and model rules on a stored application (the spec's "submit checks"); dates may have passed since it was saved. */
async function recheck(trx: Db, ctx: AppContext, k: KindDef, row: ApplicationRecord) {
  const v = decode(k, { ...row });
  const { errors } = await ruleErrors(trx, ctx, k, v);
  if (errors.length) throw ruleFailure(errors, k.labels);
}

/** Updates in_black_list from the lists as they are now; answers the refusal message when listed. */
async function refreshBlackList(trx: Db, ctx: AppContext, k: KindDef, row: ApplicationRecord): Promise<string | null> {
  const persons = await rules[k.kind].persons(trx, idOf(k, row));
  const hit = await blackListHit(trx, ctx, k.kind, row, persons);
  const flag = hit ? 1 : 0;
  if (row.in_black_list !== flag) await anyDb(trx).updateTable(k.table).set({ in_black_list: flag }).where(k.key, '=', idOf(k, row)).execute();
  return hit;
}

export type GuardedOutcome<T> = { ok: T } | { blackListed: string };

/**
 * Submit (state 0): rules re-checked, black lists re-checked, then the
 * approval starts in the same transaction. A black-listed application is not
 * thrown out of the transaction but answered, so that the caller commits the
 * refreshed in_black_list flag before refusing with 409.
 */
export async function submitApplication(trx: Db, ctx: AppContext, auth: AuthContext, kind: AppointmentKind, id: number): Promise<GuardedOutcome<number>> {
  const k = kinds[kind];
  const row = await lockOwn(trx, ctx, auth, k, id);
  assertAllows('submit', row.state);
  await recheck(trx, ctx, k, row);
  const hit = await refreshBlackList(trx, ctx, k, row);
  if (hit) return { blackListed: hit };
  await assertRegistered(trx, k, row);
  const start = { processType: rules[kind].processTypeOf(row), applicantUserId: row.create_user_id, intervieweeDepartId: row.interviewee_depart_id };
  // A submitted draft joins its department's history: that total is forgotten.
  afterCommit(trx, () => tableChanged(k.table));
  return { ok: await submitForApproval(trx, ctx, k.table, id, start, touch(auth, ctx)) };
}

/** Which revoke: the applicant's own, from the department history, or from the all-history screen. */
export type RevokeScope = 'own' | 'history' | 'all';
const revokeAction: Record<RevokeScope, AppointmentAction> = { own: 'revoke', history: 'historyRevoke', all: 'allRevoke' };

/** A row the caller may act on from a history screen; anything else reads as absent. */
async function lockInScope(trx: Db, ctx: AppContext, auth: AuthContext, k: KindDef, id: number, scope: RevokeScope) {
  if (scope === 'own') return lockOwn(trx, ctx, auth, k, id);
  const row = await lockRow(trx, ctx, k, id);
  if (scope === 'history' && (row.state === AppState.DRAFT || !(await inBranch(trx, auth, row.interviewee_depart_id)))) notFound(k.noun);
  return row;
}

/** Revoke (state 1 or 2) with a reason: open tasks close, state 4. */
export async function revokeApplication(trx: Db, ctx: AppContext, auth: AuthContext, kind: AppointmentKind, id: number, reason: string, scope: RevokeScope = 'own'): Promise<void> {
  const k = kinds[kind];
  const row = await lockInScope(trx, ctx, auth, k, id, scope);
  await revokeApproval(trx, ctx, k.table, row, revokeAction[scope], reason, touch(auth, ctx));
}

/** Reject from the all-history screen (state 1): recorded as the caller's decision at the active node. */
export async function rejectApplication(trx: Db, ctx: AppContext, auth: AuthContext, kind: AppointmentKind, id: number, remark: string): Promise<void> {
  const k = kinds[kind];
  const row = await lockRow(trx, ctx, k, id);
  assertAllows('reject', row.state);
  await rejectInstance(trx, ctx, instanceOf(row, 'reject'), { userId: auth.userId, departId: auth.departId }, remark);
  await anyDb(trx).updateTable(k.table).set(touch(auth, ctx)).where(k.key, '=', id).execute();
}

/** Continue approval (state 3 or 4) from the node where it stopped; the black lists are checked again first. */
export async function resumeApplication(trx: Db, ctx: AppContext, auth: AuthContext, kind: AppointmentKind, id: number): Promise<GuardedOutcome<null>> {
  const k = kinds[kind];
  const row = await lockRow(trx, ctx, k, id);
  assertAllows('resume', row.state);
  const instanceId = instanceOf(row, 'resume');
  const hit = await refreshBlackList(trx, ctx, k, row);
  if (hit) return { blackListed: hit };
  await assertRegistered(trx, k, row);
  await resumeInstance(trx, ctx, instanceId);
  await anyDb(trx).updateTable(k.table).set(touch(auth, ctx)).where(k.key, '=', id).execute();
  return { ok: null };
}

/**
 * Delay of an approved application (state 2) of the caller's: the new range
 * applies at once (no second approval) and is recorded with is_delayed and the
 * reason, and in the operation log. The new end must be after today, and the
 * span limit of the visitor type still holds, so a delay cannot turn a
 * three-day visit into a year.
 */
export async function delayApplication(trx: Db, ctx: AppContext, auth: AuthContext, kind: AppointmentKind, body: unknown): Promise<void> {
  const k = kinds[kind];
  await applyDelay(trx, ctx, auth, kind, parse(k.schemas.delay, body, k.labels) as Record<string, any>);
}

/** delayApplication with the body already parsed by the kind's delayBody (the route's schema). */
export async function applyDelay(trx: Db, ctx: AppContext, auth: AuthContext, kind: AppointmentKind, v: Record<string, any>): Promise<void> {
  const k = kinds[kind];
  const row = await lockOwn(trx, ctx, auth, k, v.id);
  assertAllows('delay', row.state);
  const today = ctx.time();
  const range = { begin: v[k.begin] as string, end: v[k.end] as string };
  let errors = delayErrors(range, today, { begin: k.begin, end: k.end });
  if (!errors.length) {
    const span = k.visitRules.errors({ visitor_type: row.visitor_type, ...range }, await rules[kind].visitModel(trx, row, true), today);
    // Only the span rules: the earliest-start rules are for new visits, a delay may start today.
    errors = span.filter((e) => e.field === k.end);
  }
  if (errors.length) throw ruleFailure(errors, k.labels);
  await assertRegistered(trx, k, { ...row, [k.begin]: range.begin, [k.end]: range.end });
  await anyDb(trx)
    .updateTable(k.table)
    .set({ [k.begin]: range.begin, [k.end]: range.end, is_delayed: 1, delay_reason: v.delay_reason, ...touch(auth, ctx) })
    .where(k.key, '=', v.id)
    .execute();
}

/** The approval process of an application the caller may read (state not 0). */
export async function applicationProcess(db: Db, auth: AuthContext, kind: AppointmentKind, id: number) {
  const row = (await loadReadable(db, auth, kind, id)) as unknown as ApplicationRecord;
  return approvalProcess(db, { ...row, status: row.state });
}
