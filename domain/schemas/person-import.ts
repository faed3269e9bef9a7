import { z } from 'zod';
import { binary, col, defineCall, defineUpload, none, pageOf } from '../contract';
import type { EnumOption } from '../enums';
import { idField, labelled, optionalFilterInt, optionalFilterText, pageQuery, requiredText, stampLabels } from './common';

/**
 * Person batch import (人员批量导入, spec 001 §2, §3, §4, §7): a task holds
 * one zip of an xlsx of persons and their face photos; starting it imports
 * the persons in the background, each row all or nothing.
 */

/** Task status (spec 001 §4: 0 and 3 allow edit, start and delete). */
export const ImportStatus = { WAITING: 0, RUNNING: 1, DONE: 2, FAILED: 3 } as const;

export const importStatusOptions: EnumOption[] = [
  { value: ImportStatus.WAITING, label: '待导入', color: 'default' },
  { value: ImportStatus.RUNNING, label: '导入中', color: 'primary' },
  { value: ImportStatus.DONE, label: '已完成', color: 'success' },
  { value: ImportStatus.FAILED, label: '失败', color: 'danger' },
];

/** Edit, start import and delete: status 0 (待导入) and 3 (失败) only, on the screen and on the server alike. */
export const importTaskEditable = (status: number): boolean => status === ImportStatus.WAITING || status === ImportStatus.FAILED;
export const IMPORT_STATE_MESSAGE = '只有待导入或失败的任务可以编辑、开始导入或删除';

/** Bounds of an uploaded zip (DESIGN.md §11); the messages name them. */
export const IMPORT_ZIP_LIMITS = {
  maxBytes: 200 * 1024 * 1024,
  maxEntries: 5000,
  maxUnzippedBytes: 1024 * 1024 * 1024,
  maxRatio: 100,
  /** The persons' sheet itself, read into memory for the xlsx reader. */
  maxSheetBytes: 20 * 1024 * 1024,
  /** One face photo, as the photo upload allows an image. */
  maxPhotoBytes: 10 * 1024 * 1024,
} as const;

/** A person's photo in the zip: `<证件号码>.jpg|jpeg|png`, in any folder. */
export const PHOTO_EXTENSIONS = ['jpg', 'jpeg', 'png'] as const;

export const NOT_A_ZIP = '请上传zip文件';
export const TEMPLATE_FILE = '人员批量导入模板.zip';

export const personImportLabels = {
  ...stampLabels,
  id: '导入任务ID',
  name: '任务名称',
  zipFile: 'zip文件',
  file_name: '文件',
  file_size: '文件大小(MB)',
  status: '状态',
  reason: '原因',
  total: '总人数',
  done_count: '已导入',
  failed_count: '失败',
  create_user_name: '创建人',
};

export const taskName = requiredText('请输入任务名称', 50, '任务名称不能超过50个文字');

export const importTaskId = labelled(z.object({ id: idField(personImportLabels.id) }), personImportLabels);
export const importTaskUpdate = labelled(z.object({ id: idField(personImportLabels.id), name: taskName }), personImportLabels);
export const importTaskQuery = labelled(pageQuery.extend({ name: optionalFilterText, status: optionalFilterInt }), personImportLabels);
export const importResultQuery = importTaskId;

export const importTaskRow = z.object({
  id: col.id,
  name: col.text,
  file_name: col.text,
  /** Bytes; the list shows MB. */
  file_size: col.int,
  status: col.int,
  reason: col.text,
  total: col.int,
  done_count: col.int,
  failed_count: col.int,
  /** Rows with a result exist: the results file can be downloaded. */
  has_rows: col.flag,
  create_user_id: col.id,
  create_user_name: col.text,
  create_time: col.time,
  update_time: col.time,
});
export type ImportTaskRow = z.infer<typeof importTaskRow>;

/** The live progress event of the notification stream (StreamEvent.IMPORT): one task's counters. */
export interface ImportProgressEvent {
  id: number;
  status: number;
  total: number;
  done: number;
  failed: number;
  reason: string;
}

const page = {
  permission: 'personBatchApply:list',
  summary: '人员批量导入任务列表',
  input: importTaskQuery,
  answer: pageOf(importTaskRow),
} as const;

export const personImportApi = {
  save: defineUpload({
    method: 'POST',
    path: '/personApplications/import/save',
    permission: 'personBatchApply:add',
    summary: '新建人员批量导入任务（带 id 时更换该任务的 zip 文件）',
    operation: '新建人员批量导入',
    multipart: {
      zipFile: `zip 文件（≤200MB，≤5000个文件，解压后≤1GB）：一个人员 .xlsx 与以证件号码命名的人脸照片（.jpg/.jpeg/.png）`,
      name: '任务名称',
      id: '任务ID（可选：更换待导入或失败任务的文件，需编辑权限）',
    },
    answer: z.object({ id: col.id }),
  }),
  page: defineCall({ method: 'POST', path: '/personApplications/import/page', ...page }),
  pageGet: defineCall({ method: 'GET', path: '/personApplications/import/page', ...page }),
  update: defineCall({
    method: 'POST',
    path: '/personApplications/import/update',
    permission: 'personBatchApply:edit',
    summary: '修改人员批量导入任务名称',
    operation: '编辑人员批量导入',
    input: importTaskUpdate,
    answer: none,
  }),
  delete: defineCall({
    method: 'POST',
    path: '/personApplications/import/delete',
    permission: 'personBatchApply:delete',
    summary: '删除人员批量导入任务',
    operation: '删除人员批量导入',
    input: importTaskId,
    answer: none,
  }),
  submit: defineCall({
    method: 'POST',
    path: '/personApplications/import/submit',
    permission: 'personBatchApply:commit',
    summary: '开始导入（后台执行；失败的任务再次开始时只导入未成功的人员）',
    operation: '开始人员批量导入',
    input: importTaskId,
    answer: none,
  }),
  template: defineCall({
    method: 'GET',
    path: '/personApplications/import/template',
    permission: 'personBatchApply:add',
    summary: '下载人员批量导入模板（zip）',
    input: z.object({}),
    answer: binary('application/zip'),
  }),
  result: defineCall({
    method: 'GET',
    path: '/personApplications/import/result',
    permission: 'personBatchApply:list',
    summary: '下载人员批量导入结果（xlsx：每行的申请单号或失败原因）',
    input: importResultQuery,
    answer: binary('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'),
  }),
};
