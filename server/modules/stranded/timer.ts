import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context';
import { onTableChanged } from '../../core/paging';
import { startPeriodic } from '../../jobs/periodic';
import { raiseDueAlarms } from './detection';
import { sendWaitingAlarmSms } from './notification';

/** setTimeout's longest delay; a later deadline is re-read when this one fires. */
const MAX_DELAY_MS = 2_147_483_647;
/** A timer may fire a millisecond early; this much later it surely finds the deadline passed rather than arming itself again at once. */
const LATE_MS = 20;

/** The earliest deadline of an open stay not yet alarmed (index presence_due), or null. */
export async function nextDeadline(ctx: AppContext): Promise<string | null> {
  const row = await ctx.db
    .selectFrom('presence')
    .select('deadline')
    .where('exit_time', 'is', null)
    .where('alarmed', '=', 0)
    .where('deadline', 'is not', null)
    .orderBy('deadline')
    .limit(1)
    .executeTakeFirst();
  return row?.deadline ?? null;
}

/**
 * Milliseconds from now until a park time. Both are wall-clock times of the
 * park's zone, which keeps no daylight saving, so their difference is exact;
 * the current second's elapsed part is taken off so that the timer fires at
 * the deadline's first millisecond, when `time()` already reads it.
 */
function msUntil(ctx: AppContext, time: string): number {
  const wall = (t: string) => Date.parse(`${t.replace(' ', 'T')}Z`);
  const now = ctx.now();
  return wall(time) - wall(ctx.time()) - (((now % 1000) + 1000) % 1000);
}

/**
 * Stranded detection (DESIGN.md §8). A timer is armed for the next deadline
 * (the earliest open, un-alarmed stay's), so an overstay is raised within a
 * second of it rather than at the next minute's check (issue 24 item 5). It
 * is re-read after each pass, whenever a stay is written (ingest announces
 * tableChanged('presence') after commit, and server/main.ts relays that from
 * every process to the one running the jobs), and at start, so a restart
 * keeps the deadlines the database holds. The minute check stays as the
 * safety net (a lost relay, a stay written by SQL by hand), and sends the
 * SMS of alarms whose raising server stopped before sending. Each alarm is
 * claimed by a conditional update of its stay, so servers sharing a
 * PostgreSQL raise (and text) it once.
 */
export function startStrandedJob(app: FastifyInstance, everyMs = 60_000): () => void {
  const ctx = app.ctx;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  // One pass or arming at a time; a request while one runs is served once after it.
  let busy = false;
  let again: 'raise' | 'arm' | null = null;

  async function run(raise: boolean) {
    if (busy) {
      again = raise || again === 'raise' ? 'raise' : 'arm';
      return;
    }
    busy = true;
    try {
      if (raise) {
        const raised = await raiseDueAlarms(ctx);
        if (raised > 0) app.log.info({ raised }, '滞留告警');
      }
      const next = stopped ? null : await nextDeadline(ctx);
      if (timer) clearTimeout(timer);
      timer = undefined;
      if (next && !stopped) {
        timer = setTimeout(() => void run(true), Math.min(MAX_DELAY_MS, Math.max(0, msUntil(ctx, next)) + LATE_MS));
        timer.unref();
      }
    } catch (err) {
      app.log.error({ err }, 'stranded detection failed');
    } finally {
      busy = false;
      const pending = again;
      again = null;
      if (pending && !stopped) void run(pending === 'raise');
    }
  }

  const stopPeriodic = startPeriodic(app, 'stranded detection', everyMs, async () => {
    await run(true);
    const sent = await sendWaitingAlarmSms(ctx);
    if (sent > 0) app.log.info({ sent }, '补发滞留告警短信');
  });
  const stopListening = onTableChanged((table) => {
    if (table === 'presence') void run(false);
  });
  return () => {
    stopped = true;
    stopPeriodic();
    stopListening();
    if (timer) clearTimeout(timer);
  };
}
