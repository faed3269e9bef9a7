import { webcrypto } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { AppState, stateLabel, type AppointmentKind } from '../../domain/appointments';
import { ErrorCode } from '../../domain/errors';
import {
  PASS_KEY_ALGORITHM,
  SCAN_PERMISSION,
  parsePass,
  passKeyId,
  signPass,
  toBase64Url,
  validityAt,
  verifyPass,
  passApi,
  type IssuedPass,
  type LookupQuery,
  type LookupApplication,
  type LookupFlag,
  type LookupListEntry,
  type PassCheck,
  type PassKey,
  type PassLookup,
  type PassPayload,
  type PassPublicKey,
} from '../../domain/pass';
import { dateOf } from '../../domain/visit-rules';
import type { AppContext, AuthContext } from '../core/context';
import { fail, notFound, ok } from '../core/errors';
import { route } from '../core/route';
import type { DB } from '../db/schema';
import { kindCalls } from '../../domain/appointment-kinds';
import { kindList, kinds, type KindDef } from './appointments/kinds';
import { answersFor, loadApplication, type Db } from './appointments/service';
import { maskIdNumber } from '../../domain/personal-data';

/**
 * Visit passes: the signed QR of an approved application (domain/pass.ts
 * has the format), the public key phones cache to verify it offline, and
 * the lookup behind the patrol's scan screen.
 */

const SETTING_KEY = 'pass_signing_key';

export interface PassKeys {
  kid: string;
  /** SPKI DER, base64url. */
  publicKey: string;
  privateKey: PassKey;
  verifyKey: PassKey;
}

/**
 * The signing pair is generated on first start and kept in sys_setting as
 * one row, so that two servers starting at once cannot store halves of two
 * different pairs, and every server of one database issues passes every
 * phone can verify.
 */
export async function loadPassKeys(db: Kysely<DB>): Promise<PassKeys> {
  const read = () => db.selectFrom('sys_setting').select('value').where('key', '=', SETTING_KEY).executeTakeFirst();
  let row = await read();
  if (!row) {
    const pair = await webcrypto.subtle.generateKey(PASS_KEY_ALGORITHM, true, ['sign', 'verify']);
    const value = JSON.stringify({
      pkcs8: toBase64Url(new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', pair.privateKey))),
      spki: toBase64Url(new Uint8Array(await webcrypto.subtle.exportKey('spki', pair.publicKey))),
    });
    await db
      .insertInto('sys_setting')
      .values({ key: SETTING_KEY, value })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    row = await read();
    if (!row) throw new Error('pass signing key could not be stored');
  }
  const stored = JSON.parse(row.value) as { pkcs8: string; spki: string };
  const spki = Buffer.from(stored.spki, 'base64url');
  return {
    kid: await passKeyId(spki),
    publicKey: stored.spki,
    privateKey: await webcrypto.subtle.importKey('pkcs8', Buffer.from(stored.pkcs8, 'base64url'), PASS_KEY_ALGORITHM, false, ['sign']),
    verifyKey: await webcrypto.subtle.importKey('spki', spki, PASS_KEY_ALGORITHM, false, ['verify']),
  };
}

/**
 * Who may fetch a pass: exactly those who answer for the visit (answersFor,
 * the readable rule of details without its approver clause): the applicant,
 * a holder of the kind's all-history code, or of its history code when the
 * application visits their department branch. Approvers read the detail
 * through their task; a pass is for the visitor and the people who answer for
 * the visit, not for them.
 */
export async function issuePass(ctx: AppContext, keys: PassKeys, auth: AuthContext, kind: AppointmentKind, id: number): Promise<IssuedPass> {
  const k = kinds[kind];
  const row = (await loadApplication(ctx.db, kind, id)) as unknown as Record<string, any>;
  if (!(await answersFor(ctx.db, auth, kind, row as never))) notFound(k.noun);
  if (row.state !== AppState.APPROVED) {
    fail(ErrorCode.STATE_CONFLICT, `当前状态为“${stateLabel[row.state] ?? row.state}”，只有“审核通过”的预约才有通行码`);
  }
  const now = ctx.time();
  const begin = row[k.begin] as string;
  const end = row[k.end] as string;
  if (now > end) fail(ErrorCode.STATE_CONFLICT, `该预约已于${end}过期，不再签发通行码`);
  const payload: PassPayload = { number: row.application_number, kind, ...passKinds[kind].holder(row), begin, end, issuedAt: now, kid: keys.kid };
  return { pass: await signPass(payload, keys.privateKey), payload, validity: validityAt(begin, end, now) };
}

// ---------------------------------------------------------------- lookup

/** Applications the scan screen shows: submitted ones (drafts say nothing at a gate), newest first. */
async function applicationsOf(db: Db, k: KindDef, column: string, value: string, now: string): Promise<LookupApplication[]> {
  const rows = await (db as unknown as Kysely<any>)
    .selectFrom(`${k.table} as a`)
    .leftJoin('sys_department as dep', 'dep.depart_id', 'a.interviewee_depart_id')
    .$call(k.joinNames)
    .selectAll('a')
    .select('dep.name as interviewee_depart_name')
    .where(`a.${column}`, '=', value)
    .where('a.is_deleted', '=', 0)
    .where('a.state', '!=', AppState.DRAFT)
    .orderBy(`a.${k.key}`, 'desc')
    .limit(5)
    .execute();
  return rows.map((r: Record<string, any>) => summary(k, r, now));
}

function summary(k: KindDef, r: Record<string, any>, now: string): LookupApplication {
  const begin = r[k.begin] as string;
  const end = r[k.end] as string;
  const common = {
    kind: k.kind,
    id: r[k.key] as number,
    application_number: r.application_number as string,
    state: r.state as number,
    begin,
    end,
    validity: validityAt(begin, end, now),
    visitor_company: r.visitor_company as string,
    interviewee_name: r.interviewee_name as string,
    interviewee_depart_name: (r.interviewee_depart_name as string | null) ?? null,
    is_delayed: r.is_delayed as number,
    in_black_list: r.in_black_list as number,
  };
  return { ...common, ...passKinds[k.kind].lookupFields(r) };
}

/** The application that matters at the gate: approved and in force, else approved and upcoming, else the newest. */
function current(list: LookupApplication[]): LookupApplication | null {
  const approved = list.filter((a) => a.state === AppState.APPROVED);
  return approved.find((a) => a.validity === 'valid') ?? approved.find((a) => a.validity === 'not-yet') ?? list[0] ?? null;
}

/** Black and white list entries in force today (status 2, not deleted, today within their dates; null is open). */
async function listEntries(
  db: Db,
  table: 'car_black_white_list' | 'person_black_white_list',
  column: 'license_plate' | 'idcard',
  value: string,
  now: string,
): Promise<Array<LookupListEntry & { name?: string }>> {
  const day = dateOf(now);
  const rows = await (db as unknown as Kysely<any>)
    .selectFrom(table)
    .select(['id', 'type', 'in_reason', 'start_time', 'end_time', ...(table === 'person_black_white_list' ? ['name'] : [])])
    .where(column, '=', value)
    .where('status', '=', 2)
    .where('deleted', '=', 0)
    .where((eb: any) => eb.or([eb('start_time', 'is', null), eb('start_time', '<=', `${day} 23:59:59`)]))
    .where((eb: any) => eb.or([eb('end_time', 'is', null), eb('end_time', '>=', `${day} 00:00:00`)]))
    .orderBy('type')
    .orderBy('id', 'desc')
    .execute();
  return rows as Array<LookupListEntry & { name?: string }>;
}

async function flagsOf(db: Db, plate: string): Promise<LookupFlag[]> {
  return db
    .selectFrom('vehicle_mark as m')
    .leftJoin('sys_user as u', 'u.user_id', 'm.create_user_id')
    .select(['m.id', 'm.car_application_id', 'm.remark', 'm.color_id', 'm.label_type_id', 'm.alarm_id', 'm.photo', 'm.create_time', 'u.user_name as create_user_name'])
    .where('m.license_plate', '=', plate)
    .where('m.status', '=', 1)
    .where('m.deleted', '=', 0)
    .orderBy('m.id', 'desc')
    .execute();
}

async function vehicleLookup(db: Db, plate: string, now: string, pinned?: LookupApplication | null): Promise<PassLookup> {
  const applications = await applicationsOf(db, kinds.car, 'license_plate', plate, now);
  const lists = (await listEntries(db, 'car_black_white_list', 'license_plate', plate, now)).map(({ name: _n, ...e }) => e);
  return { subject: { kind: 'car', license_plate: plate }, application: pinned === undefined ? current(applications) : pinned, applications, lists, flags: await flagsOf(db, plate), checkedAt: now };
}

async function personLookup(db: Db, idcard: string, now: string, pinned?: LookupApplication | null): Promise<PassLookup> {
  const applications = await applicationsOf(db, kinds.person, 'visitor_idcard', idcard, now);
  const entries = await listEntries(db, 'person_black_white_list', 'idcard', idcard, now);
  const name = pinned?.name ?? applications[0]?.name ?? entries.find((e) => e.name)?.name ?? null;
  return {
    subject: { kind: 'person', idcard_masked: maskIdNumber(idcard), name },
    application: pinned === undefined ? current(applications) : pinned,
    applications,
    lists: entries.map(({ name: _n, ...e }) => e),
    flags: [],
    checkedAt: now,
  };
}

const emptyLookup = (pass: PassCheck, now: string): PassLookup => ({ pass, subject: null, application: null, applications: [], lists: [], flags: [], checkedAt: now });

/**
 * What a pass and a lookup say of each kind: a vehicle's pass names its plate,
 * and it is looked up by plate even when its application is gone; a person's
 * names the visitor with a masked ID number, which cannot be looked up.
 */
const passKinds: Record<
  AppointmentKind,
  {
    holder: (row: Record<string, any>) => Pick<PassPayload, 'plate' | 'plateColor' | 'name' | 'idMasked'>;
    lookupFields: (r: Record<string, any>) => Pick<LookupApplication, 'name' | 'idcard_masked' | 'license_plate' | 'license_plate_color' | 'vehicle_type_name' | 'label_status' | 'label_remark'>;
    lookupByPass: (db: Db, check: PassCheck, row: Record<string, any> | undefined, pinned: LookupApplication | null, now: string) => Promise<PassLookup>;
  }
> = {
  car: {
    holder: (row) => ({ plate: row.license_plate, plateColor: row.license_plate_color }),
    lookupFields: (r) => ({
      name: r.applicant_name,
      idcard_masked: maskIdNumber(r.applicant_idcard ?? ''),
      license_plate: r.license_plate,
      license_plate_color: r.license_plate_color,
      vehicle_type_name: r.vehicle_type_name ?? null,
      label_status: r.label_status,
      label_remark: r.label_remark,
    }),
    lookupByPass: async (db, check, row, pinned, now) => ({ pass: check, ...(await vehicleLookup(db, row?.license_plate ?? check.payload!.plate!, now, pinned)) }),
  },
  person: {
    holder: (row) => ({ name: row.visitor_name, idMasked: maskIdNumber(row.visitor_idcard) }),
    lookupFields: (r) => ({ name: r.visitor_name, idcard_masked: maskIdNumber(r.visitor_idcard ?? '') }),
    lookupByPass: async (db, check, row, pinned, now) => {
      // A deleted person application leaves only the masked number of the pass: no ID to look the lists up by.
      if (!row) return { ...emptyLookup(check, now), subject: { kind: 'person', idcard_masked: check.payload!.idMasked!, name: check.payload!.name ?? null } };
      return { pass: check, ...(await personLookup(db, row.visitor_idcard, now, pinned)) };
    },
  },
};

/** The scan screen's answer for one query, as the route's schema parsed it. */
export async function lookup(ctx: AppContext, keys: PassKeys, q: LookupQuery): Promise<PassLookup> {
  const { db } = ctx;
  const now = ctx.time();
  if (q.license_plate) return vehicleLookup(db, q.license_plate, now);
  if (q.idcard) return personLookup(db, q.idcard, now);

  if (!parsePass(q.pass!)) fail(ErrorCode.VALIDATION, '扫描的内容不是园区通行码，无法识别');
  const check = await verifyPass(q.pass!, { kid: keys.kid, key: keys.verifyKey }, now);
  // Nothing in a pass with a bad signature can be believed, not even which vehicle it names.
  if (!check.payload) return emptyLookup(check, now);
  const k = kinds[check.payload.kind];
  const row = (await (db as unknown as Kysely<any>)
    .selectFrom(`${k.table} as a`)
    .leftJoin('sys_department as dep', 'dep.depart_id', 'a.interviewee_depart_id')
    .$call(k.joinNames)
    .selectAll('a')
    .select('dep.name as interviewee_depart_name')
    .where('a.application_number', '=', check.payload.number)
    .where('a.is_deleted', '=', 0)
    .executeTakeFirst()) as Record<string, any> | undefined;
  const pinned = row ? summary(k, row, now) : null;
  return passKinds[k.kind].lookupByPass(db, check, row, pinned, now);
}

// ---------------------------------------------------------------- routes

export async function passRoutes(app: FastifyInstance) {
  const { ctx } = app;
  const keys = await loadPassKeys(ctx.db);
  const publicKey: PassPublicKey = { alg: 'ES256', kid: keys.kid, publicKey: keys.publicKey };

  route(app, passApi.publicKey, async () => ok(publicKey));

  // The guard asks for a role only: the row rule (answersFor) decides, and answers 404 for rows the caller may not read.
  for (const k of kindList) {
    route(app, kindCalls[k.kind].pass, async (req) => ok(await issuePass(ctx, keys, req.auth!, k.kind, req.query.id)));
  }

  route(app, passApi.lookup, async (req) => ok(await lookup(ctx, keys, req.query)));
}
