import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../core/context';
import { startExactTimer } from '../../jobs/exact-timer';
import { raiseDueAlarms } from './detection';
import { sendWaitingAlarmSms } from './notification';

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
 * Stranded detection (DESIGN.md §8): an overstay is raised within a second of
 * its deadline (the earliest open, un-alarmed stay's; ingest announces
 * tableChanged('presence') after each stay it writes). The minute pass also
 * sends the SMS of alarms whose raising server stopped before sending. Each
 * alarm is claimed by a conditional update of its stay, so servers sharing a
 * PostgreSQL raise (and text) it once.
 */
export function startStrandedJob(app: FastifyInstance, everyMs = 60_000): () => void {
  const ctx = app.ctx;
  return startExactTimer(app, {
    what: 'stranded detection',
    table: 'presence',
    everyMs,
    async untilNext() {
      const next = await nextDeadline(ctx);
      return next === null ? null : msUntil(ctx, next);
    },
    async fire() {
      const raised = await raiseDueAlarms(ctx);
      if (raised > 0) app.log.info({ raised }, '滞留告警');
    },
    async sweep() {
      const sent = await sendWaitingAlarmSms(ctx);
      if (sent > 0) app.log.info({ sent }, '补发滞留告警短信');
    },
  });
}
