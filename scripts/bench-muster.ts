/**
 * `npx tsx scripts/bench-muster.ts` (and `BENCH_ONLY=muster npm run bench`):
 * 应急清点 (docs/muster.md) at a large park's size, on SQLite and, when
 * reachable, PostgreSQL, against the real server in its own process:
 *
 *   - with MUSTER_PERSONS people and MUSTER_VEHICLES vehicles inside, the
 *     list is ready (POST /api/muster/start answered, then GET
 *     /api/muster/subjects answered) in ≤ 2 s;
 *   - marks by `list` at MARK_RATE a second for MARK_SECONDS, from a few
 *     marshals' clients, are answered at that rate, and each shows on the
 *     board within 2 s at p95: the board learns of changes as the page does
 *     (the notification stream's `figures` event, then GET
 *     /api/muster/current; and its own 10 s poll).
 *
 * Each figure is printed beside a baseline measured in the same run: the
 * same queries read (or the same mark written) straight against the
 * database, with no HTTP, session or JSON in between.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { AppState } from '../domain/appointments';
import { isMainlandIdNumber } from '../domain/identity';
import { StreamEvent } from '../domain/notifications';
import type { MusterCurrentAnswer, MusterSubjectsAnswer } from '../domain/schemas/muster';
import { formatInZone } from '../domain/time';
import { buildApp } from '../server/app';
import { loadConfig } from '../server/config';
import { applyReadPragmas } from '../server/db/index';
import type { DB } from '../server/db/schema';
import { EventStream } from '../tests/api/event-stream';
import { p95, serverEnv, targets } from './bench-common';
import { signInViaApi } from './demo-login';
import { HttpClient } from './http-client';
import { canReachPostgres, createDatabase, PG_ADMIN_URL } from './pg-database';
import { startServerProcess, type ServerProcess } from './server-process';

const MUSTER_PERSONS = Number(process.env.BENCH_MUSTER_PERSONS ?? 20_000);
const MUSTER_VEHICLES = Number(process.env.BENCH_MUSTER_VEHICLES ?? 3_000);
const MARK_RATE = Number(process.env.BENCH_MUSTER_RATE ?? 50);
const MARK_SECONDS = Number(process.env.BENCH_MUSTER_SECONDS ?? 20);
/** Starts measured (each ended before the next); the last one runs on for the marks. */
const STARTS = Math.max(1, Number(process.env.BENCH_MUSTER_STARTS ?? 3));
/** Marshals' phones marking at once: the marks are shared out among them in turn. */
const MARSHALS = 4;
const LIST_READY_MS = 2_000;
const BOARD_VISIBLE_MS = 2_000;
/** The muster page's own poll while one runs (src/features/muster/muster-page.tsx RUNNING_POLL_MS). */
const PAGE_POLL_MS = 10_000;
/** Rows per INSERT of the seed: under SQLite's and PostgreSQL's parameter limits at about 25 columns. */
const CHUNK = 500;
/** Raw repetitions of each baseline. */
const RAW_READS = 5;
const RAW_MARKS = 200;

type Dialect = 'sqlite' | 'postgres';
type Row = Record<string, unknown>;

/** Straight to the database, no HTTP: better-sqlite3 or one pg connection; `?` placeholders for both. */
interface Raw {
  all(text: string, params?: unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

async function rawOf(dialect: Dialect, dataDir: string, url: string | undefined): Promise<Raw> {
  if (dialect === 'sqlite') {
    const db = new Database(path.join(dataDir, 'park.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    applyReadPragmas(db);
    return {
      all: async (text, params = []) => {
        const s = db.prepare(text);
        return s.reader ? (s.all(...params) as Row[]) : (s.run(...params), []);
      },
      close: async () => void db.close(),
    };
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    all: async (text, params = []) => {
      let n = 0;
      return (
        await client.query(
          text.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows as Row[];
    },
    close: () => client.end(),
  };
}

/** The server's snapshot (server/modules/muster/service.ts snapshot) as one query, for a muster of both parks. */
const SNAPSHOT_SQL = `select p.kind, p.subject, p.entry_time, p.application_id, e.name as gate,
  pa.visitor_name, pa.visitor_phone, pa.application_number as pa_number, ca.applicant_name, ca.applicant_phone, ca.application_number as ca_number, d.name as enterprise
  from presence p
  left join equipment e on e.id = p.entry_device_id
  left join person_application pa on pa.person_application_id = p.application_id and p.kind = 'person'
  left join car_application ca on ca.car_application_id = p.application_id and p.kind = 'car'
  left join sys_department d on (d.depart_id = pa.interviewee_depart_id or d.depart_id = ca.interviewee_depart_id)
  where p.exit_time is null order by p.entry_time limit 100001`;
const SUBJECTS_SQL = `select id, kind, subject, name, phone, enterprise, gate, entry_time, source, application_number, marked_at, marked_by_name, mark_place, mark_method
  from muster_subject where muster_id = ? order by enterprise, kind desc, id`;
/** The board (service.ts boardOf): the muster's counts, per enterprise, per gate, the SMS rows. */
const BOARD_SQL = [
  `select m.id, (select count(*) from muster_subject s where s.muster_id = m.id) as total,
     (select count(*) from muster_subject s where s.muster_id = m.id and s.marked_at is not null) as accounted from muster m where m.id = ?`,
  'select enterprise, kind, count(*) as n, count(marked_at) as marked from muster_subject where muster_id = ? group by enterprise, kind',
  'select gate, kind, count(*) as n, count(marked_at) as marked from muster_subject where muster_id = ? group by gate, kind',
  "select payload from outbox_message where origin = 'muster' and origin_id = ?",
];

/** A valid 18-digit resident ID number, distinct for each `i`: a birth date per thousand, the sequence within it. */
function idNumberOf(i: number): string {
  const birth = new Date(Date.UTC(1960, 0, 1) + Math.floor(i / 1000) * 86_400_000).toISOString().slice(0, 10).replace(/-/g, '');
  const body = `441302${birth}${String(i % 1000).padStart(3, '0')}`;
  return [...'0123456789X'].map((c) => body + c).find(isMainlandIdNumber)!;
}

/** A small seeded PRNG (mulberry32): the same park and the same marks on every run. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Everyone inside: open stays (presence) straight into the database, with
 * what the snapshot joins. People: 60 % on an approved visit to one of the
 * park's departments, 15 % on the white list, the rest with neither; vehicles
 * 70 %, 10 % and the rest. Whatever the demo left inside is let out first.
 */
async function seedInside(db: Kysely<DB>, tz: string): Promise<{ persons: number; vehicles: number; seconds: number }> {
  const t0 = performance.now();
  const r = prng(20_260_310);
  const nowMs = Date.now();
  const at = (minutes: number) => formatInZone(nowMs + minutes * 60_000, tz);
  const now = at(0);
  const stamp = { create_time: now, update_time: now };
  // The enterprises: every department under the park's root.
  const all = await db.selectFrom('sys_department').select(['depart_id', 'pid']).where('deleted', '=', 0).execute();
  const departs = (all.some((d) => d.pid !== 0) ? all.filter((d) => d.pid !== 0) : all).map((d) => d.depart_id);
  const gates = await db.selectFrom('equipment').select(['id', 'type']).where('kind', '=', 'gate').execute();
  const personGates = gates.filter((g) => g.type === 2).map((g) => g.id);
  const carGates = gates.filter((g) => g.type !== 2).map((g) => g.id);
  const model = (await db.selectFrom('vehicle_type').select('id').where('name', '=', '小型汽车').executeTakeFirstOrThrow()).id;
  const creator = (await db.selectFrom('sys_user').select('user_id').where('account', '=', 'admin').executeTakeFirstOrThrow()).user_id;
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  const area = () => (r() < 0.7 ? 1 : r() < 0.8 ? 2 : 3);

  await db.transaction().execute(async (trx) => {
    await trx.updateTable('presence').set({ exit_time: now }).where('exit_time', 'is', null).execute();
    const inChunks = async <T>(rows: T[], insert: (chunk: T[]) => Promise<unknown>) => {
      for (let i = 0; i < rows.length; i += CHUNK) await insert(rows.slice(i, i + CHUNK));
    };

    const persons = Array.from({ length: MUSTER_PERSONS }, (_, i) => ({ i, idcard: idNumberOf(i), kind: r() < 0.6 ? 'visit' : r() < 0.375 ? 'white' : 'none', area: area() }));
    const visits = persons.filter((p) => p.kind === 'visit');
    await inChunks(visits, (chunk) =>
      trx
        .insertInto('person_application')
        .values(
          chunk.map((p) => ({
            application_number: `MBP${String(p.i).padStart(8, '0')}`,
            state: AppState.APPROVED,
            process_instance_id: null,
            visitor_name: `访客${p.i}`,
            visitor_gender: p.i % 2,
            visitor_phone: `139${String(p.i).padStart(8, '0')}`,
            visitor_company: '惠州测试有限公司',
            visitor_type: 4,
            visitor_idcard_type: 1,
            visitor_idcard: p.idcard,
            visit_content: '设备检修',
            visit_begin_time: at(-600),
            visit_end_time: at(600),
            visit_area: p.area,
            interviewee_name: '李强',
            interviewee_phone: '13800000003',
            interviewee_depart_id: pick(departs),
            create_user_id: creator,
            ...stamp,
          })),
        )
        .execute(),
    );
    await inChunks(
      persons.filter((p) => p.kind === 'white'),
      (chunk) =>
        trx
          .insertInto('person_black_white_list')
          .values(
            chunk.map((p) => ({
              name: `员工${p.i}`,
              gender: null,
              idcard_type: 1,
              idcard: p.idcard,
              type: 2,
              start_time: null,
              end_time: null,
              status: AppState.APPROVED,
              in_reason: '园区常驻人员',
              process_instance_id: null,
              create_user_id: null,
              update_user_id: null,
              ...stamp,
            })),
          )
          .execute(),
    );

    const cars = Array.from({ length: MUSTER_VEHICLES }, (_, i) => ({
      i,
      plate: `粤M${i.toString(36).toUpperCase().padStart(5, '0')}`,
      kind: r() < 0.7 ? 'visit' : r() < 0.33 ? 'white' : 'none',
      area: area(),
    }));
    await inChunks(
      cars.filter((c) => c.kind === 'visit'),
      (chunk) =>
        trx
          .insertInto('car_application')
          .values(
            chunk.map((c) => ({
              application_number: `MBC${String(c.i).padStart(8, '0')}`,
              state: AppState.APPROVED,
              process_type: 2,
              process_instance_id: null,
              license_plate: c.plate,
              license_plate_color: 2,
              vehicle_type_id: model,
              applicant_name: `司机${c.i}`,
              applicant_idcard: idNumberOf(MUSTER_PERSONS + c.i),
              applicant_gender: 0,
              applicant_phone: `137${String(c.i).padStart(8, '0')}`,
              visitor_idcard_type: 1,
              visit_area: c.area,
              visitor_type: 3,
              visitor_company: '惠州测试物流有限公司',
              visitor_content: '送货',
              visitor_begin_time: at(-600),
              visitor_end_time: at(600),
              interviewee_name: '李强',
              interviewee_phone: '13800000003',
              interviewee_depart_id: pick(departs),
              color_id: null,
              cargo_type: null,
              car_load: null,
              dump_truck_file: null,
              cargo_info: null,
              car_info_id: null,
              create_user_id: creator,
              ...stamp,
            })),
          )
          .execute(),
    );
    await inChunks(
      cars.filter((c) => c.kind === 'white'),
      (chunk) =>
        trx
          .insertInto('car_black_white_list')
          .values(
            chunk.map((c) => ({
              license_plate: c.plate,
              vehicle_type_id: null,
              type: 2,
              start_time: null,
              end_time: null,
              status: AppState.APPROVED,
              in_reason: '长期合作单位',
              process_instance_id: null,
              create_user_id: null,
              update_user_id: null,
              ...stamp,
            })),
          )
          .execute(),
    );

    const ids = new Map<string, number>();
    for (const p of await trx.selectFrom('person_application').select(['person_application_id as id', 'application_number']).where('application_number', 'like', 'MBP%').execute())
      ids.set(p.application_number, p.id);
    for (const c of await trx.selectFrom('car_application').select(['car_application_id as id', 'application_number']).where('application_number', 'like', 'MBC%').execute())
      ids.set(c.application_number, c.id);
    const stays = [
      ...persons.map((p) => ({ kind: 'person', subject: p.idcard, number: p.kind === 'visit' ? `MBP${String(p.i).padStart(8, '0')}` : '', area: p.area, gates: personGates })),
      ...cars.map((c) => ({ kind: 'car', subject: c.plate, number: c.kind === 'visit' ? `MBC${String(c.i).padStart(8, '0')}` : '', area: c.area, gates: carGates })),
    ];
    await inChunks(stays, (chunk) =>
      trx
        .insertInto('presence')
        .values(
          chunk.map((s) => ({
            kind: s.kind,
            subject: s.subject,
            application_id: s.number ? ids.get(s.number)! : null,
            visit_area: s.number ? s.area : null,
            deadline: null,
            entry_time: at(-1 - Math.floor(r() * 480)),
            entry_device_id: pick(s.gates),
            exit_time: null,
            exit_device_id: null,
          })),
        )
        .execute(),
    );
  });
  return { persons: MUSTER_PERSONS, vehicles: MUSTER_VEHICLES, seconds: (performance.now() - t0) / 1000 };
}

const sleepUntil = (t: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, t - performance.now())));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const ms = (x: number) => `${x.toFixed(0)} ms`;

/** A JSON answer's data, or a failure naming the call. */
async function data<T>(client: HttpClient, method: 'GET' | 'POST', url: string, token: string, body?: unknown): Promise<T> {
  const a = await client.request(
    method,
    url,
    { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body === undefined ? undefined : JSON.stringify(body),
  );
  const text = a.body.toString('utf8');
  if (a.status !== 200) throw new Error(`${method} ${url} answered ${a.status}: ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { data: T }).data;
}

/** One board read: when it was asked and answered, and the accounted count it showed. */
interface BoardRead {
  asked: number;
  answered: number;
  accounted: number;
  why: 'event' | 'poll';
}

/**
 * The muster page's board: it refetches GET /api/muster/current on each
 * `figures` event of the notification stream, and every PAGE_POLL_MS besides;
 * an event that comes while a fetch is under way asks again once it ends.
 */
function watchBoard(base: string, token: string) {
  const client = new HttpClient(base);
  const stream = new EventStream();
  const reads: BoardRead[] = [];
  let inFlight: Promise<void> | null = null;
  let again: BoardRead['why'] | null = null;
  let stopped = false;
  let figuresEvents = 0;
  const fetchBoard = (why: BoardRead['why']): void => {
    if (inFlight) {
      again = why;
      return;
    }
    const asked = performance.now();
    inFlight = data<MusterCurrentAnswer>(client, 'GET', '/api/muster/current', token)
      .then((b) => void reads.push({ asked, answered: performance.now(), accounted: b.muster?.accounted ?? 0, why }))
      .finally(() => {
        inFlight = null;
        if (again && !stopped) {
          const w = again;
          again = null;
          fetchBoard(w);
        }
      });
  };
  const poll = setInterval(() => fetchBoard('poll'), PAGE_POLL_MS);
  const opened = stream.open(base, token).then(() => {
    if (stream.status !== 200) throw new Error(`notification stream answered ${stream.status}`);
  });
  const listening = opened.then(async () => {
    let seen = stream.events.length;
    while (!stopped) {
      try {
        await stream.next((e) => e.event === StreamEvent.FIGURES, 500, seen);
      } catch {
        continue;
      }
      figuresEvents += stream.events.slice(seen).filter((e) => e.event === StreamEvent.FIGURES).length;
      seen = stream.events.length;
      fetchBoard('event');
    }
  });
  return {
    reads,
    opened,
    figuresEvents: () => figuresEvents,
    async stop() {
      stopped = true;
      clearInterval(poll);
      await inFlight;
      await stream.close();
      await listening.catch(() => undefined);
      client.close();
    },
  };
}

interface MusterFigures {
  dialect: Dialect;
  seedSeconds: number;
  starts: Array<{ start: number; subjects: number; total: number }>;
  rawRead: { snapshot: number; subjects: number };
  marks: { sent: number; failed: number; perSecond: number; p95: number; rawP95: number };
  visible: { p95: number; max: number; missing: number; rawBoardP95: number; events: number; reads: number };
}

async function benchOn(dialect: Dialect): Promise<MusterFigures> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `park-bench-muster-${dialect}-`));
  const password = 'Bench' + Date.now() + 'm';
  const database = dialect === 'postgres' ? await createDatabase('park_bench_muster') : null;
  const common = { SEED_GATE_HISTORY: '0', BACKUP_AT: 'off', ...(database ? { DATABASE_URL: database.url } : {}) };
  let server: ServerProcess | null = null;
  try {
    const config = loadConfig({ DATA_DIR: dataDir, SMS_PROVIDER: 'file', DEMO_PASSWORD: password, PORT: '0', LOG_LEVEL: 'warn', ...common }, { staticDir: undefined });
    const app = await buildApp(config);
    let seeded: Awaited<ReturnType<typeof seedInside>>;
    try {
      seeded = await seedInside(app.ctx.db, config.tz);
    } finally {
      await app.close();
    }
    console.log(`\n[${dialect}] seeded ${seeded.persons.toLocaleString('en')} people and ${seeded.vehicles.toLocaleString('en')} vehicles inside in ${seeded.seconds.toFixed(1)} s`);

    server = await startServerProcess({ ...serverEnv(dataDir, password, 1), ...common });
    const base = server.base;
    const [lead, patrol, admin] = [await signInViaApi(base, dataDir, 'lead', password), await signInViaApi(base, dataDir, 'patrol', password), await signInViaApi(base, dataDir, 'admin', password)];
    const client = new HttpClient(base);
    const raw = await rawOf(dialect, dataDir, database?.url);
    try {
      // The SMS a start queues go out after its commit: the next start waits for them, as a park would not start two at once.
      const smsDone = async () => {
        for (let i = 0; i < 600; i++) {
          const [r] = await raw.all("select count(*) as n from outbox_message where origin = 'muster' and state = 0");
          if (Number(r!.n) === 0) return;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };

      // The list ready: start answered, then the marshals' list answered.
      const starts: MusterFigures['starts'] = [];
      let musterId = 0;
      let subjects: MusterSubjectsAnswer['subjects'] = [];
      for (let run = 0; run < STARTS; run++) {
        if (run > 0) await data(client, 'POST', '/api/muster/end', lead, { muster_id: musterId });
        await smsDone();
        const t0 = performance.now();
        const board = await data<MusterCurrentAnswer>(client, 'POST', '/api/muster/start', lead, { visit_area: 3, drill: 1, message: '性能测试：请前往最近的集合点' });
        const t1 = performance.now();
        musterId = board.muster!.id;
        subjects = (await data<MusterSubjectsAnswer>(client, 'GET', `/api/muster/subjects?muster_id=${musterId}`, patrol)).subjects;
        starts.push({ start: t1 - t0, subjects: performance.now() - t0, total: board.muster!.total });
      }
      await smsDone();

      const rawRead = { snapshot: Infinity, subjects: Infinity };
      for (let i = 0; i < RAW_READS; i++) {
        let t = performance.now();
        await raw.all(SNAPSHOT_SQL);
        rawRead.snapshot = Math.min(rawRead.snapshot, performance.now() - t);
        t = performance.now();
        await raw.all(SUBJECTS_SQL, [musterId]);
        rawRead.subjects = Math.min(rawRead.subjects, performance.now() - t);
      }

      // Marks by list at MARK_RATE a second, shared among the marshals in turn (patrol and lead), while the board watches.
      const watcher = watchBoard(base, admin);
      await watcher.opened;
      const r = prng(7);
      const pool = [...subjects];
      for (let i = pool.length - 1; i > 0; i--) {
        const j = Math.floor(r() * (i + 1));
        [pool[i], pool[j]] = [pool[j]!, pool[i]!];
      }
      const count = Math.min(pool.length, Math.round(MARK_RATE * MARK_SECONDS));
      const marshals = Array.from({ length: MARSHALS }, (_, i) => ({ client: new HttpClient(base), token: i % 2 ? lead : patrol }));
      const marks: Array<{ sent: number; answered: number; ok: boolean }> = [];
      const begin = performance.now() + 300;
      await Promise.all(
        pool.slice(0, count).map(async (s, i) => {
          await sleepUntil(begin + (i * 1000) / MARK_RATE);
          const m = marshals[i % MARSHALS]!;
          const sent = performance.now();
          try {
            const a = await data<{ already: boolean }>(m.client, 'POST', '/api/muster/mark', m.token, { muster_id: musterId, method: 'list', subject_id: s.id, place: `${1 + (i % 6)}号集合点` });
            marks.push({ sent, answered: performance.now(), ok: !a.already });
          } catch (err) {
            marks.push({ sent, answered: performance.now(), ok: false });
            if (marks.filter((x) => !x.ok).length === 1) console.log(`  first failed mark: ${(err as Error).message}`);
          }
        }),
      );
      for (const m of marshals) m.client.close();
      // Until the board shows every mark, or 10 s.
      const done = marks.filter((m) => m.ok).length;
      const deadline = performance.now() + 10_000;
      while (performance.now() < deadline && !watcher.reads.some((b) => b.accounted >= done)) await new Promise((resolve) => setTimeout(resolve, 100));
      await watcher.stop();

      // The k-th mark answered is on the board from the first read asked after it was sent that counts k or more accounted.
      const answered = marks.filter((m) => m.ok).sort((a, b) => a.answered - b.answered);
      const delays: number[] = [];
      let missing = 0;
      answered.forEach((m, k) => {
        const seen = watcher.reads.find((b) => b.asked >= m.sent && b.accounted >= k + 1);
        if (seen) delays.push(seen.answered - m.sent);
        else missing++;
      });
      const answers = marks.map((m) => m.answered).sort((a, b) => a - b);
      const perSecond = (marks.length - 1) / ((answers.at(-1)! - answers[0]!) / 1000);

      // Baselines: the same mark written and the same board read straight against the database (server stopped: nothing else writes).
      await server.stop();
      server = null;
      const open = (await raw.all('select id from muster_subject where muster_id = ? and marked_at is null order by id limit ?', [musterId, RAW_MARKS])).map((x) => Number(x.id));
      const rawMarks: number[] = [];
      const time = formatInZone(Date.now(), config.tz);
      for (const id of open) {
        const t = performance.now();
        await raw.all('begin');
        await raw.all('select id from muster_subject where id = ? and muster_id = ?', [id, musterId]);
        await raw.all("update muster_subject set marked_at = ?, marked_by = 1, marked_by_name = '基准', mark_place = '1号集合点', mark_method = 'list' where id = ? and marked_at is null", [time, id]);
        await raw.all('select id, kind, subject, name, phone, enterprise, marked_at from muster_subject where id = ?', [id]);
        await raw.all("insert into muster_event (muster_id, type, at, user_id, user_name, place, subject_id, text) values (?, 'mark', ?, 1, '基准', '1号集合点', ?, '基准标记')", [musterId, time, id]);
        await raw.all('commit');
        rawMarks.push(performance.now() - t);
      }
      const rawBoard: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t = performance.now();
        for (const q of BOARD_SQL) await raw.all(q, [musterId]);
        rawBoard.push(performance.now() - t);
      }

      return {
        dialect,
        seedSeconds: seeded.seconds,
        starts,
        rawRead,
        marks: { sent: marks.length, failed: marks.filter((m) => !m.ok).length, perSecond, p95: p95(marks.map((m) => m.answered - m.sent))!, rawP95: p95(rawMarks)! },
        visible: {
          p95: delays.length ? p95(delays)! : Infinity,
          max: delays.length ? Math.max(...delays) : Infinity,
          missing,
          rawBoardP95: p95(rawBoard)!,
          events: watcher.figuresEvents(),
          reads: watcher.reads.length,
        },
      };
    } finally {
      client.close();
      await raw.close();
    }
  } finally {
    await server?.stop();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function report(f: MusterFigures) {
  const worst = Math.max(...f.starts.map((s) => s.subjects));
  const total = f.starts[0]!.total;
  console.log(`\n应急清点 on ${f.dialect}: ${total.toLocaleString('en')} people and vehicles inside, ${f.starts.length} start(s), the last one marked`);
  f.starts.forEach((s, i) => console.log(`  start ${i + 1}: POST /api/muster/start ${ms(s.start).padStart(8)}, + GET /api/muster/subjects: list ready ${ms(s.subjects).padStart(8)}`));
  console.log(`    baseline: raw snapshot query ${ms(f.rawRead.snapshot)} + raw list query ${ms(f.rawRead.subjects)} (best of ${RAW_READS}, no HTTP, no insert)`);
  console.log(`  marks: ${f.marks.sent} by list at ${MARK_RATE}/s from ${MARSHALS} clients: ${f.marks.perSecond.toFixed(1)}/s answered, p95 ${f.marks.p95.toFixed(0)} ms, ${f.marks.failed} failed`);
  console.log(`    baseline: raw mark transaction p95 ${f.marks.rawP95.toFixed(1)} ms`);
  console.log(
    `  mark → board (stream's figures event, then GET /api/muster/current; ${f.visible.events} events, ${f.visible.reads} reads): p95 ${ms(f.visible.p95)}, max ${ms(f.visible.max)}, never shown ${f.visible.missing}`,
  );
  console.log(`    baseline: raw board queries p95 ${f.visible.rawBoardP95.toFixed(1)} ms (+ the stream's 300 ms debounce)`);
  const label = (what: string) => `muster ${f.dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: ${what}`;
  targets.push(
    { what: label(`list ready, ${total.toLocaleString('en')} inside (worst of ${f.starts.length})`), target: `≤ ${LIST_READY_MS / 1000} s`, figure: ms(worst), met: worst <= LIST_READY_MS },
    {
      what: label(`${MARK_RATE} marks/s for ${MARK_SECONDS} s, answered`),
      target: `≥ ${(MARK_RATE * 0.95).toFixed(1)}/s, 0 failed`,
      figure: `${f.marks.perSecond.toFixed(1)}/s, ${f.marks.failed} failed`,
      met: f.marks.failed === 0 && f.marks.perSecond >= MARK_RATE * 0.95,
    },
    { what: label('a mark on the board, p95'), target: `≤ ${BOARD_VISIBLE_MS / 1000} s`, figure: ms(f.visible.p95), met: f.visible.missing === 0 && f.visible.p95 <= BOARD_VISIBLE_MS },
  );
}

/** The muster section of `npm run bench`: SQLite, then PostgreSQL when reachable; its targets join the bench's. */
export async function benchMuster(): Promise<void> {
  report(await benchOn('sqlite'));
  if (await canReachPostgres()) report(await benchOn('postgres'));
  else console.log(`\n应急清点 on PostgreSQL: SKIPPED, PostgreSQL at ${PG_ADMIN_URL} is unreachable`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  benchMuster()
    .then(() => {
      console.log('\nmuster targets (docs/muster.md)');
      for (const t of targets) console.log(`  ${t.met ? 'met    ' : 'NOT MET'}  ${t.what.padEnd(62)} ${t.figure.padStart(16)}   target ${t.target}`);
      if (targets.some((t) => !t.met)) process.exitCode = 1;
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
