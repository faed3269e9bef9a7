import { createHmac, createSecretKey, randomBytes, webcrypto, type KeyObject } from 'node:crypto';
import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { createGzip, gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { CompactSign, exportJWK } from 'jose';
import { sql, type Kysely } from 'kysely';
import { AppState, isHazardousModel } from '../../../domain/appointments';
import { ListType } from '../../../domain/registers';
import {
  ALLOWLIST_HORIZON_HOURS,
  ALLOWLIST_TYPE,
  SUBJECT_HASH_BYTES,
  normaliseSubject,
  type AllowEntry,
  type Allowlist,
  type ListedVisit,
  type SubjectKind,
  type VisitExtra,
} from '../../../domain/offline-gate';
import { PASS_KEY_ALGORITHM, passKeyId } from '../../../domain/pass';
import { RoutePublish, splitIds } from '../../../domain/schemas/driving-route';
import { allowlistKeyAnswer, deviceApi } from '../../../domain/schemas/device-event';
import { addMinutes, formatInZone } from '../../../domain/time';
import { earliestCoveringShipment, parksOfArea, WAYBILL_DAYS_AFTER_SHIPMENT } from '../../../domain/gate';
import { hazmatCapOf } from '../../../domain/schemas/safety-setting';
import { addDays, dateOf } from '../../../domain/visit-rules';
import type { AppContext } from '../../core/context';
import { ok } from '../../core/errors';
import { route } from '../../core/route';
import type { DB } from '../../db/schema';
import { ALLOWLIST_LOCK_CLASS, changeClock } from '../../db/migrations/037-offline-gate';
import { observeAllowlistRecords } from '../../ops/metrics';
import { readSafetySettings } from '../safety-settings';
import { markSeen } from './ingest';

/**
 * The offline gate's allow-list (docs/offline-gates.md): GET
 * /api/device/allowlist answers, as one ES256 compact JWS, what a gate may
 * decide on its own (domain/offline-gate.ts decideOffline), each plate and ID
 * number only as the gate's own HMAC; since a version, only what changed.
 */

const SETTING_KEY = 'allowlist_signing_key';
/** How long the change log keeps its rows: an older `since` gets the full list. */
export const CHANGE_LOG_DAYS = 7;
/** A delta naming more subjects than this is answered as the full list instead. */
const MAX_DELTA_SUBJECTS = 5_000;
/** A built full list is reused this long (its iat says when it was built). */
const FULL_LIST_TTL_MS = 10 * 60_000;
/** The server's records are patched from the change log, and read whole again once they are this old. */
const RECORDS_REBUILD_MS = 60 * 60_000;
/** Entries hashed between two turns of the event loop while a full list is written. */
const ENTRY_BATCH = 2_000;
/** Full lists kept per server: one per device and version. */
const FULL_LIST_CACHE = 8;
/** The clock logs the passing of time at most this often. */
const CLOCK_STEP_MS = 60_000;
/** Rows a query takes per IN list. */
const CHUNK = 500;

interface AllowlistKeys {
  kid: string;
  jwk: { kty: 'EC'; crv: 'P-256'; x: string; y: string };
  privateKey: webcrypto.CryptoKey;
  /** The secret every device's HMAC key is derived from. */
  secret: Buffer;
}

const loaded = new WeakMap<object, Promise<AllowlistKeys>>();

/**
 * The signing pair and the HMAC secret, generated on first use and kept in
 * sys_setting as one row (as passes.ts keeps the pass key), so every server of
 * one database signs with one key and derives the same device keys.
 */
export function loadAllowlistKeys(db: Kysely<DB>): Promise<AllowlistKeys> {
  let keys = loaded.get(db);
  if (!keys) {
    keys = readKeys(db);
    keys.catch(() => loaded.delete(db));
    loaded.set(db, keys);
  }
  return keys;
}

async function readKeys(db: Kysely<DB>): Promise<AllowlistKeys> {
  const read = () => db.selectFrom('sys_setting').select('value').where('key', '=', SETTING_KEY).executeTakeFirst();
  let row = await read();
  if (!row) {
    const pair = await webcrypto.subtle.generateKey(PASS_KEY_ALGORITHM, true, ['sign', 'verify']);
    const value = JSON.stringify({
      pkcs8: Buffer.from(await webcrypto.subtle.exportKey('pkcs8', pair.privateKey)).toString('base64url'),
      spki: Buffer.from(await webcrypto.subtle.exportKey('spki', pair.publicKey)).toString('base64url'),
      secret: randomBytes(32).toString('base64url'),
    });
    await db
      .insertInto('sys_setting')
      .values({ key: SETTING_KEY, value })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    row = await read();
    if (!row) throw new Error('allow-list signing key could not be stored');
  }
  const stored = JSON.parse(row.value) as { pkcs8: string; spki: string; secret: string };
  const spki = Buffer.from(stored.spki, 'base64url');
  const publicKey = await webcrypto.subtle.importKey('spki', spki, PASS_KEY_ALGORITHM, true, ['verify']);
  const jwk = await exportJWK(publicKey);
  return {
    kid: await passKeyId(spki),
    jwk: { kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y! },
    privateKey: await webcrypto.subtle.importKey('pkcs8', Buffer.from(stored.pkcs8, 'base64url'), PASS_KEY_ALGORITHM, false, ['sign']),
    secret: Buffer.from(stored.secret, 'base64url'),
  };
}

/** A device's HMAC key: derived from the secret, the device and its current key's hash, so a new key brings a new one and nothing is stored. */
export async function deviceHmacKey(db: Kysely<DB>, deviceId: number, keyHash: string): Promise<string> {
  const { secret } = await loadAllowlistKeys(db);
  return createHmac('sha256', secret).update(`allowlist:${deviceId}:${keyHash}`).digest('base64url');
}

// ---------------------------------------------------------------- the change log and its clock

interface Clock {
  now_time: string;
  horizon: string;
}

const ms = (ctx: AppContext) => sql.raw(changeClock(ctx.dialect));
const dayStart = (t: string) => `${dateOf(t)} 00:00:00`;
const dayEnd = (t: string) => `${dateOf(t)} 23:59:59`;

/**
 * Logs what the passing of time changes since the clock last moved: visits
 * entering the 24 h horizon or ending, list entries beginning within it or
 * ending. One conditional update moves the clock, so of two servers only one
 * logs each step; a clock idle past the log's keeping logs one '*' (all).
 */
async function catchUp(ctx: AppContext): Promise<Clock> {
  const { db } = ctx;
  const read = () => db.selectFrom('allowlist_clock').select(['now_time', 'horizon']).where('id', '=', 1).executeTakeFirstOrThrow();
  const before = await read();
  const nowMs = ctx.now();
  const now = formatInZone(nowMs, ctx.config.tz);
  const horizon = formatInZone(nowMs + ALLOWLIST_HORIZON_HOURS * 3_600_000, ctx.config.tz);
  if (before.now_time && now < addMinutes(before.now_time, CLOCK_STEP_MS / 60_000)) return before;
  await db.transaction().execute(async (trx) => {
    // The log's lock first, held to the commit as the triggers hold it, so these rows' ids too become visible in order.
    if (ctx.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${ALLOWLIST_LOCK_CLASS}, 0)`.execute(trx);
    const moved = await trx.updateTable('allowlist_clock').set({ now_time: now, horizon }).where('id', '=', 1).where('now_time', '=', before.now_time).executeTakeFirst();
    if (Number(moved.numUpdatedRows) === 0 || !before.now_time) return;
    const idle = Date.parse(`${now.replace(' ', 'T')}Z`) - Date.parse(`${before.now_time.replace(' ', 'T')}Z`);
    if (idle > CHANGE_LOG_DAYS * 86_400_000) {
      await sql`insert into allowlist_change (kind, subject, at_ms) values ('*', '', ${ms(ctx)})`.execute(trx);
    } else {
      const [oldNow, oldH] = [before.now_time, before.horizon];
      const visits = (kind: SubjectKind, table: string, subject: string, begin: string, end: string) =>
        sql`insert into allowlist_change (kind, subject, at_ms) select ${kind}, s, ${ms(ctx)} from (select distinct ${sql.ref(subject)} as s from ${sql.table(table)}
          where state = ${AppState.APPROVED} and is_deleted = 0
          and ((${sql.ref(begin)} > ${oldH} and ${sql.ref(begin)} <= ${horizon}) or (${sql.ref(end)} >= ${oldNow} and ${sql.ref(end)} < ${now}))) x`.execute(trx);
      const entries = (kind: SubjectKind, table: string, subject: string) =>
        sql`insert into allowlist_change (kind, subject, at_ms) select ${kind}, s, ${ms(ctx)} from (select distinct ${sql.ref(subject)} as s from ${sql.table(table)}
          where status = ${AppState.APPROVED} and deleted = 0
          and ((start_time > ${dayEnd(oldH)} and start_time <= ${dayEnd(horizon)}) or (end_time >= ${dayStart(oldNow)} and end_time < ${dayStart(now)}))) x`.execute(trx);
      await visits('car', 'car_application', 'license_plate', 'visitor_begin_time', 'visitor_end_time');
      await visits('person', 'person_application', 'visitor_idcard', 'visit_begin_time', 'visit_end_time');
      await entries('car', 'car_black_white_list', 'license_plate');
      await entries('person', 'person_black_white_list', 'idcard');
    }
    // The newest row stays: its id is the version.
    const newest = await trx
      .selectFrom('allowlist_change')
      .select((eb) => eb.fn.max('id').as('v'))
      .executeTakeFirst();
    await trx
      .deleteFrom('allowlist_change')
      .where('at_ms', '<', Math.round(nowMs) - CHANGE_LOG_DAYS * 86_400_000)
      .where('id', '<', Number(newest?.v ?? 0))
      .execute();
  });
  return read();
}

async function versionRange(db: Kysely<DB>): Promise<{ version: number; oldest: number | null }> {
  const r = await db
    .selectFrom('allowlist_change')
    .select((eb) => [eb.fn.max('id').as('hi'), eb.fn.min('id').as('lo')])
    .executeTakeFirst();
  return { version: Number(r?.hi ?? 0), oldest: r?.lo === null || r?.lo === undefined ? null : Number(r.lo) };
}

interface Changed {
  car: string[];
  person: string[];
}

/** The subjects changed after `since`, or null when only the full list will do (too old, a change of everything, too many). */
async function changedSince({ db }: AppContext, since: number, range: { version: number; oldest: number | null }): Promise<Changed | null> {
  if (since > range.version) return null;
  if (range.oldest !== null && since < range.oldest - 1) return null;
  if (range.oldest === null && since !== range.version) return null;
  // Ids become visible in order (migration 037, ALLOWLIST_LOCK_CLASS): every change after `since` has a larger id.
  const rows = await db
    .selectFrom('allowlist_change')
    .select(['kind', 'subject'])
    .distinct()
    .where('id', '>', since)
    .limit(MAX_DELTA_SUBJECTS + 1)
    .execute();
  if (rows.length > MAX_DELTA_SUBJECTS || rows.some((r) => r.kind === '*')) return null;
  return { car: rows.filter((r) => r.kind === 'car').map((r) => r.subject), person: rows.filter((r) => r.kind === 'person').map((r) => r.subject) };
}

// ---------------------------------------------------------------- the entries, in clear (server side only)

/** One subject's entry before hashing. */
interface Record_ {
  kind: SubjectKind;
  subject: string;
  entry: Omit<AllowEntry, 'h'>;
  /** The entry's JSON after its hash, made once for every gate: `"a":[…]}`, or `}` when empty. */
  json?: string;
}

export interface Records {
  /** Every published route bound to a department: the gates on it. */
  routes: Record<string, number[]>;
  bySubject: Map<string, Record_>;
}

/** Plates and ID numbers typed into a reason are masked: nothing in the list names a subject in clear. */
const maskNumbers = (text: string) => text.replace(/[\u4e00-\u9fa5][A-Z][A-Z0-9]{4,6}|\d{17}[\dXx]|\d{15}/gi, '***');

async function inChunks<T>(values: string[] | undefined, run: (chunk: string[] | undefined) => Promise<T[]>): Promise<T[]> {
  if (!values) return run(undefined);
  const out: T[] = [];
  for (let i = 0; i < values.length; i += CHUNK) out.push(...(await run(values.slice(i, i + CHUNK))));
  return out;
}

/**
 * Every entry the clock's window holds (or only those of `only`): approved
 * visits ending after now and beginning within the horizon, black and white
 * list entries in force on some day of it, 禁止入园 marks. Arrays are newest
 * first, as the access lookup orders them.
 */
export async function buildRecords(db: Kysely<DB>, clock: Clock, only?: Changed): Promise<Records> {
  const { now_time: now, horizon } = clock;
  const bySubject = new Map<string, Record_>();
  const rec = (kind: SubjectKind, subject: string) => {
    const k = `${kind}:${subject}`;
    let r = bySubject.get(k);
    if (!r) bySubject.set(k, (r = { kind, subject, entry: {} }));
    return r.entry;
  };
  const car = only?.car;
  const person = only?.person;
  const skipCar = !!only && !only.car.length;
  const skipPerson = !!only && !only.person.length;

  // Routes: each department's published route, and the gates on it.
  const gates = new Map((await db.selectFrom('location').select(['id', 'equipment_id']).where('equipment_id', 'is not', null).execute()).map((l) => [l.id, l.equipment_id!]));
  const bound = await db
    .selectFrom('driving_route_depart as b')
    .innerJoin('driving_route as r', 'r.id', 'b.route_id')
    .select(['b.depart_id', 'r.id', 'r.location_id'])
    .where('r.deleted', '=', 0)
    .where('r.publish', '=', RoutePublish.PUBLISHED)
    .execute();
  const routeOf = new Map(bound.map((b) => [b.depart_id, b.id]));
  // All of them, in deltas too: a gate takes a delta's routes in place of its own.
  const routes: Record<string, number[]> = {};
  for (const b of bound) routes[String(b.id)] = splitIds(b.location_id).flatMap((l) => (gates.has(l) ? [gates.get(l)!] : []));

  if (!skipCar) {
    const models = new Map((await db.selectFrom('vehicle_type').select(['id', 'name', 'need_record']).where('deleted', '=', 0).execute()).map((m) => [m.id, m]));
    const visits = await inChunks(car, (chunk) => {
      const q = db
        .selectFrom('car_application')
        .select([
          'car_application_id as id',
          'application_number',
          'license_plate',
          'visitor_begin_time as begin',
          'visitor_end_time as end',
          'vehicle_type_id',
          'interviewee_depart_id',
          'visit_area',
          'state',
          'is_deleted',
        ]);
      // A few subjects: by the plate's index alone, the rest of the rule in code (SQLite would rather walk the state index).
      if (chunk) return q.where('license_plate', 'in', chunk).execute();
      return q.where('state', '=', AppState.APPROVED).where('is_deleted', '=', 0).where('visitor_end_time', '>=', now).where('visitor_begin_time', '<=', horizon).execute();
    }).then((rows) => rows.filter((v) => v.state === AppState.APPROVED && v.is_deleted === 0 && v.end >= now && v.begin <= horizon));
    visits.sort((a, b) => b.id - a.id);
    const registered = new Set(visits.filter((v) => models.get(v.vehicle_type_id)?.need_record === 1).map((v) => v.license_plate.toUpperCase()));
    const hazardous = new Set(visits.filter((v) => isHazardousModel(models.get(v.vehicle_type_id)?.name)).map((v) => v.license_plate));
    const registrations = new Map<string, Array<{ begin_time: string; end_time: string }>>();
    for (const r of await inChunks([...registered], (chunk) =>
      chunk!.length
        ? db
            .selectFrom('vehicle_registration')
            .select(['license_plate', 'begin_time', 'end_time'])
            .where('state', '=', AppState.APPROVED)
            .where('deleted', '=', 0)
            .where('end_time', '>=', now)
            .where('license_plate', 'in', chunk!)
            .execute()
        : Promise.resolve([]),
    )) {
      const list = registrations.get(r.license_plate) ?? [];
      list.push(r);
      registrations.set(r.license_plate, list);
    }
    const waybills = new Map<string, string[]>();
    for (const w of await inChunks([...hazardous], (chunk) =>
      chunk!.length
        ? db
            .selectFrom('transport_list')
            .select(['license_plate', 'shipment_date'])
            .where('state', '=', AppState.APPROVED)
            .where('deleted', '=', 0)
            .where('shipment_date', '>=', earliestCoveringShipment(dateOf(now)))
            .where('license_plate', 'in', chunk!)
            .execute()
        : Promise.resolve([]),
    )) {
      const list = waybills.get(w.license_plate) ?? [];
      for (let d = 0; d <= WAYBILL_DAYS_AFTER_SHIPMENT; d++) list.push(addDays(w.shipment_date, d));
      waybills.set(w.license_plate, list);
    }
    const safety = hazardous.size ? await readSafetySettings(db) : null;
    for (const v of visits) {
      const model = models.get(v.vehicle_type_id);
      const extra: VisitExtra = {};
      // server/modules/park-rules.ts registrationMissing, for every listed visit.
      if (model?.need_record === 1 && !(registrations.get(v.license_plate.toUpperCase()) ?? []).some((r) => r.begin_time <= v.begin && r.end_time >= v.end)) extra.x = 1;
      // A hazardous-goods vehicle passes only on a day an approved waybill covers, and never offline into a park that caps them (domain/gate.ts hazmatDenial).
      if (isHazardousModel(model?.name)) {
        extra.d = [...new Set((waybills.get(v.license_plate) ?? []).filter((d) => d >= dateOf(v.begin) && d <= dateOf(v.end)))].sort();
        if (parksOfArea(v.visit_area).some((park) => hazmatCapOf(safety!, park) !== null)) extra.c = 1;
      }
      const route = routeOf.get(v.interviewee_depart_id);
      if (route !== undefined) extra.r = route;
      const e = rec('car', v.license_plate);
      (e.a ??= []).push(Object.keys(extra).length ? [v.application_number, v.begin, v.end, extra] : ([v.application_number, v.begin, v.end] as ListedVisit));
    }

    const marks = await inChunks(car, (chunk) => {
      const q = db.selectFrom('vehicle_mark').select(['id', 'license_plate', 'remark', 'status', 'deleted', 'alarm_id']);
      if (chunk) return q.where('license_plate', 'in', chunk).execute();
      return q.where('status', '=', 1).where('deleted', '=', 0).where('alarm_id', '=', 1).execute();
    }).then((rows) => rows.filter((m) => m.status === 1 && m.deleted === 0 && m.alarm_id === 1));
    marks.sort((a, b) => b.id - a.id);
    for (const m of marks) {
      const e = rec('car', m.license_plate);
      if (e.m === undefined) e.m = maskNumbers(m.remark);
    }
  }

  if (!skipPerson) {
    const visits = await inChunks(person, (chunk) => {
      const q = db
        .selectFrom('person_application')
        .select(['person_application_id as id', 'application_number', 'visitor_idcard', 'visit_begin_time as begin', 'visit_end_time as end', 'state', 'is_deleted']);
      if (chunk) return q.where('visitor_idcard', 'in', chunk).execute();
      return q.where('state', '=', AppState.APPROVED).where('is_deleted', '=', 0).where('visit_end_time', '>=', now).where('visit_begin_time', '<=', horizon).execute();
    }).then((rows) => rows.filter((v) => v.state === AppState.APPROVED && v.is_deleted === 0 && v.end >= now && v.begin <= horizon));
    visits.sort((a, b) => b.id - a.id);
    for (const v of visits) (rec('person', v.visitor_idcard).a ??= []).push([v.application_number, v.begin, v.end]);
  }

  // Black and white list entries in force on some day from now to the horizon.
  for (const [kind, table, column, subjects, skip] of [
    ['car', 'car_black_white_list', 'license_plate', car, skipCar],
    ['person', 'person_black_white_list', 'idcard', person, skipPerson],
  ] as const) {
    if (skip) continue;
    type Entry = { id: number; subject: string; type: number; start_time: string | null; end_time: string | null; in_reason: string; status: number; deleted: number };
    const inWindow = (r: Entry) =>
      r.status === AppState.APPROVED && r.deleted === 0 && (r.start_time === null || r.start_time <= dayEnd(horizon)) && (r.end_time === null || r.end_time >= dayStart(now));
    const rows = await inChunks(subjects, (chunk) => {
      const q = (db as unknown as Kysely<any>).selectFrom(table).select(['id', `${column} as subject`, 'type', 'start_time', 'end_time', 'in_reason', 'status', 'deleted']);
      return (chunk ? q.where(column, 'in', chunk) : q.where('status', '=', AppState.APPROVED).where('deleted', '=', 0)).execute() as Promise<Entry[]>;
    }).then((all) => all.filter(inWindow));
    rows.sort((a, b) => b.id - a.id);
    for (const r of rows) {
      const e = rec(kind, r.subject);
      if (r.type === ListType.BLACK) (e.b ??= []).push([r.start_time, r.end_time, maskNumbers(r.in_reason)]);
      else (e.w ??= []).push([r.start_time, r.end_time]);
    }
  }
  return { routes, bySubject };
}

/** The records after the change log's `changed`: each changed subject's record as `part` has it, or none. */
function patched(base: Records, part: Records, changed: Changed): Records {
  const bySubject = new Map(base.bySubject);
  for (const s of changed.car) bySubject.delete(`car:${s}`);
  for (const s of changed.person) bySubject.delete(`person:${s}`);
  for (const [k, r] of part.bySubject) bySubject.set(k, r);
  return { routes: part.routes, bySubject };
}

// ---------------------------------------------------------------- per device: hashed, compressed, signed

const subjectHash = (r: { kind: SubjectKind; subject: string }, hmacKey: KeyObject) =>
  createHmac('sha256', hmacKey).update(normaliseSubject(r.kind, r.subject)).digest().subarray(0, SUBJECT_HASH_BYTES).toString('base64url');

const HASH_WORKER = new URL('./subject-hash-worker.mjs', import.meta.url);
/** Fewer subjects than this are hashed here: a thread's start would cost more. */
const HASH_IN_THREADS_FROM = 5_000;
const HASH_THREADS = Math.max(1, Math.min(4, availableParallelism()));

/**
 * Every record's hash, ENTRY_BATCH at a time as they are made: `onBatch(start,
 * hashes)` for records start, start + 1, …, batches in no set order. In
 * HASH_THREADS threads (subject-hash-worker.mjs), each taking a share.
 */
export async function hashInBatches(
  records: ReadonlyArray<{ kind: SubjectKind; subject: string }>,
  hmacKey: KeyObject,
  onBatch: (start: number, hashes: string[]) => void | Promise<void>,
): Promise<void> {
  if (records.length < HASH_IN_THREADS_FROM) {
    for (let start = 0; start < records.length; start += ENTRY_BATCH)
      await onBatch(
        start,
        records.slice(start, start + ENTRY_BATCH).map((r) => subjectHash(r, hmacKey)),
      );
    return;
  }
  const key = hmacKey.export();
  const share = Math.ceil(records.length / HASH_THREADS);
  // 12 bytes are 16 base64url characters exactly, so one encoding of a batch cuts into each hash.
  const width = (SUBJECT_HASH_BYTES / 3) * 4;
  let written = Promise.resolve();
  await Promise.all(
    Array.from({ length: HASH_THREADS }, (_, p) => {
      const text = records
        .slice(p * share, (p + 1) * share)
        .map((r) => normaliseSubject(r.kind, r.subject))
        .join('\n');
      return new Promise<void>((resolve, reject) => {
        const worker = new Worker(HASH_WORKER, { workerData: { key, text, bytes: SUBJECT_HASH_BYTES, batch: ENTRY_BATCH }, execArgv: [] });
        worker.on('message', (m: { start: number; out: Uint8Array } | null) => {
          if (!m) {
            void worker.terminate();
            return resolve(written);
          }
          const all = Buffer.from(m.out.buffer, m.out.byteOffset, m.out.byteLength).toString('base64url');
          const hashes = Array.from({ length: all.length / width }, (_, i) => all.slice(i * width, (i + 1) * width));
          written = written.then(() => onBatch(p * share + m.start, hashes));
        });
        worker.once('error', reject);
        worker.once('exit', (code) => reject(new Error(`名单哈希线程在完成前退出（${code}）`)));
      });
    }),
  );
  await written;
}

/** What the list says, for one device: every record with its subject hashed under the device's key. */
function hashed(records: Iterable<Record_>, hmacKey: KeyObject): AllowEntry[] {
  const out: AllowEntry[] = [];
  for (const r of records) out.push({ h: subjectHash(r, hmacKey), ...r.entry });
  return out;
}

const header = (keys: AllowlistKeys) => ({ alg: 'ES256', typ: ALLOWLIST_TYPE, kid: keys.kid });

async function sign(keys: AllowlistKeys, list: Allowlist): Promise<string> {
  return new CompactSign(gzipSync(JSON.stringify(list), { level: 6 })).setProtectedHeader(header(keys)).sign(keys.privateKey);
}

/**
 * A full list: batches of entries, in the order their hashes come from the
 * threads (a gate indexes them by hash), written to a gzip stream that
 * compresses in libuv's pool while the next batch is hashed; the event loop
 * turns between batches, so 100,000 entries hold no request up.
 */
async function signFull(keys: AllowlistKeys, head: Omit<Allowlist, 'entries'>, records: Records, hmacKey: KeyObject): Promise<string> {
  const gzip = createGzip({ level: 6 });
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  const ended = once(gzip, 'end');
  // The head's JSON up to the entries' opening bracket: `entries` is its last key.
  gzip.write(JSON.stringify({ ...head, entries: [] }).slice(0, -2));
  const all = [...records.bySubject.values()];
  let first = true;
  await hashInBatches(all, hmacKey, async (start, hashes) => {
    const batch = hashes.map((h, i) => {
      const r = all[start + i]!;
      r.json ??= JSON.stringify(r.entry).slice(1);
      return `{"h":"${h}"${r.json === '}' ? '' : ','}${r.json}`;
    });
    gzip.write((first ? '' : ',') + batch.join(','));
    first = false;
    // The event loop turns between batches.
    await yieldToLoop();
  });
  gzip.end(']}');
  await ended;
  return new CompactSign(Buffer.concat(out)).setProtectedHeader(header(keys)).sign(keys.privateKey);
}

export interface AllowlistService {
  /** The JWS for this device, full or since a version. */
  answer(device: { id: number; keyHash: string }, since: number | undefined): Promise<string>;
}

export function allowlistService(ctx: AppContext, keys: AllowlistKeys): AllowlistService {
  const { db } = ctx;
  let current: { version: number; readAt: number; promise: Promise<Records> } | null = null;
  const full = new Map<string, { at: number; promise: Promise<string> }>();
  const stamp = () => ({ iat: ctx.time(), exp: formatInZone(ctx.now() + ctx.config.allowlistMaxAgeHours * 3_600_000, ctx.config.tz) });

  /**
   * The records of every gate's full list at `version` or later, shared by all
   * gates: the last ones patched with what the change log names since them, as
   * a gate applies a delta; read whole when the log calls for everything or
   * the last whole read is RECORDS_REBUILD_MS old.
   */
  const recordsAt = (version: number, clock: Clock, range: { version: number; oldest: number | null }): Promise<Records> => {
    const prev = current;
    const fresh = prev !== null && ctx.now() - prev.readAt <= RECORDS_REBUILD_MS;
    if (fresh && prev.version >= version) return prev.promise;
    const promise = (async () => {
      const base = fresh ? await prev.promise.catch(() => null) : null;
      const started = performance.now();
      const changed = base && (await changedSince(ctx, prev!.version, range));
      const records = base && changed ? patched(base, await buildRecords(db, clock, changed), changed) : await buildRecords(db, clock);
      observeAllowlistRecords(base && changed ? 'patched' : 'whole', (performance.now() - started) / 1000);
      return records;
    })();
    const entry = { version, readAt: fresh ? prev.readAt : ctx.now(), promise };
    current = entry;
    promise.catch(() => {
      if (current === entry) current = null;
    });
    return promise;
  };

  return {
    async answer(device, since) {
      // One key object for the whole list: a raw key would be imported again for each of its 100,000 subjects.
      const hmacKey = createSecretKey(Buffer.from(await deviceHmacKey(db, device.id, device.keyHash), 'base64url'));
      // The clock first, then the version, then the rows: a change after the version is read is at worst sent again.
      await catchUp(ctx);
      const range = await versionRange(db);
      const clock = await db.selectFrom('allowlist_clock').select(['now_time', 'horizon']).where('id', '=', 1).executeTakeFirstOrThrow();
      const changed = since === undefined ? null : await changedSince(ctx, since, range);
      if (changed) {
        const part = await buildRecords(db, clock, changed);
        const asked = [...changed.car.map((s) => ['car', s] as const), ...changed.person.map((s) => ['person', s] as const)];
        const gone = asked.filter(([kind, s]) => !part.bySubject.has(`${kind}:${s}`)).map(([kind, subject]) => ({ kind, subject, entry: {} }));
        const list: Allowlist = {
          v: range.version,
          full: false,
          since,
          device: device.id,
          ...stamp(),
          routes: part.routes,
          entries: hashed(part.bySubject.values(), hmacKey),
          removed: hashed(gone, hmacKey).map((e) => e.h),
        };
        return sign(keys, list);
      }
      const cacheKey = `${device.id}:${device.keyHash}:${range.version}`;
      const hit = full.get(cacheKey);
      if (hit && ctx.now() - hit.at <= FULL_LIST_TTL_MS) return hit.promise;
      const promise = (async () => {
        const records = await recordsAt(range.version, clock, range);
        return signFull(keys, { v: range.version, full: true, device: device.id, ...stamp(), routes: records.routes }, records, hmacKey);
      })();
      full.delete(cacheKey);
      full.set(cacheKey, { at: ctx.now(), promise });
      promise.catch(() => full.delete(cacheKey));
      while (full.size > FULL_LIST_CACHE) full.delete(full.keys().next().value!);
      return promise;
    },
  };
}

// ---------------------------------------------------------------- routes

export async function allowlistRoutes(app: FastifyInstance) {
  const { ctx } = app;
  const keys = await loadAllowlistKeys(ctx.db);
  const service = allowlistService(ctx, keys);
  const publicKey = allowlistKeyAnswer.parse({ alg: 'ES256', kid: keys.kid, jwk: keys.jwk });

  route(app, deviceApi.allowlistKey, async () => ok(publicKey));

  route(app, deviceApi.allowlist, async (req, reply) => {
    const device = req.device!;
    const row = await ctx.db.selectFrom('equipment').select('key_hash').where('id', '=', device.id).executeTakeFirstOrThrow();
    const jws = await service.answer({ id: device.id, keyHash: row.key_hash! }, req.query.since);
    await markSeen(ctx.db, device.id, ctx.time(), ctx.now());
    return reply.header('content-type', 'application/jose').header('cache-control', 'no-store').send(jws);
  });
}
