import { z } from 'zod';
import { col, defineCall, pageOf } from '../contract';
import { labelled, pageQuery, type FieldLabels } from './common';

/**
 * 备份 (系统设置 > 备份): the backups taken, nightly, from 立即备份 or from
 * `npm run backup`, newest first, and 立即备份 itself. The archives and what
 * they hold: server/ops/backup.ts.
 */

export const BACKUP_REASONS = ['nightly', 'manual', 'cli'] as const;
export type BackupReasonValue = (typeof BACKUP_REASONS)[number];
/** How each run was started, as the list shows it. */
export const backupReasonLabels: Record<BackupReasonValue, string> = { nightly: '定时备份', manual: '立即备份', cli: '命令行备份' };

export const backupLabels: FieldLabels = {
  id: '备份ID',
  started_at: '开始时间',
  finished_at: '完成时间',
  duration_ms: '耗时（毫秒）',
  file_name: '备份文件',
  size_bytes: '大小（字节）',
  verified: '已校验',
  error: '失败原因',
  reason: '方式',
  host: '主机',
  pid: '进程号',
  size: '每页条数',
  pn: '页码',
};

/** One backup as the list and 立即备份 answer it; `error` is null for a backup that succeeded. */
export const backupRunRow = z.object({
  id: col.id,
  started_at: col.time,
  finished_at: col.time,
  duration_ms: col.int,
  file_name: col.text,
  size_bytes: col.int,
  /** 1: the archive was read back and every SHA-256 matched its manifest. */
  verified: col.flag,
  error: col.text.nullable(),
  reason: z.enum(BACKUP_REASONS),
  host: col.text,
  pid: col.int,
});
export type BackupRunRow = z.infer<typeof backupRunRow>;

export const backupListQuery = labelled(pageQuery, backupLabels);

export const backupApi = {
  list: defineCall({
    method: 'GET',
    path: '/backup/list',
    permission: 'backup:list',
    summary: '备份记录（分页，最新在前）：时间、大小、是否已校验、失败原因、方式',
    input: backupListQuery,
    answer: pageOf(backupRunRow),
  }),
  run: defineCall({
    method: 'POST',
    path: '/backup/run',
    permission: 'backup:run',
    summary: '立即备份：备份数据库与上传文件，完成后返回本次备份记录；已有备份在进行时返回409',
    operation: '立即备份',
    input: labelled(z.object({}), backupLabels),
    answer: backupRunRow,
  }),
};
