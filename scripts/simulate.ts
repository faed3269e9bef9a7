/**
 * `npm run simulate`: the demo park's gates, played against a running server
 * over HTTP only, through the device API (docs/api.md "Devices"). Signs in
 * as admin through the real sign-in (encrypted, with the SMS code), issues
 * each demo gate a key, reads who may come from the admin's lists (a
 * person's ID number, masked there, read whole through POST /api/pii/reveal
 * with a reason, as a pii:view holder: docs/personal-data.md), then every
 * few seconds: asks /api/device/access for vehicles and persons whose
 * approved visit (or white-list entry) holds now and sends their entry with
 * the gate's answer,
 * their exit later; a few stay (never exit); the black-listed plate, an
 * unknown plate and early visitors are refused; every gate sends a
 * heartbeat a minute; the east gate falls silent after a while (offline five
 * minutes later); half a minute in, a guard lifts the barrier by hand for
 * the black-listed vehicle it just refused, which raises a stranded alarm
 * (黑名单入园) for the security lead at once; now and then a plate image
 * goes up first. Each gate keeps
 * its events in a buffer, sends it in batches and drops it only once the
 * server has answered: after a network error (or a reply lost, which it
 * plays now and then) it replays the buffer, and the server's event ids make
 * that safe.
 *
 * Each gate also holds its signed offline allow-list (docs/offline-gates.md),
 * refreshed by delta every round and reported with its heartbeat. With
 * --offline-after S --offline-for T the gates cannot reach the server from S
 * seconds in for T seconds (both at speed 1): they decide from their lists
 * (domain/offline-gate.ts decideOffline) and queue their crossings
 * (scripts/offline-queue.ts), which go to the server once, when it is back.
 *
 *   npm run simulate -- [--base URL] [--speed N] [--minutes N] [--once] [--data-dir DIR] [--password TEXT] [--offline-after S --offline-for S]
 *
 * The SMS code is read from DATA_DIR/sms-outbox.jsonl when the server runs
 * with SMS_PROVIDER=file, otherwise typed in (the server prints it); the
 * password is --password, DEMO_PASSWORD or DATA_DIR/demo-credentials.txt.
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { CompactEncrypt, compactVerify, importJWK, importSPKI } from 'jose';
import { applyDelta, decideOffline, importSubjectKey, indexAllowlist, subjectHash, type Allowlist, type OfflineList } from '../domain/offline-gate';
import type { Envelope, Page } from '../domain/envelope';
import { MAX_EVENTS_PER_CALL } from '../domain/schemas/device-event';
import { DEFAULT_PARK_TZ, formatInZone } from '../domain/time';
import { rgbPng } from '../server/seed/seed-appointments';
import { DEMO_GATES, madeUpPerson, madeUpPlate, pick, randomSource, vehicleLook, type Random } from '../server/seed/seed-gate-history';
import { latestSmsCode } from './demo-login';
import { ReplayQueue, type QueuedEvent } from './offline-queue';
import { maskIdNumber } from '../domain/personal-data';

export interface SimulationOptions {
  /** The server, e.g. http://127.0.0.1:8080. */
  base: string;
  /** Runs the clock this many times faster (rounds, stays, heartbeats, the east gate's silence). */
  speed?: number;
  /** Stops after this many real minutes; unset, runs until `signal` (Ctrl-C). */
  minutes?: number;
  /** One round and its exits, then stop: what the test runs. */
  once?: boolean;
  /** The server's data directory: SMS outbox and demo credentials. */
  dataDir?: string;
  password?: string;
  log?: (line: string) => void;
  signal?: AbortSignal;
  /** The HTTP client (a test hands in one that loses a reply). */
  fetch?: typeof fetch;
  /** Seed of the choices, for a repeatable run. */
  seed?: number;
  /** Seconds (at speed 1) after which the gates lose the server, deciding from their allow-lists meanwhile. */
  offlineAfter?: number;
  /** Seconds (at speed 1) the gates stay cut off. */
  offlineFor?: number;
}

export interface SimulationReport {
  rounds: number;
  entries: number;
  refused: number;
  exits: number;
  /** Entered and left inside on purpose (overstays). */
  overstays: number;
  heartbeats: number;
  /** Refused, then let in by hand: each raises a black-listed stranded alarm. */
  manualOpenings: number;
  uploads: number;
  sent: number;
  accepted: number;
  duplicates: number;
  rejected: number;
  /** Sends that failed on the network (or whose reply was lost) and were replayed. */
  replays: number;
  /** Crossings decided from the allow-list while the server was out of reach, and how many of them opened. */
  offlineDecisions: number;
  offlineAllowed: number;
  /** Events queued while cut off; all of them reach the server once it is back. */
  queuedOffline: number;
  /** Events the gates made (each has its own id: the server should accept each once). */
  events: number;
}

const ROUND_MS = 5_000;
const HEARTBEAT_MS = 60_000;
/** The east gate falls silent this long after the start (then the server marks it offline after 5 minutes). */
const EAST_SILENT_AFTER_MS = 3 * 60_000;
/** Between entry and exit, at speed 1. */
const STAY_MS: readonly [number, number] = [20_000, 150_000];
const OVERSTAY_SHARE = 0.12;
/** When the guard lets the refused black-listed vehicle in by hand (at speed 1). */
const MANUAL_OPEN_AFTER_MS = 30_000;
const LOST_REPLY_SHARE = 0.03;
/** What the operation log keeps for each ID number the simulator reveals (POST /api/pii/reveal). */
const REVEAL_REASON = '道闸模拟器：模拟闸机读取证件';

type Json = Record<string, unknown>;
interface Gate {
  id: number;
  number: string;
  name: string;
  persons: boolean;
  auth: string;
  seq: number;
  buffer: ReplayQueue<QueuedEvent>;
  silent: boolean;
  heartbeatAt: number;
  /** The key of its allow-list's subject hashes, and the list it holds (null until fetched). */
  subjectKey: object;
  list: OfflineList | null;
}
type Why = 'visit' | 'white' | 'early' | 'black' | 'unknown';
interface Subject {
  persons: boolean;
  /** Plate or ID number. */
  key: string;
  label: string;
  fields: Json;
  why: Why;
}
interface Stay {
  subject: Subject;
  gate: Gate;
  /** null: stays on (an overstay). */
  exitAt: number | null;
}
interface Decision {
  allow: boolean;
  reason: string;
}

class NetworkError extends Error {}

export async function runSimulation(options: SimulationOptions): Promise<SimulationReport> {
  const base = options.base.replace(/\/+$/, '');
  const speed = options.speed && options.speed > 0 ? options.speed : 1;
  const dataDir = path.resolve(options.dataDir ?? 'data');
  const log = options.log ?? ((line: string) => console.log(line));
  const http = options.fetch ?? fetch;
  const r = randomSource(options.seed ?? Date.now());
  const tz = process.env.PARK_TZ ?? DEFAULT_PARK_TZ;
  const parkTime = () => formatInZone(Date.now(), tz);
  const say = (zh: string, en: string) => log(`${parkTime().slice(11)}  ${zh}  | ${en}`);
  const report: SimulationReport = {
    rounds: 0,
    entries: 0,
    refused: 0,
    exits: 0,
    overstays: 0,
    heartbeats: 0,
    manualOpenings: 0,
    uploads: 0,
    sent: 0,
    accepted: 0,
    duplicates: 0,
    rejected: 0,
    replays: 0,
    offlineDecisions: 0,
    offlineAllowed: 0,
    queuedOffline: 0,
    events: 0,
  };
  const cut =
    options.offlineAfter !== undefined && options.offlineFor !== undefined ? { from: (options.offlineAfter * 1000) / speed, to: ((options.offlineAfter + options.offlineFor) * 1000) / speed } : null;
  let offline = false;

  async function call<T>(url: string, init: { auth?: string; json?: unknown; form?: FormData } = {}): Promise<{ status: number; body: Envelope<T> }> {
    // The simulated network cut: no device call reaches the server.
    if (offline && init.auth?.startsWith('Device ')) throw new NetworkError(`${url}: 网络中断（模拟）`);
    let res: Response;
    try {
      res = await http(`${base}/api${url}`, {
        method: init.json === undefined && !init.form ? 'GET' : 'POST',
        headers: { ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}), ...(init.auth ? { authorization: init.auth } : {}) },
        body: init.form ?? (init.json === undefined ? undefined : JSON.stringify(init.json)),
      });
    } catch (err) {
      throw new NetworkError(`${url}: ${(err as Error).message}`);
    }
    const text = await res.text().catch(() => '');
    let body: Envelope<T>;
    try {
      body = JSON.parse(text) as Envelope<T>;
    } catch {
      body = { success: false, code: 0 as never, msg: text.slice(0, 200) || `HTTP ${res.status}`, message: '', data: null as T };
    }
    return { status: res.status, body };
  }
  async function must<T>(url: string, init: { auth?: string; json?: unknown }): Promise<T> {
    const res = await call<T>(url, init);
    if (!res.body.success) throw new Error(`${url}: ${res.status} ${res.body.msg}`);
    return res.body.data;
  }

  // ---------------------------------------------------------------- sign in as admin, issue the gates their keys

  try {
    await call('/system/version');
  } catch {
    throw new Error(`无法连接 ${base}（请先 npm start）| cannot reach ${base}: start the server first`);
  }
  const token = await signIn();
  const admin = `Bearer ${token}`;
  say('已以 admin 登录', 'signed in as admin');

  const listed = await must<Page<Json>>('/equipment/gate/list', { auth: admin, json: { size: 100, pn: 1 } });
  const gates: Gate[] = [];
  for (const number of Object.values(DEMO_GATES)) {
    const row = listed.list.find((g) => g.number === number);
    if (!row) {
      say(`找不到道闸 ${number}，跳过`, `gate ${number} not found, skipped`);
      continue;
    }
    const { key, hmac_key } = await must<{ key: string; hmac_key: string }>('/equipment/gate/issueKey', { auth: admin, json: { id: row.id } });
    gates.push({
      id: row.id as number,
      number,
      name: String(row.name),
      persons: row.type === 2 || number === DEMO_GATES.westPersons,
      auth: `Device ${number}:${key}`,
      seq: 0,
      buffer: new ReplayQueue(),
      silent: false,
      heartbeatAt: 0,
      subjectKey: await importSubjectKey(hmac_key),
      list: null,
    });
    say(`已签发密钥：${row.name}（${number}）`, `key issued to ${number}`);
  }
  if (!gates.length) throw new Error('没有可用的演示道闸 | none of the demo gates exists');
  const runId = Date.now().toString(36).toUpperCase();
  const listKey = await importJWK((await must<{ jwk: Record<string, string> }>('/device/allowlistKey', { auth: gates[0]!.auth })).jwk, 'ES256');

  /** Fetches a gate's allow-list, by delta from the version it holds; keeps what it holds when the server is out of reach. */
  async function syncList(gate: Gate): Promise<void> {
    let res: Response;
    try {
      if (offline) throw new NetworkError('offline');
      res = await http(`${base}/api/device/allowlist${gate.list ? `?since=${gate.list.v}` : ''}`, { headers: { authorization: gate.auth } });
    } catch {
      return;
    }
    if (!res.ok) return;
    const { payload } = await compactVerify(await res.text(), listKey, { algorithms: ['ES256'] });
    const got = JSON.parse(gunzipSync(payload).toString('utf8')) as Allowlist;
    gate.list = (gate.list && applyDelta(gate.list, got)) ?? (got.full ? indexAllowlist(got) : null);
  }
  for (const g of gates) await syncList(g);

  // ---------------------------------------------------------------- who comes: the admin's lists

  const subjects = await loadSubjects();
  const admitted = (persons: boolean) => subjects.filter((s) => s.persons === persons && (s.why === 'visit' || s.why === 'white'));
  say(
    `今日可入园：车辆 ${admitted(false).length}，人员 ${admitted(true).length}（有效预约与白名单）；黑名单 ${subjects.filter((s) => s.why === 'black').length}，尚未开始的预约 ${subjects.filter((s) => s.why === 'early').length}`,
    `admissible now: ${admitted(false).length} vehicles, ${admitted(true).length} persons (approved visits valid now and white-list entries); ${subjects.filter((s) => s.why === 'black').length} black-listed, ${subjects.filter((s) => s.why === 'early').length} visits not begun`,
  );
  if (!admitted(false).length && !admitted(true).length) say('今天没有有效的预约或白名单：只会有被拒绝的通行', 'nobody may enter today: only refusals will be seen');

  const inside = new Map<string, Stay>();
  const notBefore = new Map<string, number>();
  const started = Date.now();
  const east = gates.find((g) => g.number === DEMO_GATES.east);

  // ---------------------------------------------------------------- the gate's side

  function queue(gate: Gate, event: Json) {
    gate.seq += 1;
    gate.buffer.push({ event_id: `${gate.number}-${runId}-${String(gate.seq).padStart(6, '0')}`, capture_time: parkTime(), ...event });
    report.events += 1;
    if (offline) report.queuedOffline += 1;
  }

  /** Sends a gate's buffer in batches (scripts/offline-queue.ts); keeps what was not answered for the next round. */
  async function flush(gate: Gate): Promise<void> {
    await gate.buffer.drain(async (batch) => {
      let res;
      try {
        res = await call<{ accepted: number; duplicates: number; rejected: Array<{ event_id: string; msg: string }> }>('/device/events', { auth: gate.auth, json: { events: batch } });
      } catch (err) {
        if (!(err instanceof NetworkError)) throw err;
        report.replays += 1;
        if (!offline) say(`${gate.name} 网络异常，${gate.buffer.size} 条事件留在缓存，稍后重发`, `${gate.number} network error: keeping ${gate.buffer.size} events to replay`);
        return 'retry';
      }
      if (res.status >= 500) {
        report.replays += 1;
        say(`${gate.name} 服务器错误（${res.status}），稍后重发`, `${gate.number} server error ${res.status}: will replay`);
        return 'retry';
      }
      if (!res.body.success) {
        // A key replaced or a malformed batch: replaying it would be refused the same way.
        say(`${gate.name} 上报被拒绝：${res.body.msg}，丢弃 ${batch.length} 条`, `${gate.number} batch refused (${res.status}): dropped ${batch.length} events`);
        return 'answered';
      }
      const d = res.body.data;
      report.sent += batch.length;
      report.accepted += d.accepted;
      report.duplicates += d.duplicates;
      report.rejected += d.rejected.length;
      say(
        `${gate.name} 上报 ${batch.length} 条：接收 ${d.accepted}，重复 ${d.duplicates}，拒绝 ${d.rejected.length}`,
        `${gate.number} sent ${batch.length}: ${d.accepted} accepted, ${d.duplicates} duplicates, ${d.rejected.length} rejected`,
      );
      for (const x of d.rejected) say(`  事件 ${x.event_id}：${x.msg}`, `  rejected ${x.event_id}: ${x.msg}`);
      if (!options.once && r() < LOST_REPLY_SHARE) {
        report.replays += 1;
        say(`${gate.name} （模拟）应答丢失，下一轮重发同一批`, `${gate.number} reply lost (simulated): replaying the same batch next round`);
        return 'retry';
      }
      return 'answered';
    }, MAX_EVENTS_PER_CALL);
  }

  async function flushAll(retries: number): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      // Cut off, the gates keep their queues for when the server is back.
      if (offline) return;
      for (const g of gates) if (!g.silent) await flush(g);
      if (attempt >= retries || gates.every((g) => g.silent || !g.buffer.size)) return;
      await sleep(1_000, options.signal);
    }
  }

  async function decide(gate: Gate, s: Subject, direction: 1 | 2): Promise<Decision | null> {
    try {
      const res = await call<Decision>('/device/access', { auth: gate.auth, json: { direction, ...(s.persons ? { idcard: s.key } : { license_plate: s.key }) } });
      if (res.body.success) return res.body.data;
      say(`${gate.name} 放行判定失败：${res.body.msg}`, `${gate.number} access check failed (${res.status})`);
    } catch (err) {
      if (!(err instanceof NetworkError)) throw err;
      if (gate.list) {
        // Out of reach: the gate decides from its signed list, as the server would (fails closed once the list is too old).
        const d = decideOffline(
          gate.list,
          { hash: await subjectHash(gate.subjectKey, s.persons ? 'person' : 'car', s.key), kind: s.persons ? 'person' : 'car', direction, device_id: gate.id, label: s.label },
          parkTime(),
        );
        report.offlineDecisions += 1;
        if (d.allow) report.offlineAllowed += 1;
        say(`${gate.name} 离线判定 ${s.label}：${d.reason}（名单版本 ${gate.list.v}）`, `${gate.number} offline decision for ${s.label}: ${d.allow ? 'open' : 'refused'} (list v${gate.list.v})`);
        return d;
      }
      say(`${gate.name} 网络异常，无法判定 ${s.label}，道闸保持关闭`, `${gate.number} network error: cannot check ${s.label}, the barrier stays down`);
    }
    return null;
  }

  async function plateImage(gate: Gate, s: Subject): Promise<string> {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(platePng(s.key, Number(s.fields.license_plate_color ?? 2)))], { type: 'image/png' }), 'plate.png');
    try {
      const res = await call<{ name: string }>('/device/files', { auth: gate.auth, form });
      if (res.body.success) {
        report.uploads += 1;
        say(`${gate.name} 上传车牌图片 ${s.key}`, `${gate.number} uploaded a plate image of ${s.key}`);
        return res.body.data.name;
      }
    } catch (err) {
      if (!(err instanceof NetworkError)) throw err;
    }
    return '';
  }

  /** `manual`: refused, then let in by a guard lifting the barrier by hand (the gate reports the opening). */
  async function arrive(gate: Gate, s: Subject, opts: { image?: boolean; overstay?: boolean; manual?: boolean } = {}): Promise<void> {
    const d = await decide(gate, s, 1);
    if (!d) return;
    const image = !s.persons && opts.image ? await plateImage(gate, s) : '';
    const opened = d.allow || !!opts.manual;
    queue(gate, { type: s.persons ? 'person' : 'vehicle', ...s.fields, direction: 1, open_result: opened ? 1 : 0, ...(image ? (s.persons ? { snapshot: image } : { plate_image: image }) : {}) });
    if (!d.allow && opts.manual) {
      report.manualOpenings += 1;
      inside.set(s.key, { subject: s, gate, exitAt: Date.now() + between(r, ...STAY_MS) / speed });
      say(`${gate.name} 入场 ${s.label} 判定拒绝（${d.reason}），值班人员手动抬杆放行：将触发滞留告警`, `${gate.number} in ${s.label}: refused, then let in by hand (a stranded alarm follows)`);
      return;
    }
    if (!d.allow) {
      report.refused += 1;
      say(`${gate.name} 入场 ${s.label} 拒绝：${d.reason}`, `${gate.number} in ${s.label}: refused (${s.why})`);
      return;
    }
    report.entries += 1;
    const stay = opts.overstay ? null : Date.now() + between(r, ...STAY_MS) / speed;
    if (stay === null) report.overstays += 1;
    inside.set(s.key, { subject: s, gate, exitAt: stay });
    say(`${gate.name} 入场 ${s.label} 放行：${d.reason}${stay === null ? '（将滞留不出）' : ''}`, `${gate.number} in ${s.label}: opened${stay === null ? ' (will overstay)' : ''}`);
  }

  async function leave(stay: Stay): Promise<void> {
    // Out by the gate it came in by, unless that one has fallen silent.
    const gate = stay.gate.silent ? (gates.find((g) => !g.silent && g.persons === stay.subject.persons) ?? stay.gate) : stay.gate;
    const d = await decide(gate, stay.subject, 2);
    if (!d) return;
    queue(gate, { type: stay.subject.persons ? 'person' : 'vehicle', ...stay.subject.fields, direction: 2, open_result: d.allow ? 1 : 0 });
    inside.delete(stay.subject.key);
    notBefore.set(stay.subject.key, Date.now() + 60_000 / speed);
    report.exits += 1;
    say(`${gate.name} 出场 ${stay.subject.label}：${d.reason}`, `${gate.number} out ${stay.subject.label}`);
  }

  function heartbeats(force: boolean) {
    const due = gates.filter((g) => !g.silent && (force || Date.now() - g.heartbeatAt >= HEARTBEAT_MS / speed));
    for (const g of due) {
      // The list's version and age in seconds (docs/offline-gates.md): the equipment screens show them.
      const list = g.list
        ? { list_version: g.list.v, list_age: Math.max(0, Math.round((Date.parse(`${parkTime().replace(' ', 'T')}Z`) - Date.parse(`${g.list.iat.replace(' ', 'T')}Z`)) / 1000)) }
        : {};
      queue(g, { type: 'heartbeat', state: 1, ...list });
      g.heartbeatAt = Date.now();
    }
    report.heartbeats += due.length;
    if (due.length) say(`心跳：${due.map((g) => g.number).join('、')}`, `heartbeat from ${due.length} gate(s)`);
  }

  const free = (persons: boolean, why: Why[]) => subjects.filter((s) => s.persons === persons && why.includes(s.why) && !inside.has(s.key) && (notBefore.get(s.key) ?? 0) <= Date.now());
  const liveGate = (persons: boolean) => {
    const live = gates.filter((g) => !g.silent && g.persons === persons);
    return live.length ? pick(r, live) : null;
  };
  const stranger = (persons: boolean): Subject => {
    if (persons) {
      const p = madeUpPerson(r);
      return { persons, key: p.idcard, label: personLabel(p.name, p.idcard), fields: personFields(p.name, p.idcard), why: 'unknown' };
    }
    const plate = madeUpPlate(r);
    const { stay: _s, ...look } = vehicleLook(r);
    return { persons, key: plate, label: plate, fields: { license_plate: plate, ...look }, why: 'unknown' };
  };

  // ---------------------------------------------------------------- the rounds

  if (options.once) {
    report.rounds = 1;
    heartbeats(true);
    let first = true;
    for (const persons of [false, true]) {
      const g = liveGate(persons);
      if (!g) continue;
      const come = free(persons, ['visit', 'white']).slice(0, 3);
      for (const [i, s] of come.entries()) {
        await arrive(g, s, { image: first && !persons, overstay: come.length > 1 && i === come.length - 1 });
        first = false;
      }
      for (const s of subjects.filter((x) => x.persons === persons && x.why === 'black')) await arrive(g, s);
      const early = subjects.find((s) => s.persons === persons && s.why === 'early');
      if (early) await arrive(g, early);
      await arrive(g, stranger(persons));
    }
    for (const stay of [...inside.values()]) if (stay.exitAt !== null) await leave(stay);
    await flushAll(3);
  } else {
    const until = options.minutes ? started + options.minutes * 60_000 : Infinity;
    say(
      `开始模拟：每 ${(ROUND_MS / speed / 1000).toFixed(1)} 秒一轮${options.minutes ? `，共 ${options.minutes} 分钟` : '，Ctrl-C 结束'}`,
      `simulating: a round every ${(ROUND_MS / speed / 1000).toFixed(1)} s${options.minutes ? ` for ${options.minutes} min` : ', Ctrl-C to stop'}`,
    );
    while (!options.signal?.aborted && Date.now() < until) {
      report.rounds += 1;
      if (cut) {
        const elapsed = Date.now() - started;
        const now = elapsed >= cut.from && elapsed < cut.to;
        if (now !== offline) {
          offline = now;
          if (offline) say(`所有道闸与服务器断开（模拟），按离线名单判定，通行记录缓存待发`, 'all gates lose the server (simulated): deciding from their allow-lists, queueing crossings');
          else say(`道闸恢复连接，补发离线期间缓存的 ${gates.reduce((n, g) => n + g.buffer.size, 0)} 条事件`, 'gates reach the server again: sending what they queued');
        }
      }
      if (!offline) for (const g of gates) if (!g.silent) await syncList(g);
      if (east && !east.silent && Date.now() - started >= EAST_SILENT_AFTER_MS / speed) {
        east.silent = true;
        say(`${east.name}（${east.number}）停止发送（模拟断网），约 5 分钟后显示离线`, `${east.number} falls silent (network cut): offline in about 5 minutes`);
      }
      heartbeats(false);
      for (const stay of [...inside.values()]) if (stay.exitAt !== null && stay.exitAt <= Date.now()) await leave(stay);
      if (!report.manualOpenings && Date.now() - started >= MANUAL_OPEN_AFTER_MS / speed) {
        const black = free(false, ['black'])[0];
        const g = liveGate(false);
        if (black && g) await arrive(g, black, { manual: true });
      }
      for (const persons of [false, true]) {
        const g = liveGate(persons);
        if (!g) continue;
        if (r() < (persons ? 0.4 : 0.5)) {
          const pool = free(persons, ['visit', 'white']);
          // An overstay only while someone else can still come and go.
          if (pool.length) await arrive(g, pick(r, pool), { image: !persons && r() < 0.25, overstay: pool.length > 1 && r() < OVERSTAY_SHARE });
        }
        if (r() < 0.04) {
          const u = r();
          const odd = u < 0.4 ? free(persons, ['black']) : u < 0.6 ? free(persons, ['early']) : [];
          await arrive(g, odd.length ? pick(r, odd) : stranger(persons));
        }
      }
      await flushAll(0);
      await sleep(Math.min(ROUND_MS / speed, Math.max(0, until - Date.now())), options.signal);
    }
    await flushAll(3);
  }

  const stuck = gates.reduce((n, g) => n + (g.silent ? 0 : g.buffer.size), 0);
  say(
    `结束：${report.rounds} 轮，入场放行 ${report.entries}（有意滞留 ${report.overstays}，仍在园内 ${inside.size}），拒绝 ${report.refused}，手动放行 ${report.manualOpenings}，出场 ${report.exits}，心跳 ${report.heartbeats}，图片 ${report.uploads}；事件发送 ${report.sent}，接收 ${report.accepted}，重复 ${report.duplicates}，拒绝 ${report.rejected}，重发 ${report.replays}${stuck ? `，未送达 ${stuck}` : ''}`,
    `done: ${report.rounds} rounds, ${report.entries} in (${report.overstays} overstaying on purpose, ${inside.size} still inside), ${report.refused} refused, ${report.manualOpenings} let in by hand, ${report.exits} out, ${report.heartbeats} heartbeats, ${report.uploads} images; ${report.sent} events sent, ${report.accepted} accepted, ${report.duplicates} duplicates, ${report.rejected} rejected, ${report.replays} replays${stuck ? `, ${stuck} undelivered` : ''}`,
  );
  if (cut)
    say(
      `离线期间：按名单判定 ${report.offlineDecisions} 次（放行 ${report.offlineAllowed}），缓存事件 ${report.queuedOffline} 条`,
      `while cut off: ${report.offlineDecisions} decisions from the allow-lists (${report.offlineAllowed} opened), ${report.queuedOffline} events queued`,
    );
  return report;

  // ---------------------------------------------------------------- helpers that need the connection

  async function signIn(): Promise<string> {
    const password = options.password ?? process.env.DEMO_PASSWORD ?? demoPassword(dataDir) ?? (await ask('admin 的密码 | admin password: '));
    const publicKey = (await must<{ publicKey: string }>('/user/publicKey', {})).publicKey;
    const key = await importSPKI(publicKey, 'RSA-OAEP-256');
    const seal = (payload: unknown) => new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM' }).encrypt(key);
    const before = latestSmsCode(dataDir, 'admin');
    for (let waited = 0; ; waited += 5) {
      const res = await call('/user/captcha', { json: { content: await seal({ account: 'admin' }) } });
      if (res.body.success) break;
      // The same account asked for a code a moment ago (a restarted simulator): wait out the cooldown.
      if (!res.body.msg.includes('秒后') || waited >= 90) throw new Error(`获取验证码失败 | captcha: ${res.body.msg}`);
      if (waited === 0) say(`验证码冷却中，等待后重试：${res.body.msg}`, 'captcha cooldown: waiting to ask again');
      await sleep(5_000, options.signal);
    }
    let captcha: string | undefined;
    for (let i = 0; i < 30 && (!(captcha = latestSmsCode(dataDir, 'admin')) || captcha === before); i++) await sleep(100);
    if (!captcha || captcha === before) captcha = await ask('请输入服务器终端打印的 6 位验证码 | the 6-digit code the server printed: ');
    return (await must<{ token: string }>('/user/v2login', { json: { content: await seal({ account: 'admin', password, captcha }) } })).token;
  }

  async function loadSubjects(): Promise<Subject[]> {
    const now = parkTime();
    const today = now.slice(0, 10);
    const rows = async (url: string, filter: Json) => (await must<Page<Json>>(url, { auth: admin, json: { size: 100, pn: 1, ...filter } })).list;
    const holds = (b: unknown, e: unknown) => (!b || String(b) <= now) && (!e || String(e) >= now);
    const car = (row: Json, why: Why, model?: unknown, color?: unknown): Subject => {
      const plate = String(row.license_plate);
      const { stay: _s, ...look } = vehicleLook(r, typeof model === 'string' ? model : undefined, typeof color === 'number' ? color : null);
      return { persons: false, key: plate, label: plate, fields: { license_plate: plate, ...look, vehicle_compare_result: 1 }, why };
    };
    const person = (name: string, idcard: string, why: Why): Subject => ({ persons: true, key: idcard, label: personLabel(name, idcard), fields: personFields(name, idcard), why });
    // Lists answer ID numbers masked (docs/personal-data.md); the gate reads the whole number off the card, which the simulator asks for as a pii:view holder, logged with its reason.
    const revealed = async (record: 'person_application' | 'person_black_white_list', id: unknown, field: string): Promise<string | null> => {
      const res = await call<{ value: string }>('/pii/reveal', { auth: admin, json: { record, id, field, reason: REVEAL_REASON } });
      if (res.body.success) return res.body.data.value;
      say(`无法查看证件号码（${res.body.msg}），跳过该人员`, `cannot reveal an ID number (${res.status}): person skipped`);
      return null;
    };

    const out: Subject[] = [];
    for (const c of await rows('/carApplications/all/history/list', { state: 2 })) {
      const why = holds(c.visitor_begin_time, c.visitor_end_time) ? 'visit' : String(c.visitor_begin_time) > now ? 'early' : null;
      if (why) out.push(car(c, why, c.vehicle_type_name, c.license_plate_color));
    }
    for (const p of await rows('/personApplications/all/history/list', { state: 2 })) {
      const why = holds(p.visit_begin_time, p.visit_end_time) ? 'visit' : String(p.visit_begin_time) > now ? 'early' : null;
      const idcard = why && (await revealed('person_application', p.person_application_id, 'visitor_idcard'));
      if (why && idcard) out.push(person(String(p.visitor_name), idcard, why));
    }
    for (const e of await rows('/carBlackWhiteList/list', {})) {
      if (e.status === 2 && holds(e.start_time, e.end_time)) out.push(car(e, e.type === 1 ? 'black' : 'white', e.vehicle_type_name));
    }
    for (const e of await rows('/personBlackWhiteList/list', {})) {
      if (e.status !== 2 || !holds(e.start_time, e.end_time)) continue;
      const idcard = await revealed('person_black_white_list', e.id, 'idcard');
      if (idcard) out.push(person(String(e.name), idcard, e.type === 1 ? 'black' : 'white'));
    }
    // The first approved visit of a subject wins; one allowed by a visit is not also an early visitor.
    const seen = new Set<string>();
    const order: Why[] = ['black', 'white', 'visit', 'early'];
    const unique = [...out].sort((a, b) => order.indexOf(a.why) - order.indexOf(b.why)).filter((s) => !seen.has(s.key) && seen.add(s.key));
    say(`读取 ${today} 的预约与黑白名单`, `read approved visits and black/white lists for ${today}`);
    return unique;
  }
}

const between = (r: Random, lo: number, hi: number) => lo + r() * (hi - lo);
/** Names and masked ID numbers on the terminal, as the scan screen shows them. */
const personLabel = (name: string, idcard: string) => `${name}（${maskIdNumber(idcard)}）`;
const personFields = (name: string, idcard: string): Json => ({ idcard, person_name: name, card_number: `IC${idcard.slice(-8)}`, card_status: 1, image_type: 1 });

/** A plate-sized picture in the plate's colour with a white rim and marks that differ by plate (a camera's crop stands in). */
function platePng(plate: string, color: number): Buffer {
  const w = 140,
    h = 44;
  const background: readonly [number, number, number] = color === 1 ? [0xf2, 0xc1, 0x1e] : color === 3 || color === 4 ? [0x3c, 0xb3, 0x71] : [0x1f, 0x4e, 0xc8];
  const ink: readonly [number, number, number] = color === 1 ? [0x10, 0x10, 0x10] : [0xf5, 0xf5, 0xf5];
  const codes = [...plate].map((c) => c.codePointAt(0)!);
  return rgbPng(w, h, (x, y) => {
    if (x < 3 || y < 3 || x >= w - 3 || y >= h - 3) return [0xf5, 0xf5, 0xf5];
    const cell = Math.floor((x - 6) / 18);
    const code = codes[cell];
    if (code === undefined || y < 9 || y > 34 || (x - 6) % 18 > 13) return background;
    return (code * (((x - 6) % 18) + 3) * (y + 7)) & 64 ? ink : background;
  });
}

function demoPassword(dataDir: string): string | undefined {
  const file = path.join(dataDir, 'demo-credentials.txt');
  if (!fs.existsSync(file)) return undefined;
  return /密码[^:\n]*:\s*(\S+)/.exec(fs.readFileSync(file, 'utf8'))?.[1];
}

async function ask(question: string): Promise<string> {
  if (!process.stdin.isTTY)
    throw new Error(
      `${question.trim()} — 无法交互输入：请用 --password / DEMO_PASSWORD，并以 SMS_PROVIDER=file 启动服务器 | not a terminal: pass --password and run the server with SMS_PROVIDER=file`,
    );
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted || ms <= 0) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

async function main() {
  const { values } = parseArgs({
    options: {
      base: { type: 'string', default: `http://127.0.0.1:${process.env.PORT ?? 8080}` },
      speed: { type: 'string', default: '1' },
      minutes: { type: 'string' },
      once: { type: 'boolean', default: false },
      'data-dir': { type: 'string', default: process.env.DATA_DIR ?? 'data' },
      password: { type: 'string' },
      'offline-after': { type: 'string' },
      'offline-for': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log('npm run simulate -- [--base http://127.0.0.1:8080] [--speed 1] [--minutes N] [--once] [--data-dir ./data] [--password TEXT] [--offline-after S --offline-for S]');
    return;
  }
  const speed = Number(values.speed);
  const minutes = values.minutes === undefined ? undefined : Number(values.minutes);
  if (!(speed > 0)) throw new Error(`--speed must be a positive number, got ${values.speed}`);
  if (minutes !== undefined && !(minutes > 0)) throw new Error(`--minutes must be a positive number, got ${values.minutes}`);
  const seconds = (flag: 'offline-after' | 'offline-for') => {
    const v = values[flag];
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!(n >= 0)) throw new Error(`--${flag} must be a number of seconds ≥ 0, got ${v}`);
    return n;
  };
  const offlineAfter = seconds('offline-after');
  const offlineFor = seconds('offline-for');
  if ((offlineAfter === undefined) !== (offlineFor === undefined)) throw new Error('--offline-after and --offline-for go together');
  const stop = new AbortController();
  process.on('SIGINT', () => {
    if (stop.signal.aborted) process.exit(130);
    console.log('\n正在结束，发送缓存中的事件…（再按一次 Ctrl-C 立即退出） | stopping: sending what is buffered (Ctrl-C again to quit now)');
    stop.abort();
  });
  await runSimulation({ base: values.base, speed, minutes, once: values.once, dataDir: values['data-dir'], password: values.password, signal: stop.signal, offlineAfter, offlineFor });
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
