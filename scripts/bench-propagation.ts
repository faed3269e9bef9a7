/**
 * `npx tsx scripts/bench-propagation.ts` (and the allowlist section of `npm
 * run bench`): how long a change takes to reach an offline-capable gate that
 * polls its allow-list (docs/offline-gates.md) every POLL_MS, against the
 * target "p95 ≤ 15 s with a 10 s poll".
 *
 * A fresh SQLite park (BENCH_PROPAGATION_DIALECTS=sqlite,postgres adds
 * PostgreSQL when reachable); admin issues a gate its key through the API;
 * the gate fetches GET /api/device/allowlist?since=<version> every POLL_MS,
 * verifies each JWS and applies it (domain/offline-gate.ts); a driver makes
 * CHANGES changes at random moments over SECONDS, written to the database
 * (its triggers log them, migration 037): a black-list entry approved, a
 * visit approved, a visit revoked, for vehicles and persons in turn. Each
 * change's figure is the time from its commit to the first list the gate
 * held that shows it. Printed beside its baseline from the same run: the
 * poll's own wait, from the commit to the next fetch asked.
 */
import { carVisitRow } from '../tests/api/fixtures';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { compactVerify, importJWK } from 'jose';
import type { Kysely } from 'kysely';
import { AppState } from '../domain/appointments';
import { isMainlandIdNumber } from '../domain/identity';
import { applyDelta, importSubjectKey, indexAllowlist, subjectHash, type Allowlist, type OfflineList, type SubjectKind } from '../domain/offline-gate';
import { formatInZone } from '../domain/time';
import { buildApp } from '../server/app';
import { loadConfig } from '../server/config';
import type { DB } from '../server/db/schema';
import { p95, targets } from './bench-common';
import { signInViaApi } from './demo-login';
import { canReachPostgres, createDatabase } from './pg-database';

const CHANGES = Number(process.env.BENCH_PROPAGATION_CHANGES ?? 30);
const SECONDS = Number(process.env.BENCH_PROPAGATION_SECONDS ?? 180);
const POLL_MS = Number(process.env.BENCH_PROPAGATION_POLL_MS ?? 10_000);
const DIALECTS = (process.env.BENCH_PROPAGATION_DIALECTS ?? 'sqlite').split(',').filter(Boolean);
const TARGET_MS = 15_000;
/** After the last change, how long the gate keeps polling for what it has not seen yet. */
const GRACE_MS = 3 * POLL_MS;

type ChangeKind = 'black' | 'approve' | 'revoke';
interface Change {
  kind: ChangeKind;
  subjectKind: SubjectKind;
  subject: string;
  /** The visit's application number (approve, revoke). */
  number: string;
  rowId: number;
  /** When it was made (committed) and first seen at the gate, performance.now(). */
  at: number;
  seen: number | null;
  /** When the gate next asked for its list after the change: the poll's own share of the delay. */
  nextAsk: number | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** A valid resident ID number of its own per `i`, in a range no demo record uses. */
function idNumberOf(i: number): string {
  const body = `44130219850${1 + (i % 9)}${String(10 + (Math.floor(i / 9) % 18)).padStart(2, '0')}${String(500 + (i % 499)).padStart(3, '0')}`;
  return [...'0123456789X'].map((c) => body + c).find(isMainlandIdNumber)!;
}

/** Does the list the gate holds show this change yet? */
function shows(list: OfflineList, hash: string, c: Change): boolean {
  const e = list.byHash.get(hash);
  if (c.kind === 'black') return !!e?.b?.length;
  const listed = !!e?.a?.some((a) => a[0] === c.number);
  return c.kind === 'approve' ? listed : !listed;
}

async function benchOn(dialect: 'sqlite' | 'postgres') {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-propagation-'));
  const database = dialect === 'postgres' ? await createDatabase('park_bench_propagation') : null;
  const password = 'Bench' + Date.now() + 'g';
  const config = loadConfig(
    { DATA_DIR: dataDir, SMS_PROVIDER: 'file', DEMO_PASSWORD: password, PORT: '0', BACKUP_AT: 'off', ...(database ? { DATABASE_URL: database.url } : {}) },
    { staticDir: undefined, seedGateHistory: false, logLevel: 'warn' },
  );
  const app = await buildApp(config);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const db = app.ctx.db as Kysely<DB>;
  let polling = true;
  try {
    // The gate's key, issued by admin through the API as on the equipment screen.
    const token = await signInViaApi(base, dataDir, 'admin', password);
    const gate = await db.selectFrom('equipment').select(['id', 'number']).where('kind', '=', 'gate').orderBy('id').executeTakeFirstOrThrow();
    const issued = await fetch(`${base}/api/equipment/gate/issueKey`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ id: gate.id }),
    });
    const { key, hmac_key } = ((await issued.json()) as { data: { key: string; hmac_key: string } }).data;
    const auth = { authorization: `Device ${gate.number}:${key}` };
    const subjectKey = await importSubjectKey(hmac_key);
    const keyAnswer = ((await (await fetch(`${base}/api/device/allowlistKey`, { headers: auth })).json()) as { data: { jwk: Record<string, string> } }).data;
    const verifyKey = await importJWK(keyAnswer.jwk, 'ES256');

    // What the changes will touch: visits under review (to approve), approved visits (to revoke), black-list entries under review (to approve).
    const at = (minutes: number) => formatInZone(app.ctx.now() + minutes * 60_000, config.tz);
    const stamp = { create_time: app.ctx.time(), update_time: app.ctx.time() };
    const model = (await db.selectFrom('vehicle_type').select('id').where('name', '=', '小型汽车').executeTakeFirstOrThrow()).id;
    const depart = (await db.selectFrom('sys_department').select('depart_id').orderBy('depart_id').executeTakeFirstOrThrow()).depart_id;
    const kinds: ChangeKind[] = ['black', 'approve', 'revoke'];
    const changes: Change[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const kind = kinds[i % 3]!;
      const subjectKind: SubjectKind = Math.floor(i / 3) % 2 ? 'person' : 'car';
      const subject = subjectKind === 'car' ? `粤P${String(i).padStart(4, '0')}G` : idNumberOf(i);
      const number = `${subjectKind === 'car' ? 'CG' : 'PG'}${String(i).padStart(8, '0')}`;
      const state = kind === 'revoke' ? AppState.APPROVED : AppState.REVIEW;
      let rowId = 0;
      if (kind === 'black') {
        const common = { type: 1, start_time: null, end_time: null, status: AppState.REVIEW, in_reason: '多次违规', process_instance_id: null, create_user_id: null, update_user_id: null, ...stamp };
        rowId =
          subjectKind === 'car'
            ? (
                await db
                  .insertInto('car_black_white_list')
                  .values({ license_plate: subject, vehicle_type_id: null, ...common })
                  .returning('id')
                  .executeTakeFirstOrThrow()
              ).id
            : (
                await db
                  .insertInto('person_black_white_list')
                  .values({ name: '测试人员', gender: null, idcard_type: 1, idcard: subject, ...common })
                  .returning('id')
                  .executeTakeFirstOrThrow()
              ).id;
      } else if (subjectKind === 'car') {
        rowId = (
          await db
            .insertInto('car_application')
            .values(
              carVisitRow({
                application_number: number,
                state,
                license_plate: subject,
                vehicle_type_id: model,
                applicant_idcard: idNumberOf(1000 + i),
                begin: at(-60),
                end: at(600),
                interviewee_depart_id: depart,
                time: stamp.create_time,
              }),
            )
            .returning('car_application_id as id')
            .executeTakeFirstOrThrow()
        ).id;
      } else {
        rowId = (
          await db
            .insertInto('person_application')
            .values({
              application_number: number,
              state,
              process_instance_id: null,
              visitor_name: '测试访客',
              visitor_gender: 1,
              visitor_phone: '13812345678',
              visitor_company: '惠州测试有限公司',
              visitor_type: 4,
              visitor_idcard_type: 1,
              visitor_idcard: subject,
              visit_content: '设备验收',
              visit_begin_time: at(-60),
              visit_end_time: at(600),
              visit_area: 1,
              interviewee_name: '李强',
              interviewee_phone: '13800000003',
              interviewee_depart_id: depart,
              create_user_id: 1,
              ...stamp,
            })
            .returning('person_application_id as id')
            .executeTakeFirstOrThrow()
        ).id;
      }
      changes.push({ kind, subjectKind, subject, number, rowId, at: 0, seen: null, nextAsk: null });
    }
    const hashes = await Promise.all(changes.map((c) => subjectHash(subjectKey, c.subjectKind, c.subject)));

    // The gate: the full list once, then a delta every POLL_MS, each verified before it is applied.
    let held: OfflineList | null = null;
    const fetches: number[] = [];
    const poll = async () => {
      const asked = performance.now();
      for (const c of changes) if (c.at && c.nextAsk === null && c.at <= asked) c.nextAsk = asked;
      const t = performance.now();
      const r = await fetch(`${base}/api/device/allowlist${held ? `?since=${held.v}` : ''}`, { headers: auth });
      const jws = await r.text();
      if (r.status !== 200) throw new Error(`allowlist: ${r.status} ${jws.slice(0, 200)}`);
      const { payload } = await compactVerify(jws, verifyKey, { algorithms: ['ES256'] });
      const list = JSON.parse(gunzipSync(payload).toString('utf8')) as Allowlist;
      held = (held && applyDelta(held, list)) ?? indexAllowlist(list);
      fetches.push(performance.now() - t);
      const now = performance.now();
      changes.forEach((c, i) => {
        if (c.at && c.seen === null && shows(held!, hashes[i]!, c)) c.seen = now;
      });
    };
    await poll();
    const gateLoop = (async () => {
      // The gate's clock is its own: its first poll falls anywhere in the interval relative to the changes.
      for (let next = performance.now() + POLL_MS; polling; next += POLL_MS) {
        await sleep(next - performance.now());
        if (polling) await poll();
      }
    })();

    // The driver: each change at a random moment of the run, in a random order of kinds.
    const start = performance.now();
    const moments = changes.map(() => Math.random() * SECONDS * 1000).sort((a, b) => a - b);
    const order = [...changes].sort(() => Math.random() - 0.5);
    console.log(`\n[${dialect}] ${CHANGES} changes over ${SECONDS} s, the gate polling every ${POLL_MS / 1000} s`);
    for (const [i, c] of order.entries()) {
      await sleep(start + moments[i]! - performance.now());
      const time = app.ctx.time();
      if (c.kind === 'black') {
        if (c.subjectKind === 'car') await db.updateTable('car_black_white_list').set({ status: AppState.APPROVED, update_time: time }).where('id', '=', c.rowId).execute();
        else await db.updateTable('person_black_white_list').set({ status: AppState.APPROVED, update_time: time }).where('id', '=', c.rowId).execute();
      } else {
        const state = c.kind === 'approve' ? AppState.APPROVED : AppState.REVOKED;
        if (c.subjectKind === 'car') await db.updateTable('car_application').set({ state, update_time: time }).where('car_application_id', '=', c.rowId).execute();
        else await db.updateTable('person_application').set({ state, update_time: time }).where('person_application_id', '=', c.rowId).execute();
      }
      c.at = performance.now();
    }
    const deadline = performance.now() + GRACE_MS;
    while (performance.now() < deadline && changes.some((c) => c.seen === null)) await sleep(200);
    polling = false;
    await gateLoop;

    const delays = changes.filter((c) => c.seen !== null).map((c) => c.seen! - c.at);
    const waits = changes.filter((c) => c.nextAsk !== null).map((c) => c.nextAsk! - c.at);
    const missing = changes.filter((c) => c.seen === null);
    const figure = delays.length ? p95(delays)! : Infinity;
    console.log(
      `  change → gate's list: p95 ${(figure / 1000).toFixed(1)} s, max ${(Math.max(...delays) / 1000).toFixed(1)} s over ${delays.length} changes${missing.length ? `, ${missing.length} never seen (${missing.map((c) => `${c.kind} ${c.subjectKind}`).join(', ')})` : ''}`,
    );
    console.log(`    baseline: the poll's own wait (change → next fetch asked) p95 ${(p95(waits)! / 1000).toFixed(1)} s; a fetch (delta, verify, apply) p95 ${p95(fetches)!.toFixed(0)} ms`);
    targets.push({
      what: `allow-list ${dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: change reaches a gate polling every ${POLL_MS / 1000} s, p95`,
      target: `≤ ${TARGET_MS / 1000} s`,
      figure: `${(figure / 1000).toFixed(1)} s`,
      met: missing.length === 0 && figure <= TARGET_MS,
    });
  } finally {
    polling = false;
    await app.close();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Propagation on SQLite, and on PostgreSQL when named in BENCH_PROPAGATION_DIALECTS and reachable; its target joins the bench's. */
export async function benchPropagation(): Promise<void> {
  if (DIALECTS.includes('sqlite')) await benchOn('sqlite');
  if (DIALECTS.includes('postgres')) {
    if (await canReachPostgres()) await benchOn('postgres');
    else console.log('\nallow-list propagation on PostgreSQL: SKIPPED, PostgreSQL is unreachable');
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  benchPropagation()
    .then(() => {
      for (const t of targets) console.log(`  ${t.met ? 'met    ' : 'NOT MET'}  ${t.what}: ${t.figure}   target ${t.target}`);
      if (targets.some((t) => !t.met)) process.exitCode = 1;
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
