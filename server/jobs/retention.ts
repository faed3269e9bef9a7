import type { FastifyInstance } from 'fastify';
import type { RetentionRunProof } from '../../domain/schemas/retention';
import type { AppContext } from '../core/context';
import { RetentionBusyError, runRetention, type RunOptions } from '../modules/retention/run';
import { holderName } from '../core/lease';
import { claimNight, dueNight } from './nightly';
import { startPeriodic } from './periodic';

/**
 * The nightly retention run (server/modules/retention/run.ts) at RETENTION_AT
 * park time, once a night across the servers sharing the database: the night
 * is claimed through the nightly claim (jobs/nightly.ts,
 * 'retention-night:YYYY-MM-DD'), and the run itself takes the retention lease,
 * so a 立即清理 already going makes the night's run step aside.
 */

/** After the nightly backup's usual hour, in the park's quietest hours. */
export const RETENTION_AT = '03:30';
const CHECK_EVERY_MS = 60_000;

export type RetentionNightlyOutcome =
  { outcome: 'not-due' } | { outcome: 'claimed-elsewhere'; night: string } | { outcome: 'done'; night: string; proof: RetentionRunProof } | { outcome: 'failed'; night: string; message: string };

/** One check at `now`: runs the night's retention when due and unclaimed. The job calls it every minute; tests with their own clock. */
export async function nightlyRetentionOnce(ctx: AppContext, now = ctx.now(), opts: Pick<RunOptions, 'batchSize' | 'pauseMs' | 'shouldStop'> = {}): Promise<RetentionNightlyOutcome> {
  const night = dueNight(RETENTION_AT, now, ctx.config.tz);
  if (!night) return { outcome: 'not-due' };
  if (!(await claimNight(ctx.db, `retention-night:${night}`, holderName(), now))) return { outcome: 'claimed-elsewhere', night };
  try {
    return { outcome: 'done', night, proof: await runRetention(ctx, { kind: 'nightly', now, ...opts }) };
  } catch (err) {
    const message = err instanceof RetentionBusyError ? `${err.message}（本次定时清理未执行）` : (err as Error).message;
    return { outcome: 'failed', night, message };
  }
}

/** Checks every minute whether the night's retention is due; answers the stop function, which also ends a run between two batches. */
export function startRetentionJob(app: FastifyInstance): () => void {
  let stopping = false;
  const stop = startPeriodic(app, 'nightly retention', CHECK_EVERY_MS, async () => {
    const done = await nightlyRetentionOnce(app.ctx, app.ctx.now(), { shouldStop: () => stopping });
    if (done.outcome === 'done') app.log.info({ run: done.proof.id, classes: done.proof.classes.map((c) => ({ [c.key]: c.rows })) }, '夜间数据保留清理完成');
    else if (done.outcome === 'failed') app.log.error({ night: done.night }, done.message);
  });
  return () => {
    stopping = true;
    stop();
  };
}
