import type { FastifyInstance } from 'fastify';
import { releaseStaleImports } from '../modules/person-import/job';
import { startPeriodic } from './periodic';

/**
 * Person batch imports whose server stopped beating (killed mid-run) are
 * released to 失败 with '导入中断，请重新开始', so their owner can start them
 * again (modules/person-import/job.ts). One conditional UPDATE per pass.
 */
export function startImportRecoveryJob(app: FastifyInstance, everyMs = 30_000): () => void {
  return startPeriodic(app, 'person import recovery', everyMs, async () => {
    const released = await releaseStaleImports(app.ctx);
    if (released > 0) app.log.warn({ released }, 'interrupted person imports released');
  });
}
