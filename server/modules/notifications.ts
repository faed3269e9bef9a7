import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { sql, type Kysely, type Selectable } from 'kysely';
import { StreamEvent } from '../../domain/notifications';
import { INT_MAX } from '../../domain/schemas/common';
import { notificationApi, type NotificationItem } from '../../domain/schemas/notifications';
import { ok } from '../core/errors';
import { onNotified, signalNotified } from '../core/notify';
import { onTableChanged, pageOf } from '../core/paging';
import { route } from '../core/route';
import type { DB, NotificationTable } from '../db/schema';
import { importProgressOf, TASK_TABLE } from './person-import/job';

/**
 * The in-app notification centre (DESIGN.md §5): each person's rows, the
 * unread count, marking read, and a live text/event-stream while the app is
 * open.
 *
 * The stream is read by the page with fetch() and the Bearer header, not by
 * EventSource: EventSource cannot send Authorization, and a token in the
 * query string would land in proxy and access logs. The guard of every other
 * route therefore applies unchanged.
 */

const columns = ['notification_id', 'kind', 'title', 'body', 'url', 'tag', 'create_time', 'read_at'] as const;
const toItem = (r: Pick<Selectable<NotificationTable>, (typeof columns)[number]>): NotificationItem => ({ ...r, kind: r.kind as NotificationItem['kind'] });

export async function unreadCount(db: Kysely<DB>, userId: number): Promise<number> {
  const r = await db
    .selectFrom('notification')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('read_at', 'is', null)
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

/** How far back a stream looks for rows it has not sent: longer than any business transaction, plus clock skew between servers. */
const RECENT_MS = 2 * 60_000;
/** Rows committed by another server show within this. */
const POLL_MS = 3_000;
/** A comment line keeps proxies from closing an idle stream; the session is checked at the same pace. */
const PING_MS = 20_000;
const MAX_STREAMS_PER_USER = 8;

/** Live figures: events this close together are told once. */
const FIGURES_DEBOUNCE_MS = 300;
/**
 * The writes the board's figures count, as this process's commits name them
 * (core/paging.ts tableChanged, relayed between the processes of a cluster):
 * decisions and submissions, applications, stays, crossings and device
 * alarms (device_event:<type>), stranded alarms and their handling.
 */
const FIGURE_SOURCES = ['process_task', 'car_application', 'person_application', 'presence', 'device_event:', 'stranded_alarm', 'muster'];

/**
 * What another server's writes to those sources change, cheaply: the newest
 * row of each appended table (primary keys) and today's settled submissions
 * (the rollup, one day). Read at each poll while streams are open.
 */
async function figuresFingerprint(db: Kysely<DB>, today: string): Promise<string> {
  const r = await sql<Record<string, unknown>>`select
      (select max(id) from gate_record_car) as c, (select max(id) from gate_record_person) as p, (select max(id) from device_alarm) as d,
      (select max(id) from stranded_alarm) as s, (select max(process_task_id) from process_task) as t, (select max(id) from muster_event) as m,
      (select sum(passed + failed) from stat_outcome_day where day = ${today}) as o`.execute(db);
  return JSON.stringify(r.rows[0] ?? {});
}

interface Stream {
  userId: number;
  sessionId: number;
  raw: ServerResponse;
  /** Ids already sent (or present when the stream opened), with their created_at for pruning. */
  sent: Map<number, number>;
  /** The unread count this stream last told its page; null before the first. */
  unread: number | null;
  /** The person batch imports' counters this stream last told its page, by task. */
  imports: Map<number, string>;
  ping: NodeJS.Timeout;
}

function write(s: Stream, event: string, data: unknown, id?: number) {
  if (s.raw.writableEnded || s.raw.destroyed) return;
  const count = event === StreamEvent.UNREAD ? (data as { count: number }).count : (data as { unread?: number } | null)?.unread;
  if (typeof count === 'number') s.unread = count;
  s.raw.write(`${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/**
 * The streams of this process. A commit here signals at once; every few
 * seconds (while any stream is open) one query for the open streams' users
 * finds rows committed by other servers, and one more their unread counts,
 * so that a read mark made through another server (the same person's
 * desktop, behind the other server) reaches this server's streams too. Each
 * stream remembers the ids it sent rather than keeping a cursor, because on
 * PostgreSQL a lower id can commit after a higher one, and the count it last
 * sent, so an unchanged count is not sent again.
 */
class StreamHub {
  private streams = new Map<number, Set<Stream>>();
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  private again = false;
  private figuresTimer: NodeJS.Timeout | null = null;
  /** What the figures' sources looked like at the last poll: another server's writes show as a change. */
  private fingerprint: string | null = null;

  constructor(
    private db: Kysely<DB>,
    private now: () => number,
    private today: () => string,
    private sessionLive: (s: Stream) => Promise<boolean>,
    private log: FastifyInstance['log'],
  ) {}

  get size() {
    let n = 0;
    for (const set of this.streams.values()) n += set.size;
    return n;
  }

  async open(s: Stream, lastEventId: number | null) {
    // The stream joins the polled set only once it knows what it has: a poll running meanwhile would otherwise send it,
    // as news, a row of the last minutes that the centre already shows (the CI run of 2026-11-28 on PostgreSQL).
    const since = this.now() - RECENT_MS;
    const recent = await this.db.selectFrom('notification').select(['notification_id', 'created_at']).where('user_id', '=', s.userId).where('created_at', '>', since).execute();
    // What exists when the stream opens is in the count and the centre already; only what comes later is an event.
    for (const r of recent) s.sent.set(r.notification_id, r.created_at);
    if (lastEventId !== null) {
      // A reconnect after a network drop: what arrived meanwhile is replayed.
      const missed = await this.db
        .selectFrom('notification')
        .select([...columns, 'created_at'])
        .where('user_id', '=', s.userId)
        .where('notification_id', '>', lastEventId)
        .orderBy('notification_id')
        .limit(50)
        .execute();
      const unread = await unreadCount(this.db, s.userId);
      for (const { created_at, ...r } of missed) {
        s.sent.set(r.notification_id, created_at);
        write(s, StreamEvent.NOTIFICATION, { ...toItem(r), unread }, r.notification_id);
      }
    }
    write(s, StreamEvent.UNREAD, { count: await unreadCount(this.db, s.userId) });
    // The client may have gone while the queries above ran.
    if (s.raw.destroyed) return this.close(s);
    let set = this.streams.get(s.userId);
    if (!set) this.streams.set(s.userId, (set = new Set()));
    // A person with many tabs or phones keeps the newest streams; the oldest reconnect if still open.
    if (set.size >= MAX_STREAMS_PER_USER) this.close([...set][0]!);
    set.add(s);
    if (!this.timer) {
      this.timer = setInterval(() => this.poke(), POLL_MS);
      this.timer.unref();
    }
  }

  close(s: Stream) {
    clearInterval(s.ping);
    const set = this.streams.get(s.userId);
    set?.delete(s);
    if (set && set.size === 0) this.streams.delete(s.userId);
    if (!s.raw.writableEnded) s.raw.end();
    if (this.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /** Tells every open stream that the board's figures changed: its pages refetch what they show (src/features/notifications/live.ts). */
  figuresChanged() {
    if (this.figuresTimer) return;
    // A burst of crossings is one event a little later, not one per batch.
    this.figuresTimer = setTimeout(() => {
      this.figuresTimer = null;
      for (const set of this.streams.values()) for (const s of set) write(s, StreamEvent.FIGURES, { at: this.now() });
    }, FIGURES_DEBOUNCE_MS);
    this.figuresTimer.unref();
  }

  closeAll() {
    if (this.figuresTimer) clearTimeout(this.figuresTimer);
    for (const set of [...this.streams.values()]) for (const s of [...set]) this.close(s);
  }

  /** Something changed here (a commit with notifications, a read mark): look now rather than at the next tick. */
  poke() {
    if (this.polling) {
      this.again = true;
      return;
    }
    this.polling = this.poll()
      .catch((err) => this.log.error({ err }, 'notification stream poll failed'))
      .finally(() => {
        this.polling = null;
        if (this.again) {
          this.again = false;
          this.poke();
        }
      });
  }

  private async poll() {
    const users = [...this.streams.keys()];
    if (users.length === 0) return;
    const print = await figuresFingerprint(this.db, this.today());
    if (this.fingerprint !== null && print !== this.fingerprint) this.figuresChanged();
    this.fingerprint = print;
    const since = this.now() - RECENT_MS;
    const rows: Array<Pick<Selectable<NotificationTable>, (typeof columns)[number] | 'user_id' | 'created_at'>> = [];
    const counts = new Map<number, number>();
    for (let i = 0; i < users.length; i += 500) {
      const chunk = users.slice(i, i + 500);
      rows.push(
        ...(await this.db
          .selectFrom('notification')
          .select([...columns, 'user_id', 'created_at'])
          .where('created_at', '>', since)
          .where('user_id', 'in', chunk)
          .orderBy('notification_id')
          .execute()),
      );
      // Every poll, not only after a local read mark: a mark made through another server changes the count too.
      const unread = await this.db
        .selectFrom('notification')
        .select((eb) => ['user_id', eb.fn.countAll<number>().as('n')])
        .where('user_id', 'in', chunk)
        .where('read_at', 'is', null)
        .groupBy('user_id')
        .execute();
      for (const u of unread) counts.set(u.user_id, Number(u.n));
    }
    // Imports of these users that ran lately: their counters, as the server running each wrote them (any process).
    const progress = new Map<number, Awaited<ReturnType<typeof importProgressOf>>>();
    for (let i = 0; i < users.length; i += 500) {
      for (const p of await importProgressOf(this.db, users.slice(i, i + 500), since)) progress.set(p.userId, [...(progress.get(p.userId) ?? []), p]);
    }
    const byUser = new Map<number, typeof rows>();
    for (const r of rows) byUser.set(r.user_id, [...(byUser.get(r.user_id) ?? []), r]);
    // Only the users counted above: a stream opened meanwhile got its count when it opened.
    for (const userId of users) {
      const set = this.streams.get(userId);
      if (!set) continue;
      const mine = byUser.get(userId) ?? [];
      const unread = counts.get(userId) ?? 0;
      for (const s of set) {
        const news = mine.filter((r) => !s.sent.has(r.notification_id));
        for (const r of news) {
          s.sent.set(r.notification_id, r.created_at);
          const { user_id: _u, created_at: _c, ...item } = r;
          write(s, StreamEvent.NOTIFICATION, { ...toItem(item), unread }, r.notification_id);
        }
        if (news.length === 0 && s.unread !== unread) write(s, StreamEvent.UNREAD, { count: unread });
        for (const { userId: _u, ...p } of progress.get(userId) ?? []) {
          const key = JSON.stringify(p);
          if (s.imports.get(p.id) === key) continue;
          s.imports.set(p.id, key);
          write(s, StreamEvent.IMPORT, p);
        }
      }
    }
    for (const set of this.streams.values()) {
      for (const s of set) for (const [id, at] of s.sent) if (at < since - RECENT_MS) s.sent.delete(id);
    }
  }

  async heartbeat(s: Stream) {
    if (!(await this.sessionLive(s).catch(() => true))) {
      write(s, 'end', { reason: '登录已过期，请重新登录' });
      this.close(s);
      return;
    }
    if (!s.raw.writableEnded) s.raw.write(': ping\n\n');
  }
}

export async function notificationRoutes(app: FastifyInstance) {
  const { ctx } = app;
  const db = ctx.db;
  const hub = new StreamHub(
    db,
    () => ctx.now(),
    () => ctx.time().slice(0, 10),
    async (s) => {
      const row = await db.selectFrom('sys_session').select('expires_at').where('session_id', '=', s.sessionId).executeTakeFirst();
      return !!row && row.expires_at > Date.now();
    },
    app.log,
  );
  const unlisten = onNotified(db, () => hub.poke());
  // An import's progress (written every few hundred ms while it runs) is told at most once a second.
  let importPoke: NodeJS.Timeout | null = null;
  const unlistenFigures = onTableChanged((table) => {
    if (FIGURE_SOURCES.some((source) => table.startsWith(source))) hub.figuresChanged();
    if (table === TASK_TABLE && !importPoke && hub.size > 0) {
      importPoke = setTimeout(() => {
        importPoke = null;
        hub.poke();
      }, 1000);
      importPoke.unref();
    }
  });
  // Open streams would keep the server from closing.
  app.addHook('preClose', async () => {
    unlisten();
    unlistenFigures();
    if (importPoke) clearTimeout(importPoke);
    hub.closeAll();
  });

  route(app, notificationApi.page, async (req) => {
    const q = req.body;
    const userId = req.auth!.userId;
    const base = () => {
      let b = db.selectFrom('notification').where('user_id', '=', userId);
      if (q.unread) b = b.where('read_at', 'is', null);
      if (q.kind) b = b.where('kind', '=', q.kind);
      return b;
    };
    const page = await pageOf(
      q,
      () =>
        base()
          .select((eb) => eb.fn.countAll<number>().as('total'))
          .executeTakeFirst(),
      (limit, offset) => base().select(columns).orderBy('created_at', 'desc').orderBy('notification_id', 'desc').limit(limit).offset(offset).execute(),
    );
    return ok({ list: page.list.map(toItem), total: page.total });
  });

  route(app, notificationApi.unreadCount, async (req) => ok({ count: await unreadCount(db, req.auth!.userId) }));

  route(app, notificationApi.read, async (req) => {
    const body = req.body;
    const userId = req.auth!.userId;
    // Another person's ids match nothing: the update is bound to the caller.
    await db.updateTable('notification').set({ read_at: ctx.time() }).where('user_id', '=', userId).where('notification_id', 'in', body.ids).where('read_at', 'is', null).execute();
    signalNotified(db, [userId]);
    return ok({ count: await unreadCount(db, userId) });
  });

  route(app, notificationApi.readAll, async (req) => {
    const userId = req.auth!.userId;
    const kinds = req.body.kinds;
    let q = db.updateTable('notification').set({ read_at: ctx.time() }).where('user_id', '=', userId).where('read_at', 'is', null);
    if (kinds) q = q.where('kind', 'in', kinds);
    await q.execute();
    signalNotified(db, [userId]);
    return ok({ count: kinds ? await unreadCount(db, userId) : 0 }, '已全部标为已读');
  });

  route(app, notificationApi.stream, async (req, reply) => {
    const auth = req.auth!;
    const last = Number(req.headers['last-event-id']);
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      // nginx would otherwise buffer the stream until it closes.
      'X-Accel-Buffering': 'no',
    });
    raw.flushHeaders();
    const stream: Stream = { userId: auth.userId, sessionId: auth.sessionId, raw, sent: new Map(), unread: null, imports: new Map(), ping: setInterval(() => void hub.heartbeat(stream), PING_MS) };
    raw.on('close', () => hub.close(stream));
    try {
      // Only an id a notification can have: a larger one fails PostgreSQL's integer comparison and would close every reconnect at once.
      await hub.open(stream, Number.isInteger(last) && last > 0 && last <= INT_MAX ? last : null);
    } catch (err) {
      req.log.error({ err }, 'notification stream failed to open');
      hub.close(stream);
    }
  });
}
