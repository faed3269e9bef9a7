import { backupApi, backupLabels, backupReasonLabels, type BackupRunRow } from '../../../domain/schemas/backups';
import { ApiError, call } from '../../lib/http';
import { showToast } from '../../lib/feedback';
import { defineScreen } from '../../list-screen';

/**
 * 备份 (系统设置): every backup taken (nightly at BACKUP_AT, from 立即备份, or
 * `npm run backup`), newest first, with its size, whether it was read back and
 * verified, and why one failed; 立即备份 takes one now and waits for it.
 * What an archive holds and how to restore it: docs/operations.md.
 */

/** A backup of a large park takes minutes; the call waits for it rather than the usual 15 s. */
const BACKUP_WAIT_MS = 30 * 60_000;

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

const seconds = (ms: number) => (ms < 1000 ? `${ms} 毫秒` : `${(ms / 1000).toFixed(1)} 秒`);

/** The state a row's tag shows: a failure first, then whether the archive was read back and every checksum matched. */
const outcome = (r: BackupRunRow) => (r.error ? '失败' : r.verified ? '已校验' : '未校验');

async function backupNow(reload: () => void) {
  const toast = showToast({ icon: 'loading', content: '正在备份…', duration: 0 });
  try {
    const run = await call(backupApi.run, {}, { timeout: BACKUP_WAIT_MS });
    toast.close();
    showToast({ icon: 'success', content: `备份完成：${formatBytes(run.size_bytes)}，用时 ${seconds(run.duration_ms)}` });
  } catch (e) {
    toast.close();
    showToast({ icon: 'fail', content: `备份失败：${e instanceof ApiError ? e.message : String(e)}`, duration: 4000 });
  }
  reload();
}

export const backupsScreen = defineScreen<BackupRunRow>({
  key: 'settings.backups',
  title: '备份',
  description: '每晚自动备份数据库与上传文件，保留最近的若干份；也可立即备份一次。',
  // Sizes and times are shown in their own units (3.7 MB, 1.4 秒), not the wire's bytes and milliseconds.
  labels: { ...backupLabels, size_bytes: '大小', duration_ms: '耗时', outcome: '状态' },
  list: { path: backupApi.list, permission: 'backup:list' },
  rowKey: 'id',
  card: { title: 'started_at', extra: 'outcome' },
  detail: { title: '备份详情' },
  toolbar: [{ key: 'run', label: '立即备份', type: 'run', primary: true, permission: 'backup:run', run: ({ reload }) => backupNow(reload) }],
  fields: [
    { name: 'started_at', kind: 'text', hideInSearch: true, width: 170 },
    { name: 'outcome', kind: 'text', hideInSearch: true, width: 90, tag: true, render: (r) => outcome(r) },
    { name: 'reason', kind: 'text', hideInSearch: true, width: 100, render: (r) => backupReasonLabels[r.reason] },
    { name: 'size_bytes', kind: 'text', hideInSearch: true, width: 100, render: (r) => (r.error ? '-' : formatBytes(r.size_bytes)) },
    { name: 'duration_ms', kind: 'text', hideInSearch: true, width: 100, render: (r) => seconds(r.duration_ms) },
    { name: 'file_name', kind: 'text', hideInSearch: true, width: 260, render: (r) => r.file_name || '-' },
    { name: 'error', kind: 'text', hideInSearch: true, width: 220, render: (r) => r.error ?? '-' },
    { name: 'finished_at', kind: 'text', hideInSearch: true, hideInTable: true, hideInCard: true },
    { name: 'host', kind: 'text', hideInSearch: true, hideInTable: true, hideInCard: true, render: (r) => `${r.host}（进程 ${r.pid}）` },
  ],
});
