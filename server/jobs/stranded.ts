import type { FastifyInstance } from 'fastify';
import { raiseDueAlarms } from '../modules/devices/presence';
import { startPeriodic } from './periodic';

/**
 * Stranded detection (DESIGN.md §8): once a minute, every stay past its
 * deadline gets its one alarm. Each alarm is claimed by a conditional update
 * of its stay, so servers sharing a PostgreSQL raise (and text) it once.
 */
export function startStrandedJob(app: FastifyInstance, everyMs = 60_000): () => void {
  return startPeriodic(app, 'stranded detection', everyMs, async () => {
    const raised = await raiseDueAlarms(app.ctx);
    if (raised > 0) app.log.info({ raised }, '滞留告警');
  });
}
