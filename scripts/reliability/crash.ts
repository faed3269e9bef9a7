/**
 * Crash test. Starts the real server as a child process (`npx tsx
 * server/main.ts`), keeps clients writing — vehicle drafts saved and
 * submitted by `contact`, approvals by `reviewer`, every write with an
 * Idempotency-Key — and SIGKILLs the server CRASH_KILLS times (default 20)
 * at random moments. After each restart:
 *   - every write that was answered 2xx must be in the database (a draft with
 *     its marker, a submitted application under review or later, a decided task);
 *   - every write that got no answer is sent again with the same key and body
 *     and must answer 2xx, and must not have happened twice (one row per marker);
 *   - the newest acknowledged write of each kind, sent again with its key,
 *     must replay the first answer.
 * Bounded: at most CRASH_SECONDS (default 600) per database.
 *
 *   npx tsx scripts/reliability/crash.ts [--dialect sqlite|postgres|both]
 *   CRASH_KILLS=20 CRASH_SECONDS=600 CRASH_WRITERS=3
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { carApplicationBody } from '../../tests/api/fixtures';
import { DEMO_PASSWORD, type DialectName } from '../../tests/api/harness';
import { signInViaApi } from '../demo-login';
import { createDatabase } from '../pg-database';
import { dialectsFromArgs, intEnv, sleep, table } from './common';

const KILLS = intEnv('CRASH_KILLS', 20);
const SECONDS = intEnv('CRASH_SECONDS', 600);
const WRITERS = intEnv('CRASH_WRITERS', 3);
const ROOT = path.resolve(import.meta.dirname, '../..');

type Kind = 'draft' | 'submit' | 'decision';

interface Write {
  kind: Kind;
  who: 'contact' | 'reviewer';
  url: string;
  body: unknown;
  key: string;
  /** draft: the marker in visitor_content; submit: the application; decision: the task. */
  subject: string | number;
  /** The first 2xx answer's data. */
  data?: unknown;
}

interface Tally {
  acknowledged: Record<Kind, number>;
  missing: string[];
  duplicated: string[];
  resent: number;
  resendFailed: string[];
  replayMismatch: string[];
  kills: number;
  restarts: number;
  startFailures: number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

async function crashDialect(dialect: DialectName) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'park-crash-'));
  const database = dialect === 'postgres' ? await createDatabase('park_crash') : null;
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const logFile = path.join(dataDir, 'server.out');
  const deadline = Date.now() + SECONDS * 1000;
  let child: ChildProcess | null = null;
  const startMs: number[] = [];
  const tally: Tally = { acknowledged: { draft: 0, submit: 0, decision: 0 }, missing: [], duplicated: [], resent: 0, resendFailed: [], replayMismatch: [], kills: 0, restarts: 0, startFailures: 0 };

  const start = async () => {
    const out = fs.openSync(logFile, 'a');
    // Its own process group: npx and tsx each start a child, and the kill must reach the server itself.
    child = spawn('npx', ['tsx', 'server/main.ts'], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', out, out],
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        SMS_PROVIDER: 'file',
        DEMO_PASSWORD,
        SIGN_IN_RATE_LIMIT_FACTOR: '1000',
        CAPTCHA_COOLDOWN_SECONDS: '0',
        LOG_LEVEL: 'warn',
        STATIC_DIR: path.join(dataDir, 'no-ui'),
        ...(database ? { DATABASE_URL: database.url } : { DATABASE_URL: '' }),
      },
    });
    fs.closeSync(out);
    for (let i = 0; i < 600; i++) {
      try {
        const r = await fetch(`${origin}/api/system/version`);
        if (r.ok) return;
      } catch {
        // not listening yet
      }
      if (child.exitCode !== null) break;
      await sleep(100);
    }
    tally.startFailures++;
    throw new Error(`server did not start; see ${logFile}`);
  };
  const kill = async () => {
    const c = child!;
    const exited = new Promise((r) => c.once('exit', r));
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    await exited;
    child = null;
  };

  // ------------------------------------------------------------ reading the database behind the server
  const query = async (sqlText: string, params: unknown[] = []): Promise<any[]> => {
    if (database) {
      const c = new pg.Client({ connectionString: database.url });
      await c.connect();
      try {
        return (await c.query(sqlText, params)).rows;
      } finally {
        await c.end();
      }
    }
    const db = new Database(path.join(dataDir, 'park.db'), { readonly: true, fileMustExist: true });
    try {
      return db.prepare(sqlText.replace(/\$\d+/g, '?')).all(...params);
    } finally {
      db.close();
    }
  };

  try {
    await start();
    const tokens: Record<string, string> = {};
    const signIn = async (who: string) => (tokens[who] = await signInViaApi(origin, dataDir, who, DEMO_PASSWORD));
    await signIn('contact');
    await signIn('reviewer');
    const today = (await query(database ? "select to_char(now() at time zone 'Asia/Shanghai', 'YYYY-MM-DD') as d" : "select date('now', '+8 hours') as d"))[0].d as string;
    const model = (await query("select id from vehicle_type where name = '小型汽车'"))[0].id as number;
    const shell = (await query("select depart_id from sys_department where code = 'CNOOC_SHELL'"))[0].depart_id as number;

    const acked: Write[] = [];
    const unanswered: Write[] = [];
    let up = true;
    /** Set when the server cannot be brought back: the writers stop instead of waiting for the deadline. */
    let halted = false;
    let seq = 0;

    /** Sends a write; answers its data on 2xx, 'lost' when no answer came back, and throws on any other answer. */
    const send = async (w: Write): Promise<{ data: unknown } | 'lost'> => {
      let res: Response;
      try {
        res = await fetch(origin + '/api' + w.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[w.who]}`, 'idempotency-key': w.key },
          body: JSON.stringify(w.body),
        });
      } catch {
        return 'lost';
      }
      let json: any;
      try {
        json = await res.json();
      } catch {
        return 'lost';
      }
      if (res.status >= 200 && res.status < 300 && json?.success) return { data: json.data };
      throw Object.assign(new Error(`${w.kind} ${w.url}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`), { status: res.status });
    };
    const write = async (w: Write) => {
      if (!up) return null;
      const r = await send(w).catch((e) => {
        // A 409 "same request in progress" is a lost answer too: its first send died with the server.
        if ((e as { status?: number }).status === 409) return 'lost' as const;
        console.warn(`[${dialect}] refused: ${(e as Error).message}`);
        return null;
      });
      if (r === 'lost') unanswered.push(w);
      else if (r) {
        w.data = r.data;
        acked.push(w);
        tally.acknowledged[w.kind]++;
      }
      return r && r !== 'lost' ? r.data : null;
    };

    const contactLoop = async () => {
      while (Date.now() < deadline && tally.kills < KILLS && !halted) {
        if (!up) {
          await sleep(50);
          continue;
        }
        const marker = `crash-${randomUUID()}`;
        const n = ++seq;
        const body = {
          ...carApplicationBody({
            today,
            license_plate: `粤C${n.toString(36).toUpperCase().padStart(5, '0')}`,
            applicant_idcard: '441302199001011231',
            vehicle_type_id: model,
            interviewee_depart_id: shell,
          }),
          visitor_content: marker,
        };
        const saved = (await write({ kind: 'draft', who: 'contact', url: '/carApplications/save', body, key: randomUUID(), subject: marker })) as { id: number } | null;
        if (saved && n % 2 === 0) await write({ kind: 'submit', who: 'contact', url: '/carApplications/push', body: { id: saved.id }, key: randomUUID(), subject: saved.id });
      }
    };
    const reviewerLoop = async () => {
      const decided = new Set<number>();
      while (Date.now() < deadline && tally.kills < KILLS && !halted) {
        if (!up) {
          await sleep(50);
          continue;
        }
        let list: Array<{ process_task_id: number }> = [];
        try {
          const r = await fetch(`${origin}/api/carApplications/task/page`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.reviewer}` },
            body: JSON.stringify({ size: 20, pn: 1 }),
          });
          list = ((await r.json()) as { data?: { list?: typeof list } }).data?.list ?? [];
        } catch {
          await sleep(100);
          continue;
        }
        const todo = list.filter((t) => !decided.has(t.process_task_id));
        if (!todo.length) await sleep(200);
        for (const t of todo.slice(0, 5)) {
          decided.add(t.process_task_id);
          await write({
            kind: 'decision',
            who: 'reviewer',
            url: '/carApplications/task/check',
            body: { taskIds: [t.process_task_id], result: 1, remark: '同意' },
            key: randomUUID(),
            subject: t.process_task_id,
          });
        }
      }
    };

    const verify = async () => {
      const drafts = await query("select car_application_id as id, visitor_content as marker, state from car_application where visitor_content like 'crash-%'");
      const byMarker = new Map<string, Array<{ id: number; state: number }>>();
      for (const d of drafts) byMarker.set(d.marker, [...(byMarker.get(d.marker) ?? []), d]);
      const submitted = new Set(acked.filter((w) => w.kind === 'submit').map((w) => w.subject as number));
      const decisions = acked.filter((w) => w.kind === 'decision').map((w) => w.subject as number);
      const taskRows = decisions.length ? await query(`select process_task_id as id, state, result from process_task where process_task_id in (${decisions.join(',')})`) : [];
      const tasks = new Map(taskRows.map((t) => [Number(t.id), t]));
      const appState = new Map(drafts.map((d) => [Number(d.id), Number(d.state)]));
      const missing: string[] = [];
      for (const w of acked) {
        if (w.kind === 'draft' && !byMarker.has(w.subject as string)) missing.push(`draft ${w.subject} (answered id ${(w.data as { id: number }).id})`);
        if (w.kind === 'submit' && !((appState.get(w.subject as number) ?? 0) >= 1)) missing.push(`submit of application ${w.subject} (state ${appState.get(w.subject as number)})`);
        if (w.kind === 'decision' && !(tasks.get(w.subject as number)?.state === 1)) missing.push(`decision on task ${w.subject} (state ${tasks.get(w.subject as number)?.state})`);
      }
      for (const m of missing) if (!tally.missing.includes(m)) tally.missing.push(m);
      for (const [marker, rows] of byMarker) if (rows.length > 1 && !tally.duplicated.includes(marker)) tally.duplicated.push(`${marker} saved ${rows.length} times`);
      void submitted;
    };

    const resendUnanswered = async () => {
      const batch = unanswered.splice(0);
      for (const w of batch) {
        tally.resent++;
        try {
          const r = await send(w);
          if (r === 'lost') {
            unanswered.push(w);
            continue;
          }
          w.data = r.data;
          acked.push(w);
          tally.acknowledged[w.kind]++;
        } catch (e) {
          // The application may have moved on meanwhile (a decision on a task someone else closed): only 5xx and 422 say the key broke.
          const status = (e as { status?: number }).status ?? 0;
          if (status >= 500 || status === 422) tally.resendFailed.push((e as Error).message);
        }
      }
    };

    const replayNewest = async () => {
      for (const kind of ['draft', 'submit', 'decision'] as const) {
        const w = acked.filter((x) => x.kind === kind).at(-1);
        if (!w) continue;
        try {
          const r = await send(w);
          if (r !== 'lost' && JSON.stringify(r.data) !== JSON.stringify(w.data)) tally.replayMismatch.push(`${kind} key ${w.key}: first ${JSON.stringify(w.data)}, replay ${JSON.stringify(r.data)}`);
        } catch (e) {
          tally.replayMismatch.push(`${kind} key ${w.key}: ${(e as Error).message}`);
        }
      }
    };

    const writers = [...Array.from({ length: Math.max(1, WRITERS - 1) }, contactLoop), reviewerLoop()];
    const chaos = (async () => {
      while (tally.kills < KILLS && Date.now() < deadline) {
        await sleep(300 + Math.random() * 2500);
        up = false;
        await kill();
        tally.kills++;
        const t0 = Date.now();
        try {
          await start();
          tally.restarts++;
          startMs.push(Date.now() - t0);
        } catch (e) {
          console.error(`[${dialect}] ${(e as Error).message}`);
          halted = true;
          break;
        }
        await verify();
        await resendUnanswered();
        await replayNewest();
        await verify();
        up = true;
        console.log(
          `[${dialect}] kill ${tally.kills}/${KILLS}: ${acked.length} writes acknowledged, ${tally.missing.length} missing, ${unanswered.length} awaiting an answer; restart took ${startMs.at(-1)} ms`,
        );
      }
      up = false;
    })();
    await Promise.all([...writers, chaos]);
    if (child) {
      await resendUnanswered();
      await verify();
    }
    return { dialect, tally, unanswered: unanswered.length };
  } finally {
    if (child) await kill();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const results = [];
for (const dialect of dialectsFromArgs()) results.push(await crashDialect(dialect));
for (const { dialect, tally } of results) {
  for (const [what, list] of [
    ['missing after restart', tally.missing],
    ['done twice', tally.duplicated],
    ['resend failed', tally.resendFailed],
    ['replay differs', tally.replayMismatch],
  ] as const) {
    for (const x of list.slice(0, 5)) console.log(`- [${dialect}] ${what}: ${x}`);
  }
}
console.log('\n=== summary ===');
console.log(
  table([
    ['dialect', 'kills', 'restarts', 'acked drafts', 'acked submits', 'acked decisions', 'resent unanswered', 'acked missing after restart', 'done twice', 'resend failed', 'replay differs'],
    ...results.map(({ dialect, tally: t }) => [
      dialect,
      t.kills,
      t.restarts,
      t.acknowledged.draft,
      t.acknowledged.submit,
      t.acknowledged.decision,
      t.resent,
      t.missing.length,
      t.duplicated.length,
      t.resendFailed.length,
      t.replayMismatch.length,
    ]),
  ]),
);
const failed = results.some(({ tally: t }) => t.missing.length || t.duplicated.length || t.resendFailed.length || t.replayMismatch.length || t.startFailures || t.restarts < t.kills);
process.exit(failed ? 1 : 0);
