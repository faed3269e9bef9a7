import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { NotificationKind } from '../../domain/notifications';
import { ADMIN_ROLE_CODE } from '../../domain/schemas/role';
import type { AppContext } from '../core/context';
import { notify } from '../core/notify';
import type { DB } from '../db/schema';
import { holderName } from '../core/lease';
import { BackupBusyError, pruneBackups, takeBackup, type BackupResult, type PgTools } from '../ops/backup';
import { claimNight, dueNight } from './nightly';
import { startPeriodic } from './periodic';

/**
 * The nightly backup (server/ops/backup.ts) at config.backup.at park time
 * (BACKUP_AT; null takes none), then the archives beyond config.backup.keep
 * removed. Servers sharing one database take each night's backup once: the
 * night is claimed by inserting its backup_claim row ('night:YYYY-MM-DD')
 * through the nightly claim (jobs/nightly.ts), which also lets a server that
 * was down at the hour catch up. A failure is told to every holder of the
 * built-in administrator role.
 */

const CHECK_EVERY_MS = 60_000;

export { CATCH_UP_MINUTES } from './nightly';

export type NightlyOutcome =
  | { outcome: 'off' }
  | { outcome: 'not-due' }
  | { outcome: 'claimed-elsewhere'; night: string }
  | { outcome: 'taken'; night: string; result: BackupResult; pruned: string[] }
  | { outcome: 'failed'; night: string; message: string };

/** Enabled users holding the enabled built-in administrator role. */
async function administrators(db: Kysely<DB>): Promise<number[]> {
  const rows = await db
    .selectFrom('sys_user as u')
    .innerJoin('sys_user_role as ur', 'ur.user_id', 'u.user_id')
    .innerJoin('sys_role as r', 'r.role_id', 'ur.role_id')
    .select('u.user_id')
    .distinct()
    .where('r.code', '=', ADMIN_ROLE_CODE)
    .where('r.deleted', '=', 0)
    .where('r.status', '=', 1)
    .where('u.deleted', '=', 0)
    .where('u.status', '=', 1)
    .orderBy('u.user_id')
    .execute();
  return rows.map((r) => r.user_id);
}

/** Tells every administrator that the night's backup failed, and why; one notification per night (its tag). */
export async function notifyBackupFailed(ctx: AppContext, night: string, message: string): Promise<number> {
  return ctx.db.transaction().execute(async (trx) => {
    const admins = await administrators(trx);
    await notify(
      trx,
      ctx,
      admins.map((userId) => ({
        userId,
        kind: NotificationKind.BACKUP_FAILED,
        title: '夜间备份失败',
        body: `${night} ${ctx.config.backup.at ?? ''} 的定时备份未能完成：${message}。请检查备份目录与磁盘空间，处理后可在“系统设置 > 备份”中立即备份`,
        url: '/settings/backups',
        tag: `backup-failed-${night}`,
      })),
    );
    return admins.length;
  });
}

/**
 * One check of the nightly backup at `now`: takes it when due and unclaimed, prunes, and notifies on failure.
 * The job calls it every minute; tests call it with their own clock.
 */
export async function nightlyBackupOnce(ctx: AppContext, now = ctx.now(), opts: { tools?: PgTools } = {}): Promise<NightlyOutcome> {
  const { backup, tz } = ctx.config;
  if (!backup.at) return { outcome: 'off' };
  const night = dueNight(backup.at, now, tz);
  if (!night) return { outcome: 'not-due' };
  if (!(await claimNight(ctx.db, `night:${night}`, holderName(), now))) return { outcome: 'claimed-elsewhere', night };
  let result: BackupResult;
  try {
    result = await takeBackup({ config: ctx.config, database: ctx, reason: 'nightly', tools: opts.tools });
  } catch (err) {
    const message = err instanceof BackupBusyError ? `${err.message}（本次定时备份未执行）` : (err as Error).message;
    await notifyBackupFailed(ctx, night, message);
    return { outcome: 'failed', night, message };
  }
  try {
    return { outcome: 'taken', night, result, pruned: await pruneBackups(backup.dir, backup.keep) };
  } catch (err) {
    // The backup is there; the old ones left would fill the disk night by night, so this is told as well.
    const message = `备份已完成（${result.file}），但清理旧备份失败：${(err as Error).message}`;
    await notifyBackupFailed(ctx, night, message);
    return { outcome: 'failed', night, message };
  }
}

/** Checks every minute whether the night's backup is due (nightlyBackupOnce); answers the stop function for shutdown. */
export function startBackupJob(app: FastifyInstance): () => void {
  if (!app.ctx.config.backup.at) return () => undefined;
  return startPeriodic(app, 'nightly backup', CHECK_EVERY_MS, async () => {
    const done = await nightlyBackupOnce(app.ctx);
    if (done.outcome === 'taken') app.log.info({ file: done.result.file, size: done.result.size, ms: done.result.durationMs, pruned: done.pruned }, '夜间备份完成');
    else if (done.outcome === 'failed') app.log.error({ night: done.night }, done.message);
  });
}
