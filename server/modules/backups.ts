import type { FastifyInstance } from 'fastify';
import { ErrorCode } from '../../domain/errors';
import { backupApi, type BackupRunRow } from '../../domain/schemas/backups';
import { AppError, ok } from '../core/errors';
import { pageOf } from '../core/paging';
import { route } from '../core/route';
import { BackupBusyError, BackupFailedError, takeBackup, type BackupRun } from '../ops/backup';

/**
 * 备份 (domain/schemas/backups.ts): the list of backup_run, newest first, and
 * 立即备份, which takes a backup (server/ops/backup.ts) while the caller waits
 * and answers its row. One backup at a time over the database: a second
 * while one runs, from any server, is a 409.
 */

const toRow = (r: BackupRun): BackupRunRow => ({
  id: r.id,
  started_at: r.started_at,
  finished_at: r.finished_at,
  duration_ms: Number(r.duration_ms),
  file_name: r.file_name,
  size_bytes: Number(r.size_bytes),
  verified: r.verified,
  error: r.error,
  reason: r.reason as BackupRunRow['reason'],
  host: r.host,
  pid: r.pid,
});

export async function backupRoutes(app: FastifyInstance) {
  const { ctx } = app;

  route(app, backupApi.list, async (req) => {
    const q = req.query;
    const page = await pageOf(
      q,
      () =>
        ctx.db
          .selectFrom('backup_run')
          .select((eb) => eb.fn.countAll<number>().as('total'))
          .executeTakeFirst(),
      (limit, offset) => ctx.db.selectFrom('backup_run').selectAll().orderBy('started_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    );
    return ok({ list: page.list.map(toRow), total: page.total });
  });

  route(app, backupApi.run, async () => {
    try {
      const done = await takeBackup({ config: ctx.config, database: ctx, reason: 'manual' });
      // The server has migrated its database, so the row is there.
      return ok(toRow(done.run!), '备份完成');
    } catch (err) {
      if (err instanceof BackupBusyError) throw new AppError(ErrorCode.STATE_CONFLICT, err.message);
      if (err instanceof BackupFailedError) throw new AppError(ErrorCode.INTERNAL, err.message, err.run ? toRow(err.run) : null);
      throw err;
    }
  });
}
