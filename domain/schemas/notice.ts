import { z } from 'zod';
import { col, defineCall, defineResourceContract, defineUpload, none, pageOf } from '../contract';
import { shellWire } from '../shell-calls';
import { NOTICE_CONTENT_MAX, NOTICE_MAX_ATTACHMENTS, NOTICE_MAX_DEPARTS, NOTICE_TITLE_MAX, NoticeStatus, NoticeType } from '../notices';
import { isValidDate, isValidDateTime } from '../visit-rules';
import { idField, idList, intField, labelled, optionalFilterInt, optionalFilterText, pageQuery, requiredText, stampLabels } from './common';

export * from '../notices';

/**
 * 通知公告 (spec 001 §2 "Notices", §3, §6 notice:*, §8): how the park office
 * speaks to enterprises. A notice is written as a draft, enabled (启用) to
 * reach every user of the departments it names, and disabled (停用) to take it
 * back; while enabled it is neither edited nor deleted, nor are its
 * attachments changed. The spec names no paths: ours follow its style
 * (docs/decisions.md).
 */

export const noticeLabels = {
  ...stampLabels,
  noticeId: '通知ID',
  notice_id: '通知ID',
  title: '标题',
  type: '类型',
  status: '状态',
  content: '内容',
  departList: '通知部门',
  depart_list: '通知部门',
  publish_time: '发布时间',
  delivery: '送达情况',
  attachment_count: '附件',
  create_user_name: '创建人',
  file: '附件',
  id: '附件ID',
  size: '每页条数',
  pn: '页码',
  unread: '仅未读',
  attachments: '附件',
};

/** The most attachments a notice takes, said where a sixth is refused (the create form, the upload). */
export const NOTICE_ATTACHMENTS_FULL = `每个通知最多上传${NOTICE_MAX_ATTACHMENTS}个附件，请先删除不需要的附件`;

/**
 * Files chosen in the create form, before the notice exists: each uploaded first through /file/upload, then
 * named here by its stored name and original file name, and saved with the notice in one transaction, so a
 * save that fails leaves the form as it was and no notice half made.
 */
const newAttachments = z
  .array(
    z.object({
      file_url: z.string({ error: '附件文件名不正确' }).regex(/^[0-9a-f]{32}\.[a-z0-9]{1,5}$/, { error: '附件文件名不正确，请重新上传' }),
      file_name: requiredText('附件缺少原文件名', 255, '附件原文件名不能超过255个字符'),
    }),
    { error: '附件格式不正确' },
  )
  .max(NOTICE_MAX_ATTACHMENTS, { error: NOTICE_ATTACHMENTS_FULL })
  .refine((list) => new Set(list.map((a) => a.file_url)).size === list.length, { error: '同一个附件不能添加两次' })
  .optional();

/** The departments, each once: a comma list, one id or an array (common.ts idList). */
const departList = idList('通知部门不正确').pipe(
  z
    .array(z.number())
    .min(1, { error: '请选择通知部门' })
    .max(NOTICE_MAX_DEPARTS, { error: `通知部门最多选择${NOTICE_MAX_DEPARTS}个` })
    .transform((ids) => [...new Set(ids)]),
);

/** 'YYYY-MM-DD' (the day, from 00:00) or 'YYYY-MM-DD HH:mm:ss'; empty: stamped when the notice is first enabled. */
const publishTime = z.preprocess(
  (v) => (v === undefined || v === null || (typeof v === 'string' && v.trim() === '') ? null : typeof v === 'string' ? v.trim() : v),
  z
    .string({ error: '发布时间格式应为 YYYY-MM-DD 或 YYYY-MM-DD HH:mm:ss' })
    .refine((s) => isValidDate(s) || isValidDateTime(s), { error: '发布时间格式应为 YYYY-MM-DD 或 YYYY-MM-DD HH:mm:ss' })
    .transform((s) => (isValidDate(s) ? `${s} 00:00:00` : s))
    .nullable(),
);

const fields = {
  title: requiredText('请输入标题', NOTICE_TITLE_MAX, `标题不能超过${NOTICE_TITLE_MAX}个字符`),
  type: intField('请选择类型').pipe(z.union([z.literal(NoticeType.NOTICE), z.literal(NoticeType.PRECAUTIONS)], { error: '类型只能是通知或注意事项' })),
  // Plain text: the screens show it as text, so no markup from one user can ever run in another's page.
  content: requiredText('请输入内容', NOTICE_CONTENT_MAX, `内容不能超过${NOTICE_CONTENT_MAX}个字符`),
  departList,
  publish_time: publishTime,
};
const noticeId = { noticeId: idField(noticeLabels.noticeId) };

export const noticeCreate = labelled(z.object({ ...fields, attachments: newAttachments }), noticeLabels);
export const noticeUpdate = labelled(z.object({ ...fields, ...noticeId }), noticeLabels);
export const noticeIdInput = labelled(z.object(noticeId), noticeLabels);
export const noticeQuery = labelled(pageQuery.extend({ title: optionalFilterText, type: optionalFilterInt, status: optionalFilterInt }), noticeLabels);
export const noticeStatusInput = labelled(
  z.object({
    ...noticeId,
    status: intField('请选择状态').pipe(z.union([z.literal(NoticeStatus.ENABLED), z.literal(NoticeStatus.DISABLED)], { error: '状态只能是启用（1）或停用（2）' })),
  }),
  noticeLabels,
);
export const noticeAttachmentId = labelled(z.object({ id: idField('附件ID') }), noticeLabels);
/** The notices delivered to the caller; `unread` 1 keeps only those not opened yet (the home). */
export const receivedQuery = labelled(
  pageQuery.extend({
    unread: z.preprocess((v) => (v === undefined || v === null || v === '' ? 0 : typeof v === 'string' ? Number(v) : v), z.union([z.literal(0), z.literal(1)], { error: '仅未读只能是0或1' })),
  }),
  noticeLabels,
);

export type NoticeCreate = z.infer<typeof noticeCreate>;

/** Per department a notice names: how many users it reached and how many opened it. */
export const noticeDeliveryRow = z.object({ depart_id: col.id, depart_name: col.text.nullable(), delivered: col.int, read: col.int });
export type NoticeDelivery = z.infer<typeof noticeDeliveryRow>;

export const noticeAttachmentRow = z.object({
  id: col.id,
  notice_id: col.id,
  file_name: col.text,
  file_type: col.text,
  file_size: col.int,
  /** The stored name: read through GET /file/:name by whoever may read the notice. */
  file_url: col.text,
  create_time: col.time,
});
export type NoticeAttachment = z.infer<typeof noticeAttachmentRow>;

export const noticeRow = z.object({
  notice_id: col.id,
  title: col.text,
  type: col.int,
  status: col.int,
  content: col.text,
  departList: z.array(col.id),
  depart_names: z.array(col.text),
  publish_time: col.time.nullable(),
  attachment_count: col.int,
  delivery: z.array(noticeDeliveryRow),
  create_user_id: col.id.nullable(),
  create_user_name: col.text.nullable(),
  update_user_id: col.id.nullable(),
  create_time: col.time,
  update_time: col.time,
});
export type NoticeRow = z.infer<typeof noticeRow>;

/** A notice as its reader sees it: the text, its attachments and when the reader opened it. */
export const receivedNoticeRow = noticeRow.pick({ notice_id: true, title: true, type: true, content: true, publish_time: true, attachment_count: true }).extend({
  delivered_time: col.time,
  read_time: col.time.nullable(),
});
export type ReceivedNotice = z.infer<typeof receivedNoticeRow>;
export const receivedNoticeDetail = receivedNoticeRow.extend({ attachments: z.array(noticeAttachmentRow) });
export type ReceivedNoticeDetail = z.infer<typeof receivedNoticeDetail>;

const CODES = { list: 'notice:list', add: 'notice:add', edit: 'notice:edit' } as const;

/** 通知公告 on the wire. Spec 001 §6 names list, add and edit only: deleting, enabling and attachments change a notice, so they are edit's. */
export const noticeApi = {
  ...defineResourceContract({
    noun: '通知',
    key: 'notice_id',
    idParam: 'noticeId',
    labels: noticeLabels,
    row: noticeRow,
    paths: { list: '/notice/page', detail: { url: '/notice/detail', method: 'GET' }, save: '/notice/save', edit: '/notice/update', delete: '/notice/delete' },
    permissions: { list: CODES.list, detail: CODES.list, save: CODES.add, edit: CODES.edit, delete: CODES.edit },
    schemas: { list: noticeQuery, create: noticeCreate, update: noticeUpdate, id: noticeIdInput },
    operations: { save: '新增通知公告', edit: '编辑通知公告', delete: '删除通知公告' },
  }),
  updateStatus: defineCall({
    method: 'POST',
    path: '/notice/updateStatus',
    permission: CODES.edit,
    summary: '启用或停用通知（启用即送达所选部门的用户）',
    operation: '修改通知状态',
    input: noticeStatusInput,
    answer: none,
  }),
  upload: defineUpload({
    method: 'POST',
    path: '/notice/upload',
    permission: CODES.edit,
    summary: '上传通知附件（一次一个，最多5个；草稿或停用时）',
    operation: '上传通知附件',
    multipart: { file: '附件（JPG、PNG、WEBP、GIF、PDF、XLSX）', noticeId: '通知ID' },
    answer: noticeAttachmentRow,
  }),
  attachments: defineCall({
    method: 'POST',
    path: '/notice/attachment/list',
    permission: CODES.list,
    summary: '通知的附件',
    input: noticeIdInput,
    answer: z.array(noticeAttachmentRow),
  }),
  deleteAttachment: defineCall({
    method: 'POST',
    path: '/notice/attachment/delete',
    permission: CODES.edit,
    summary: '删除通知附件（草稿或停用时）',
    operation: '删除通知附件',
    input: noticeAttachmentId,
    answer: none,
  }),
  received: defineCall({
    ...shellWire.receivedNotices,
    permission: 'role',
    summary: '送达我的通知（启用中的）',
    input: receivedQuery,
    answer: pageOf(receivedNoticeRow).extend({ unread: col.int }),
  }),
  // GET …/detail: the service worker keeps it, so a notice once opened reads offline (sw/cache-key.ts).
  receivedDetail: defineCall({
    method: 'GET',
    path: '/notice/received/detail',
    permission: 'role',
    summary: '阅读送达我的通知（含附件）',
    input: noticeIdInput,
    answer: receivedNoticeDetail,
  }),
  markRead: defineCall({
    method: 'POST',
    path: '/notice/received/read',
    permission: 'role',
    summary: '标记通知为已读',
    input: noticeIdInput,
    answer: none,
  }),
};
