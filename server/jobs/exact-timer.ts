import type { FastifyInstance } from 'fastify';
import { onTableChanged } from '../core/paging';
import { startPeriodic } from './periodic';

/** setTimeout's longest delay; a later deadline is re-read when this one fires. */
const MAX_DELAY_MS = 2_147_483_647;
/** A timer may fire a millisecond early; this much later it surely finds the deadline passed rather than arming itself again at once. */
const LATE_MS = 20;

export interface ExactTimerJob {
  /** For the log. */
  what: string;
  /** Milliseconds from now until the earliest deadline the database holds (≤ 0: due), or null for none. */
  untilNext(): Promise<number | null>;
  /** Acts on everything due now. */
  fire(): Promise<void>;
  /** A write to this table may have moved the earliest deadline (announced by tableChanged after commit; server/main.ts relays it from every process). */
  table: string;
  /** The minute safety net's own extra work (e.g. SMS a stopped server left waiting). */
  sweep?(): Promise<void>;
  everyMs?: number;
}

/**
 * A job exact to its deadlines (DESIGN.md §8): a timer is armed for the
 * earliest one, so it fires within a second of it rather than at the next
 * minute. The deadline is re-read after each pass, whenever the table is
 * written, and at start, so a restart keeps the deadlines the database holds;
 * the periodic run stays as the safety net (a lost relay, a row written by
 * hand). One pass or arming at a time; a request while one runs is served
 * once after it. Servers sharing a database each run it; the job's own
 * conditional writes make each deadline act once.
 */
export function startExactTimer(app: FastifyInstance, job: ExactTimerJob): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let busy = false;
  let again: 'fire' | 'arm' | null = null;

  async function run(fire: boolean) {
    if (busy) {
      again = fire || again === 'fire' ? 'fire' : 'arm';
      return;
    }
    busy = true;
    try {
      if (fire) await job.fire();
      const wait = stopped ? null : await job.untilNext();
      if (timer) clearTimeout(timer);
      timer = undefined;
      if (wait !== null && !stopped) {
        timer = setTimeout(() => void run(true), Math.min(MAX_DELAY_MS, Math.max(0, wait) + LATE_MS));
        timer.unref();
      }
    } catch (err) {
      app.log.error({ err }, `${job.what} failed`);
    } finally {
      busy = false;
      const pending = again;
      again = null;
      if (pending && !stopped) void run(pending === 'fire');
    }
  }

  const stopPeriodic = startPeriodic(app, job.what, job.everyMs ?? 60_000, async () => {
    await run(true);
    await job.sweep?.();
  });
  const stopListening = onTableChanged((table) => {
    if (table === job.table) void run(false);
  });
  return () => {
    stopped = true;
    stopPeriodic();
    stopListening();
    if (timer) clearTimeout(timer);
  };
}
