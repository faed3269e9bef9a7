import type { ComponentType } from 'react';
import { NoticeStatus, noticeAllows, noticeStatusOptions, noticeTypeOptions } from '../../../domain/notices';
import { noticeApi, noticeCreate, noticeLabels, noticeUpdate, type NoticeRow } from '../../../domain/schemas/notice';
import { DepartmentsSelect } from '../../components/departments-select';
import { defineScreen, type FieldDef } from '../../list-screen';
import type { FieldInputProps } from '../../list-screen/types';
import { NoticeAttachmentsModal, NoticePreview } from './attachments-modal';
import { NewAttachmentsInput } from './new-attachments-input';

const { calls } = noticeApi;

const deliveryText = (r: NoticeRow) => {
  if (r.status === NoticeStatus.DRAFT && r.delivery.every((d) => d.delivered === 0)) return '未发布';
  const delivered = r.delivery.reduce((n, d) => n + d.delivered, 0);
  const read = r.delivery.reduce((n, d) => n + d.read, 0);
  return `送达 ${delivered} · 已读 ${read}`;
};

const statusCall = (status: 1 | 2) => ({ path: noticeApi.updateStatus, body: (r: NoticeRow) => ({ noticeId: r.notice_id, status }), success: '修改状态成功', failure: '修改状态失败' });

/** 通知公告 (spec 001 §2 Notices, §6 notice:*, §8; issue 27): the park office's notices, enabled to reach the departments they name. */
export const noticesScreen = defineScreen<NoticeRow>({
  key: 'system.notices',
  title: '通知公告',
  description: '启用后即送达所选部门（含下级部门）的全部用户；启用中的通知不能编辑或删除',
  labels: noticeLabels,
  list: { path: calls.list },
  rowKey: 'notice_id',
  card: { title: 'title', extra: 'status' },
  fields: [
    { name: 'title', kind: 'text', dataIndex: 'title', width: 220 },
    { name: 'type', kind: 'enum', options: noticeTypeOptions, dataIndex: 'type', width: 100, search: { allLabel: '全部' } },
    { name: 'status', kind: 'enum', options: noticeStatusOptions, tag: true, dataIndex: 'status', hideInForm: true, width: 90, search: { allLabel: '全部' } },
    { name: 'content', kind: 'textarea', dataIndex: 'content', hideInSearch: true, hideInTable: true, hideInCard: true },
    {
      name: 'departList',
      kind: 'custom',
      dataIndex: 'departList',
      input: DepartmentsSelect as ComponentType<FieldInputProps>,
      render: (r) => r.depart_names.join('、'),
      hideInSearch: true,
      width: 200,
      form: { placeholder: '请选择通知部门', help: '所选部门及其下级部门的用户都会收到' },
    },
    {
      name: 'publish_time',
      kind: 'date',
      dataIndex: 'publish_time',
      hideInSearch: true,
      width: 150,
      render: (r) => r.publish_time?.slice(0, 16) ?? '启用时填写',
      form: { placeholder: '留空则为启用时间' },
    },
    // Plain text, so the table measures it and keeps it whole; 预览 shows it per department.
    { name: 'delivery', kind: 'text', dataIndex: 'delivery', hideInSearch: true, hideInForm: true, width: 150, render: deliveryText },
    // The count and the writer are read in 预览; the table's width goes to the columns above, whole at 1440 (docs/decisions.md).
    { name: 'attachment_count', kind: 'number', dataIndex: 'attachment_count', hideInSearch: true, hideInForm: true, hideInCard: true, hideInTable: true, render: (r) => String(r.attachment_count) },
    { name: 'create_user_name', kind: 'text', dataIndex: 'create_user_name', hideInSearch: true, hideInForm: true, hideInCard: true, hideInTable: true },
    // To the minute, as 发布时间.
    { name: 'update_time', kind: 'text', dataIndex: 'update_time', hideInSearch: true, hideInForm: true, hideInCard: true, width: 150, render: (r) => r.update_time.slice(0, 16) },
    // Chosen while writing a new notice and saved with it; afterwards they are changed under 附件, which knows the state rule.
    {
      name: 'attachments',
      kind: 'custom',
      input: NewAttachmentsInput,
      hideInSearch: true,
      hideInTable: true,
      hideInCard: true,
      hideInDetail: true,
      form: { only: 'create' },
    },
  ] as FieldDef<NoticeRow>[],
  toolbar: [{ key: 'add', label: '新增通知', type: 'create', permission: 'notice:add' }],
  rowActions: [
    {
      key: 'enable',
      label: '启用',
      type: 'call',
      permission: 'notice:edit',
      visible: (r) => noticeAllows('enable', r.status),
      confirm: (r) => `启用后「${r.title}」将送达所选部门的全部用户，确定启用？`,
      ...statusCall(1),
    },
    {
      key: 'disable',
      label: '停用',
      type: 'call',
      permission: 'notice:edit',
      danger: true,
      visible: (r) => noticeAllows('disable', r.status),
      confirm: '停用后用户将不能再查看该通知及其附件，确定停用？',
      ...statusCall(2),
    },
    { key: 'preview', label: '预览', type: 'detail' },
    { key: 'edit', label: '编辑', type: 'edit', permission: 'notice:edit', visible: (r) => noticeAllows('edit', r.status) },
    { key: 'attachments', label: '附件', type: 'modal', component: NoticeAttachmentsModal },
    { key: 'delete', label: '删除', type: 'delete', permission: 'notice:edit', visible: (r) => noticeAllows('delete', r.status), path: calls.delete, body: (r) => ({ noticeId: r.notice_id }) },
  ],
  form: {
    schema: { create: noticeCreate, edit: noticeUpdate },
    create: { path: calls.save, title: '新增通知' },
    edit: { path: calls.edit, title: '编辑通知', idParam: 'noticeId' },
    initialValues: { type: 1, departList: [] },
    width: 680,
  },
  detail: { title: '通知预览', render: (r) => <NoticePreview row={r} />, width: 720 },
});
