import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskResult, TaskState } from '../../domain/appointments';
import { NotificationKind } from '../../domain/notifications';
import { DEFAULT_PARK_TZ, formatInZone } from '../../domain/time';
import { openDatabase, type Database_ } from '../../server/db/index';
import { carApplicationBody } from './fixtures';
import { EventStream } from './event-stream';
import { Client, DEMO_PASSWORD, dialects, type DialectName, type TestServer } from './harness';
import { createDatabase } from '../../scripts/pg-database';
import { startServerProcess, waitFor, type ServerProcess } from '../../scripts/server-process';

/**
 * Issue 14 item 5: WEB_CONCURRENCY runs several server processes on one port
 * (server/main.ts, node:cluster), on the SQLite file or on PostgreSQL. The
 * real entry point is started as a child process, as `npm run serve` would,
 * and the suite checks from outside what must hold with several processes:
 * contested decisions settle once with 409 for the loser and no 5xx, one
 * Idempotency-Key acts once, a notification reaches a stream held by any
 * process, and a killed process is replaced while the others keep serving.
 */

const covered = await dialects();

interface Cluster {
  server: TestServer;
  process: ServerProcess;
  database: Database_;
  stop(): Promise<number | null>;
}

async function startCluster(dialect: DialectName): Promise<Cluster> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'park-cluster-'));
  const pgDatabase = dialect === 'postgres' ? await createDatabase('park_cluster') : undefined;
  const databaseUrl = pgDatabase?.url;
  const proc = await startServerProcess({
    WEB_CONCURRENCY: '2',
    DATA_DIR: dataDir,
    STATIC_DIR: path.join(dataDir, 'no-ui'),
    SMS_PROVIDER: 'file',
    DEMO_PASSWORD,
    SEED_GATE_HISTORY: '0',
    CAPTCHA_COOLDOWN_SECONDS: '0',
    SIGN_IN_RATE_LIMIT_FACTOR: '100',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl ?? '',
  });
  const database = openDatabase({ dataDir, databaseUrl });
  const server: TestServer = {
    app: undefined as never,
    base: proc.base,
    dataDir,
    dialect,
    close: async () => undefined,
  };
  return {
    server,
    process: proc,
    database,
    async stop() {
      await database.close();
      const code = await proc.stop();
      await pgDatabase?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}

describe.each(covered)('WEB_CONCURRENCY=2: two server processes on one port (%s)', (dialect) => {
  let c: Cluster;
  let contact: Client;
  let reviewer: Client;
  let today = '';
  let modelId = 0;
  let departId = 0;
  let seq = 0;

  beforeAll(async () => {
    c = await startCluster(dialect);
    contact = await new Client(c.server).as('contact');
    reviewer = await new Client(c.server).as('reviewer');
    const { db } = c.database;
    modelId = (await db.selectFrom('vehicle_type').select('id').where('name', '=', '小型汽车').executeTakeFirstOrThrow()).id;
    departId = (await db.selectFrom('sys_department').select('depart_id').where('code', '=', 'CNOOC_SHELL').executeTakeFirstOrThrow()).depart_id;
    today = (await contact.get<{ startedAt: string }>('/system/version')).body.data.startedAt.slice(0, 10);
  }, 120_000);
  afterAll(async () => {
    if (c) expect(await c.stop(), 'the primary stops its processes and exits cleanly on SIGTERM').toBe(0);
  });

  const carBody = () =>
    carApplicationBody({
      today,
      license_plate: `粤W${String(++seq).padStart(4, '0')}${dialect === 'postgres' ? 'P' : 'S'}`,
      applicant_idcard: '441302199001011231',
      vehicle_type_id: modelId,
      interviewee_depart_id: departId,
    });

  async function submitCar() {
    const saved = await contact.post<{ id: number }>('/v2/carApplications/save', carBody());
    expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
    const pushed = await contact.post('/carApplications/push', { id: saved.body.data.id });
    expect(pushed.body, JSON.stringify(pushed.body)).toMatchObject({ success: true });
    return saved.body.data.id;
  }

  it('settles each contested decision once across the processes: one winner, 409 for the loser, no 5xx', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) ids.push(await submitCar());
    const { db } = c.database;
    const reviewerId = (await db.selectFrom('sys_user').select('user_id').where('account', '=', 'reviewer').executeTakeFirstOrThrow()).user_id;
    const tasks = await db
      .selectFrom('process_task as t')
      .innerJoin('car_application as a', 'a.process_instance_id', 't.process_instance_id')
      .select(['t.process_task_id', 'a.car_application_id'])
      .where('a.car_application_id', 'in', ids)
      .where('t.user_id', '=', reviewerId)
      .where('t.state', '=', TaskState.PENDING)
      .execute();
    expect(tasks).toHaveLength(ids.length);
    // Approve and reject of each task at once, many tasks at once: the calls spread over both processes' connections.
    const answers = await Promise.all(
      tasks.flatMap((t) => [
        reviewer.post('/carApplications/task/check', { taskIds: String(t.process_task_id), result: TaskResult.APPROVE, remark: '同意' }),
        reviewer.post('/carApplications/task/check', { taskIds: String(t.process_task_id), result: TaskResult.REJECT, remark: '不同意' }),
      ]),
    );
    expect(
      answers.filter((a) => a.status >= 500),
      JSON.stringify(answers.filter((a) => a.status >= 500)),
    ).toEqual([]);
    for (let i = 0; i < tasks.length; i++) {
      const pair = [answers[2 * i]!, answers[2 * i + 1]!];
      expect(pair.filter((a) => a.status === 200).length, JSON.stringify(pair)).toBe(1);
      expect(pair.filter((a) => a.status === 409).length, JSON.stringify(pair)).toBe(1);
    }
    const decided = await db
      .selectFrom('process_task')
      .select(['state', 'result'])
      .where(
        'process_task_id',
        'in',
        tasks.map((t) => t.process_task_id),
      )
      .execute();
    expect(decided.every((t) => t.state === TaskState.DONE)).toBe(true);
  });

  it('a remembered queue total is right on every process soon after a write through the other, well within its TTL', async () => {
    // Eight at once open several connections, which the primary hands to both processes in turn: each process remembers the total.
    const totals = async () => Promise.all(Array.from({ length: 8 }, () => reviewer.post<{ total: number }>('/carApplications/task/page', { size: 10, pn: 1 }).then((r) => r.body.data.total)));
    const before = await totals();
    expect(new Set(before).size, JSON.stringify(before)).toBe(1);
    await submitCar();
    const written = Date.now();
    let after = await totals();
    // The change travels between processes through the primary, in about a millisecond; without it one process would answer the old total until TOTAL_TTL_MS.
    while (after.some((t) => t !== before[0]! + 1) && Date.now() - written < 1500) after = await totals();
    expect(after, JSON.stringify(after)).toEqual(after.map(() => before[0]! + 1));
    expect(Date.now() - written).toBeLessThan(1500);
  });

  it('acts once on one Idempotency-Key sent many times at once', async () => {
    const body = carBody();
    const key = `cluster-${dialect}-${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        fetch(`${c.server.base}/api/v2/carApplications/save`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${contact.token}`, 'idempotency-key': key },
          body: JSON.stringify(body),
        }).then((r) => r.status),
      ),
    );
    expect(
      answers.every((s) => s === 200 || s === 409),
      JSON.stringify(answers),
    ).toBe(true);
    const rows = await c.database.db.selectFrom('car_application').select('car_application_id').where('license_plate', '=', body.license_plate).execute();
    expect(rows).toHaveLength(1);
  });

  it('streams a notification to the reviewer whichever process holds the stream and whichever files the visit', async () => {
    // Several streams, so that some sit on each process; every one of them must get every new task.
    const streams = await Promise.all(Array.from({ length: 4 }, () => new EventStream().open(c.server.base, reviewer.token)));
    try {
      for (const s of streams) await s.next((e) => e.event === 'unread');
      const plates: string[] = [];
      for (let i = 0; i < 3; i++) {
        const id = await submitCar();
        plates.push((await c.database.db.selectFrom('car_application').select('license_plate').where('car_application_id', '=', id).executeTakeFirstOrThrow()).license_plate);
      }
      for (const s of streams) {
        for (const plate of plates) {
          const e = await s.next((x) => x.event === 'notification' && JSON.stringify(x.data).includes(plate), 10_000);
          expect(e.data).toMatchObject({ kind: NotificationKind.TASK_ASSIGNED });
        }
      }
    } finally {
      await Promise.all(streams.map((s) => s.close()));
    }
  });

  it('raises an overstay within 5 s of its deadline whichever process stored the stay (the timer runs in process 0 only)', async () => {
    const { db } = c.database;
    const admin = await new Client(c.server).as('admin');
    const gate = await db.selectFrom('equipment').select(['id', 'number']).where('kind', '=', 'gate').orderBy('id').executeTakeFirstOrThrow();
    const key = (await admin.post<{ key: string }>('/equipment/gate/issueKey', { id: gate.id })).body.data.key;
    await db.updateTable('vehicle_type').set({ dwell_limit_minutes: 1 }).where('id', '=', modelId).execute();
    const park = (ms: number) => formatInZone(ms, DEFAULT_PARK_TZ);
    /** One batch on a connection of its own: the primary hands each new connection to the next process in turn. */
    const sendAlone = (events: unknown[]) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({ events });
        const req = http.request(
          `${c.server.base}/api/device/events`,
          { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Device ${gate.number}:${key}` } },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    try {
      // Four stays one after another, each on a new connection, so that some are stored by the process without the timer.
      for (let i = 0; i < 4; i++) {
        const id = await submitCar();
        const plate = (await db.selectFrom('car_application').select('license_plate').where('car_application_id', '=', id).executeTakeFirstOrThrow()).license_plate;
        await db
          .updateTable('car_application')
          .set({ state: 2, visitor_begin_time: `${today} 00:00:00`, visitor_end_time: `${today} 23:59:59` })
          .where('car_application_id', '=', id)
          .execute();
        // In 57 s ago with a one-minute dwell limit: stranded 3 s from now.
        const entry = Date.now() - 57_000;
        expect(await sendAlone([{ event_id: `cluster-${dialect}-${plate}`, type: 'vehicle', capture_time: park(entry), license_plate: plate, direction: 1, open_result: 1 }])).toBe(200);
        const deadline = park(entry + 60_000);
        await waitFor(`alarm for ${plate} within 5 s of ${deadline}`, async () => !!(await db.selectFrom('stranded_alarm').select('id').where('license_plate', '=', plate).executeTakeFirst()), 8_000);
        const alarm = await db.selectFrom('stranded_alarm').select('alarm_time').where('license_plate', '=', plate).executeTakeFirstOrThrow();
        expect(alarm.alarm_time >= deadline && alarm.alarm_time <= park(entry + 65_000), `${plate}: deadline ${deadline}, raised ${alarm.alarm_time}`).toBe(true);
      }
    } finally {
      await db.updateTable('vehicle_type').set({ dwell_limit_minutes: null }).where('id', '=', modelId).execute();
    }
  });

  it('replaces a process that is killed, and the other keeps answering meanwhile', async () => {
    const [victim] = c.process.workers();
    process.kill(victim!, 'SIGKILL');
    // Gone, and its sockets closed, so the client's pool no longer holds a connection to it (a browser retries those; this client does not).
    await waitFor('the killed process gone', () => {
      try {
        process.kill(victim!, 0);
        return false;
      } catch {
        return true;
      }
    });
    await new Promise((r) => setTimeout(r, 300));
    // Calls made while one process is gone still succeed (new connections go to the one left, then to its replacement).
    for (let i = 0; i < 10; i++) expect((await contact.post('/carApplications/list', { size: 10, pn: 1 })).status).toBe(200);
    await waitFor('a replacement process', () => {
      const now = c.process.workers();
      return now.length === 2 && !now.includes(victim!);
    });
    expect(c.process.output()).toContain('starting another');
    expect((await contact.post('/carApplications/list', { size: 10, pn: 1 })).status).toBe(200);
  });
});
