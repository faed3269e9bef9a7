/**
 * Backup under load. Starts the real server (server/main.ts) as a child
 * process on a temporary DATA_DIR, keeps clients saving vehicle drafts with
 * two drivers each at full speed, every write with an Idempotency-Key, and
 * records each acknowledged write with the time of its answer. The write
 * rate is measured in rounds: a window without a backup, then one in which
 * backups are taken one after another (server/ops/backup.ts, in a process of
 * their own as `npm run backup` takes them) while the clients keep writing.
 * The first archive is then restored into a fresh place (server/ops/restore.ts),
 * a server is started on it, and:
 *   - every draft acknowledged before that backup began must be there;
 *   - no draft may be half there: each restored draft of the run has both its
 *     drivers (on PostgreSQL the foreign keys hold by construction; these are
 *     the application's own rows), and the tables hold the rows the manifest counted;
 *   - SQLite: PRAGMA integrity_check is ok and foreign_key_check finds nothing;
 *   - the restored server answers the drafts' details.
 * Prints each backup's time and size and the write rate during the backups
 * beside the rate without one (target: at least 80 %).
 *
 *   npm run reliability:backup                SQLite (the default)
 *   DATABASE_URL=postgres://… npm run reliability:backup
 *                                             PostgreSQL: throw-away databases on that URL's server
 *   BACKUP_LOAD_ROUNDS=3 BACKUP_LOAD_SECONDS=6 (each window) BACKUP_LOAD_WRITERS=4
 *
 * Exits non-zero when a check fails or the rate falls below the target.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { carApplicationBody } from '../../tests/api/fixtures';
import { DEMO_PASSWORD } from '../../tests/api/harness';
import { loadConfig } from '../../server/config';
import { openDatabase } from '../../server/db/index';
import { humanSize, takeBackup, type BackupResult } from '../../server/ops/backup';
import { restoreBackup } from '../../server/ops/restore';
import { signInViaApi } from '../demo-login';
import { startServerProcess, type ServerProcess } from '../server-process';
import { intEnv, sleep, table } from './common';

/** Rounds of a window without a backup and one with backups back to back, each window this long. */
const ROUNDS = intEnv('BACKUP_LOAD_ROUNDS', 3);
const WINDOW_MS = intEnv('BACKUP_LOAD_SECONDS', 6) * 1000;
const WRITERS = intEnv('BACKUP_LOAD_WRITERS', 4);
const TARGET = 0.8;
const MARK = `bk-${Date.now().toString(36)}`;
const CHILD_FLAG = '--backups-child';

/** A throw-away database on the server of `url`, named like the test suites' ones (../pg-database.ts). */
async function throwAwayDatabase(url: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const run = async (statement: string) => {
    const c = new pg.Client({ connectionString: admin.toString() });
    await c.connect();
    try {
      await c.query(statement);
    } finally {
      await c.end();
    }
  };
  const name = `${prefix}_${Date.now()}_${randomBytes(3).toString('hex')}`;
  await run(`CREATE DATABASE ${name}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  return { url: u.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

const serverEnv = (dataDir: string, databaseUrl: string | undefined): Record<string, string> => ({
  DATA_DIR: dataDir,
  DATABASE_URL: databaseUrl ?? '',
  SMS_PROVIDER: 'file',
  DEMO_PASSWORD,
  SIGN_IN_RATE_LIMIT_FACTOR: '1000',
  CAPTCHA_COOLDOWN_SECONDS: '0',
  LOG_LEVEL: 'warn',
  STATIC_DIR: path.join(dataDir, 'no-ui'),
  BACKUP_AT: 'off',
  WEB_CONCURRENCY: '1',
});

async function query<T = Record<string, unknown>>(dataDir: string, databaseUrl: string | undefined, text: string): Promise<T[]> {
  if (databaseUrl) {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    try {
      return (await c.query(text)).rows as T[];
    } finally {
      await c.end();
    }
  }
  const db = new Database(path.join(dataDir, 'park.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(text).all() as T[];
  } finally {
    db.close();
  }
}

interface Ack {
  marker: string;
  id: number;
  at: number;
}

async function main(): Promise<number> {
  const pgUrl = process.env.DATABASE_URL || undefined;
  const dialect = pgUrl ? 'postgres' : 'sqlite';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'park-backup-load-'));
  const restoredDir = fs.mkdtempSync(path.join(os.tmpdir(), 'park-backup-restored-'));
  const live = pgUrl ? await throwAwayDatabase(pgUrl, 'park_backup_load') : null;
  const target = pgUrl ? await throwAwayDatabase(pgUrl, 'park_backup_restored') : null;
  let server: ServerProcess | null = null;
  let restoredServer: ServerProcess | null = null;
  const failures: string[] = [];
  try {
    console.log(`[${dialect}] starting a server on ${dataDir} …`);
    server = await startServerProcess(serverEnv(dataDir, live?.url));
    const origin = server.base;
    const token = await signInViaApi(origin, dataDir, 'contact', DEMO_PASSWORD);
    const today = (await query<{ d: string }>(dataDir, live?.url, 'select min(create_time) as d from sys_user'))[0]!.d.slice(0, 10);
    const model = (await query<{ id: number }>(dataDir, live?.url, "select id from vehicle_type where name = '小型汽车'"))[0]!.id;
    const shell = (await query<{ depart_id: number }>(dataDir, live?.url, "select depart_id from sys_department where code = 'CNOOC_SHELL'"))[0]!.depart_id;

    const acks: Ack[] = [];
    const refused: string[] = [];
    let writing = true;
    let seq = 0;
    const writer = async () => {
      while (writing) {
        const n = ++seq;
        const marker = `${MARK}-${n}`;
        const body = {
          ...carApplicationBody({
            today,
            license_plate: `粤D${n.toString(36).toUpperCase().padStart(5, '0')}`,
            applicant_idcard: '441302199001011231',
            vehicle_type_id: model,
            interviewee_depart_id: shell,
          }),
          visitor_content: marker,
          carPersonList: [
            { name: '司机甲', phone: '13900001111' },
            { name: '押运员乙', phone: '13900002222' },
          ],
        };
        try {
          const res = await fetch(`${origin}/api/carApplications/save`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': randomUUID() },
            body: JSON.stringify(body),
          });
          const json = (await res.json()) as { success: boolean; msg: string; data: { id: number } };
          if (res.ok && json.success) acks.push({ marker, id: json.data.id, at: Date.now() });
          else if (refused.length < 5) refused.push(`${res.status} ${json.msg}`);
        } catch (err) {
          if (refused.length < 5) refused.push((err as Error).message);
        }
      }
    };

    const writers = Array.from({ length: WRITERS }, writer);
    const backups: Array<{ began: number; ended: number; cpuMs: number; result: BackupResult }> = [];
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), CHILD_FLAG], {
      env: { ...process.env, ...serverEnv(dataDir, live?.url), BACKUP_DIR: path.join(dataDir, 'backups') },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const said: string[] = [];
    let wake: (() => void) | null = null;
    readline.createInterface({ input: child.stdout! }).on('line', (l) => {
      said.push(l);
      wake?.();
    });
    const next = async (): Promise<string> => {
      while (!said.length) {
        if (child.exitCode !== null) throw new Error(`the backup process exited with ${child.exitCode}`);
        await new Promise<void>((r) => ((wake = r), setTimeout(r, 200)));
      }
      return said.shift()!;
    };
    if ((await next()) !== 'ready') throw new Error('the backup process did not start');

    // Warm up; then rounds of a window without a backup and one of backups back to back, so that drift (the tables
    // grow, the machine's other work comes and goes) falls on both alike.
    await sleep(3000);
    const quiet: Array<[number, number]> = [];
    const busy: Array<[number, number]> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const q0 = Date.now();
      await sleep(WINDOW_MS);
      quiet.push([q0, Date.now()]);
      const b0 = Date.now();
      child.stdin!.write('go\n');
      let stopping = false;
      for (;;) {
        const line = await next();
        if (line === 'stopped') break;
        backups.push(JSON.parse(line) as (typeof backups)[number]);
        if (!stopping && Date.now() - b0 >= WINDOW_MS) {
          stopping = true;
          child.stdin!.write('stop\n');
        }
      }
      busy.push([b0, backups.at(-1)!.ended]);
    }
    child.stdin!.end();
    writing = false;
    await Promise.all(writers);
    await server.stop();
    server = null;
    const rateOver = (windows: Array<[number, number]>) => {
      const ms = windows.reduce((n, [a, b]) => n + (b - a), 0);
      return windows.reduce((n, [a, b]) => n + acks.filter((x) => x.at >= a && x.at < b).length, 0) / (ms / 1000);
    };
    const baseRate = rateOver(quiet);
    const duringRate = rateOver(busy);
    if (refused.length) console.log(`[${dialect}] writes refused (first ${refused.length}): ${refused.join('; ')}`);

    // The first archive, restored into a fresh place.
    const first = backups[0]!;
    console.log(`[${dialect}] restoring ${first.result.file} …`);
    await restoreBackup({ archive: first.result.file, dataDir: restoredDir, databaseUrl: target?.url });
    const restored = await query<{ id: number; marker: string }>(
      restoredDir,
      target?.url,
      `select car_application_id as id, visitor_content as marker from car_application where visitor_content like '${MARK}-%'`,
    );
    const restoredMarkers = new Set(restored.map((r) => r.marker));
    const due = acks.filter((a) => a.at < first.began);
    const missing = due.filter((a) => !restoredMarkers.has(a.marker));
    if (missing.length) failures.push(`${missing.length} of ${due.length} drafts acknowledged before the backup began are missing (first: ${missing[0]!.marker})`);
    const drivers = await query<{ id: number; n: number | string }>(
      restoredDir,
      target?.url,
      `select a.car_application_id as id, count(p.car_person_id) as n from car_application a left join car_person p on p.car_application_id = a.car_application_id where a.visitor_content like '${MARK}-%' group by a.car_application_id`,
    );
    const half = drivers.filter((d) => Number(d.n) !== 2);
    if (half.length) failures.push(`${half.length} restored drafts do not have both drivers (first: application ${half[0]!.id} with ${half[0]!.n})`);
    for (const t of ['car_application', 'car_person', 'process_instance', 'sys_operation_log']) {
      const n = Number((await query<{ n: number | string }>(restoredDir, target?.url, `select count(*) as n from ${t}`))[0]!.n);
      if (n !== first.result.manifest.tables[t]) failures.push(`${t}: ${n} rows restored, the manifest counted ${first.result.manifest.tables[t]}`);
    }
    if (!target) {
      const integrity = await query<{ integrity_check: string }>(restoredDir, undefined, 'pragma integrity_check');
      if (integrity.length !== 1 || integrity[0]!.integrity_check !== 'ok') failures.push(`integrity_check: ${JSON.stringify(integrity.slice(0, 5))}`);
      const fk = await query(restoredDir, undefined, 'pragma foreign_key_check');
      if (fk.length) failures.push(`foreign_key_check: ${fk.length} rows, first ${JSON.stringify(fk[0])}`);
    }

    console.log(`[${dialect}] starting a server on the restored data …`);
    restoredServer = await startServerProcess(serverEnv(restoredDir, target?.url));
    const again = await signInViaApi(restoredServer.base, restoredDir, 'contact', DEMO_PASSWORD);
    for (const a of [due[0], due.at(-1)].filter((x): x is Ack => !!x)) {
      const res = await fetch(`${restoredServer.base}/api/carApplications/detail?id=${a.id}`, { headers: { authorization: `Bearer ${again}` } });
      const json = (await res.json()) as { success: boolean; msg: string; data?: { visitor_content?: string; carPersonList?: unknown[] } };
      if (!json.success || json.data?.visitor_content !== a.marker || json.data?.carPersonList?.length !== 2)
        failures.push(`the restored server answers draft ${a.id} as ${res.status} ${JSON.stringify(json).slice(0, 200)}`);
    }

    const ratio = baseRate > 0 ? duringRate / baseRate : 0;
    if (ratio < TARGET) failures.push(`write rate during backups ${(ratio * 100).toFixed(0)} % of the rate without, below the target ${TARGET * 100} %`);
    console.log('\n=== backups ===');
    console.log(
      table([
        ['backup', 'took (ms)', 'its CPU (ms)', 'size', 'tables', 'files', 'verified'],
        ...backups.map((b) => [
          path.basename(b.result.file),
          b.result.durationMs,
          b.cpuMs,
          humanSize(b.result.size),
          Object.keys(b.result.manifest.tables).length,
          b.result.manifest.files.count,
          b.result.verified ? 'yes' : 'no',
        ]),
      ]),
    );
    console.log('\n=== summary ===');
    console.log(
      table([
        ['dialect', 'writers', 'writes/s without backup', 'writes/s during backups', 'ratio', 'acked before 1st backup', 'restored of them', 'half there', 'checks failed'],
        [dialect, WRITERS, baseRate.toFixed(1), duringRate.toFixed(1), `${(ratio * 100).toFixed(0)} %`, due.length, due.length - missing.length, half.length, failures.length],
      ]),
    );
    for (const f of failures) console.log(`- ${f}`);
    return failures.length ? 1 : 0;
  } finally {
    await server?.stop();
    await restoredServer?.stop();
    await live?.drop().catch(() => undefined);
    await target?.drop().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(restoredDir, { recursive: true, force: true });
  }
}

/**
 * The backups, in a process of their own as `npm run backup` takes them: told to go, it takes one backup after another
 * and prints each as a JSON line, until told to stop; its stdin closed, it ends.
 */
async function backupsChild(): Promise<number> {
  const config = loadConfig();
  const database = openDatabase(config);
  const commands: string[] = [];
  let wake: (() => void) | null = null;
  let closed = false;
  const input = readline.createInterface({ input: process.stdin });
  input.on('line', (l) => {
    commands.push(l);
    wake?.();
  });
  input.on('close', () => {
    closed = true;
    wake?.();
  });
  const command = async () => {
    while (!commands.length && !closed) await new Promise<void>((r) => (wake = r));
    return commands.shift() ?? 'quit';
  };
  console.log('ready');
  try {
    while ((await command()) === 'go') {
      do {
        const began = Date.now();
        const cpu = process.cpuUsage();
        const result = await takeBackup({ config, database, reason: 'cli' });
        const used = process.cpuUsage(cpu);
        console.log(JSON.stringify({ began, ended: Date.now(), cpuMs: Math.round((used.user + used.system) / 1000), result }));
      } while (!commands.includes('stop') && !closed);
      if (commands.includes('stop')) commands.splice(commands.indexOf('stop'), 1);
      console.log('stopped');
    }
  } finally {
    input.close();
    await database.close();
  }
  return 0;
}

if (process.argv.includes(CHILD_FLAG)) process.exit(await backupsChild());
process.exitCode = await main();
