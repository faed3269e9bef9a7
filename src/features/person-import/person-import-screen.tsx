import { Tag } from 'antd-mobile';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { ImportStatus, importStatusOptions, importTaskEditable, personImportApi, personImportLabels, type ImportTaskRow } from '../../../domain/schemas/person-import';
import { useImportProgress } from '../../lib/live-imports';
import { defineScreen, type RowAction } from '../../list-screen';
import type { EnumOption } from '../../../domain/enums';
import { ResultDownload, SCREEN_KEY, StartModal, TaskModal, downloadTemplate, reloadList } from './task-modals';
import './person-import.css';

const { page, delete: remove } = personImportApi;

const tagColor = { default: 'default', primary: 'primary', success: 'success', danger: 'danger', warning: 'warning' } as const;

/**
 * The status of a task; while it runs, its live counters ("已导入 n / N")
 * from the notification stream, so a run longer than the backoff refreshes
 * still ends on screen: the list reloads when the stream says it ended.
 */
function StatusCell({ row }: { row: ImportTaskRow }) {
  const qc = useQueryClient();
  const live = useImportProgress(row.id);
  const status = live && row.status === ImportStatus.RUNNING ? live.status : row.status;
  useEffect(() => {
    if (row.status === ImportStatus.RUNNING && live && live.status !== ImportStatus.RUNNING) reloadList(qc);
  }, [row.status, live, qc]);
  const counts = live && row.status === ImportStatus.RUNNING ? live : { done: row.done_count, failed: row.failed_count, total: row.total };
  const option = shownStatus(status, counts.done);
  return (
    <span className="pi-status">
      <Tag color={tagColor[option?.color ?? 'default']} fill="outline">
        {option?.label ?? String(status)}
      </Tag>
      {status === ImportStatus.RUNNING && counts.total > 0 && (
        <span className="pi-progress" aria-live="polite">
          已导入 {counts.done + counts.failed} / {counts.total}
        </span>
      )}
      {status === ImportStatus.FAILED && counts.done > 0 && (
        <span className="pi-counts">
          已导入 {counts.done} / {counts.total}
        </span>
      )}
    </span>
  );
}

/** A run that imported some of its persons and not others is 部分成功, not 失败: those it imported are submitted applications. */
const PARTLY_DONE: EnumOption = { value: ImportStatus.FAILED, label: '部分成功', color: 'warning' };
const shownStatus = (status: number, done: number): EnumOption | undefined => (status === ImportStatus.FAILED && done > 0 ? PARTLY_DONE : importStatusOptions.find((o) => o.value === status));

/** A task's result file: the next step of a run that left someone out (the reasons are in it), else after 开始导入. */
const resultAction = (key: string, when: (r: ImportTaskRow) => boolean): RowAction<ImportTaskRow> => ({
  key,
  label: '下载结果',
  type: 'modal',
  component: ResultDownload,
  permission: 'personBatchApply:list',
  visible: (r) => r.has_rows === 1 && when(r),
});

const megabytes = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);

/** 人员批量导入 (spec 001 §2, §4): the caller's import tasks. */
export const personImportScreen = defineScreen<ImportTaskRow>({
  key: SCREEN_KEY,
  title: '人员批量导入',
  description: '上传人员表与人脸照片的 zip 压缩包，后台批量生成人员预约并提交审核',
  labels: personImportLabels,
  list: { path: page, permission: 'personBatchApply:list' },
  rowKey: 'id',
  card: { title: 'name', extra: 'status' },
  fields: [
    { name: 'name', kind: 'text', dataIndex: 'name', width: 160 },
    { name: 'file_size', kind: 'text', dataIndex: 'file_size', hideInSearch: true, width: 100, align: 'right', render: (r) => megabytes(r.file_size) },
    { name: 'file_name', kind: 'text', dataIndex: 'file_name', hideInSearch: true, width: 160 },
    // Everyone lists only their own tasks: on the desktop table the creator is always the reader, and the reason needs the room.
    { name: 'create_user_name', kind: 'text', dataIndex: 'create_user_name', hideInSearch: true, hideInTable: true, width: 80 },
    { name: 'create_time', kind: 'text', dataIndex: 'create_time', hideInSearch: true, width: 170 },
    // The reason is what a failed task's row is read for: the update time gives it the room (it stays in the card and the detail).
    { name: 'update_time', kind: 'text', dataIndex: 'update_time', hideInSearch: true, hideInTable: true, width: 170 },
    // Room for the tag and its counts on one line (部分成功 已导入 19 / 20).
    { name: 'status', kind: 'enum', options: importStatusOptions, dataIndex: 'status', width: 180, render: (r) => <StatusCell row={r} /> },
    { name: 'reason', kind: 'text', dataIndex: 'reason', hideInSearch: true, width: 260 },
  ],
  toolbar: [
    { key: 'add', label: '新建导入', type: 'modal', component: TaskModal, permission: 'personBatchApply:add', primary: true },
    { key: 'template', label: '下载模板', type: 'run', run: () => downloadTemplate(), permission: 'personBatchApply:add' },
  ],
  // The next step first (a phone card shows one action beside 更多): the results of a run that failed someone, else 开始导入; 编辑 and 删除 after.
  rowActions: [
    resultAction('result-failed', (r) => r.status === ImportStatus.FAILED),
    { key: 'start', label: '开始导入', type: 'modal', component: StartModal, permission: 'personBatchApply:commit', visible: (r) => importTaskEditable(r.status) },
    resultAction('result', (r) => r.status !== ImportStatus.FAILED),
    { key: 'edit', label: '编辑', type: 'modal', component: TaskModal, permission: 'personBatchApply:edit', visible: (r) => importTaskEditable(r.status) },
    { key: 'delete', label: '删除', type: 'delete', danger: true, permission: 'personBatchApply:delete', visible: (r) => importTaskEditable(r.status), path: remove, body: (r) => ({ id: r.id }) },
  ],
});
