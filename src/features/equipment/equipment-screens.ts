import { createElement } from 'react';
import { equipmentApi, equipmentLabels, type EquipmentApi, type EquipmentKind, type EquipmentRow } from '../../../domain/schemas/equipment';
import { call } from '../../lib/http';
import { defineScreen, type DeclaredField, type ScreenDef } from '../../list-screen';
import { issueKeyConfirm, issueKeyModal } from './issue-key-modal';
import './equipment.css';

/**
 * 设备管理 (spec 001 §2 Equipment lists): one declaration, seven kinds. Each
 * kind's fields and filters come from domain/schemas/equipment.ts, the same
 * table the server registers its routes from.
 */
const fieldDefs: Record<string, DeclaredField<EquipmentRow>> = {
  name: { name: 'name', kind: 'text', width: 160 },
  number: { name: 'number', kind: 'text', width: 140 },
  type: { name: 'type', kind: 'enum', options: 'gateType', width: 100 },
  entrances_type: { name: 'entrances_type', kind: 'enum', options: 'entranceType', width: 100 },
  is_security_check: { name: 'is_security_check', kind: 'yesNo', hideInSearch: true, width: 90 },
  temporary_reservation: { name: 'temporary_reservation', kind: 'yesNo', hideInSearch: true, width: 120 },
  lane_number: { name: 'lane_number', kind: 'text', hideInSearch: true, width: 100 },
  plate: { name: 'plate', kind: 'text', width: 110 },
  longitude: { name: 'longitude', kind: 'number', hideInSearch: true, hideInTable: true, width: 110 },
  latitude: { name: 'latitude', kind: 'number', hideInSearch: true, hideInTable: true, width: 110 },
};

/** What the device API sets (DESIGN.md §8): shown, never in a form. */
const deviceFields: DeclaredField<EquipmentRow>[] = [
  { name: 'state', kind: 'enum', options: 'stateEquipmentType', tag: true, hideInForm: true, width: 90, search: { default: -1 } },
  { name: 'state_update_time', kind: 'text', hideInSearch: true, hideInForm: true, width: 170, render: (r) => r.state_update_time ?? '-' },
  { name: 'key_issued_time', kind: 'text', hideInSearch: true, hideInForm: true, width: 170, render: (r) => r.key_issued_time ?? '未签发' },
];

/**
 * What a gate deciding offline last reported of its allow-list (docs/offline-gates.md): the time in the danger
 * colour once the list is older than ALLOWLIST_MAX_AGE, when the gate refuses visitors while offline.
 */
const allowlistFields: DeclaredField<EquipmentRow>[] = [
  // One column in the table (名单版本 and 名单更新时间 side by side would push the list past a 1440 px pane); the detail shows each.
  {
    name: 'allowlist_time',
    label: '离线名单',
    kind: 'text',
    hideInSearch: true,
    hideInForm: true,
    hideInDetail: true,
    width: 190,
    render: (r) =>
      r.allowlist_time === null
        ? '-'
        : createElement(
            'span',
            r.allowlist_stale ? { className: 'eq-list-stale', title: '名单已过期：设备离线时将拒绝访客入园' } : {},
            `第${r.allowlist_version ?? '-'}版 · ${r.allowlist_time}${r.allowlist_stale ? '（已过期）' : ''}`,
          ),
  },
  {
    name: 'allowlist_version',
    kind: 'text',
    hideInSearch: true,
    hideInForm: true,
    hideInTable: true,
    hideInCard: true,
    render: (r) => (r.allowlist_version === null ? '-' : String(r.allowlist_version)),
  },
  {
    name: 'allowlist_time_detail',
    dataIndex: 'allowlist_time',
    label: '名单更新时间',
    kind: 'text',
    hideInSearch: true,
    hideInForm: true,
    hideInTable: true,
    hideInCard: true,
    render: (r) => (r.allowlist_time === null ? '-' : r.allowlist_stale ? createElement('span', { className: 'eq-list-stale' }, `${r.allowlist_time}（已过期）`) : r.allowlist_time),
  },
];

function equipmentScreen(api: EquipmentApi): ScreenDef<EquipmentRow> {
  const { kind: k, calls, schemas } = api;
  const shown = (name: string) => k.filters.includes(name as never);
  // Only gates decide crossings, so only they hold an allow-list.
  const fields = [...k.fields.map((f) => fieldDefs[f]!), ...deviceFields, ...(k.kind === 'gate' ? allowlistFields : [])].map((f) => ({ ...f, hideInSearch: f.hideInSearch || !shown(f.name) }));
  return defineScreen<EquipmentRow>({
    key: `equipment.${k.kind}`,
    title: k.title,
    labels: equipmentLabels,
    list: { path: calls.list, permission: `${k.codes}:list` },
    rowKey: 'id',
    card: { title: 'name', extra: 'state' },
    fields,
    toolbar: [{ key: 'add', label: '新增', type: 'create', permission: `${k.codes}:add` }],
    // Coordinates are in the detail, not the table: the device state columns fit a desktop without scrolling.
    rowActions: [
      { key: 'detail', label: '详情', type: 'detail' },
      { key: 'edit', label: '编辑', type: 'edit', permission: `${k.codes}:edit` },
      // Issuing a key changes the device: its edit code's, as the server's issueKey route says.
      { key: 'issueKey', label: '接入密钥', type: 'modal', permission: `${k.codes}:edit`, confirm: issueKeyConfirm, component: issueKeyModal(api.issueKey) },
      { key: 'delete', label: '删除', type: 'delete', permission: `${k.codes}:delete`, path: calls.delete, body: (r) => ({ id: r.id }) },
    ],
    form: {
      schema: { create: schemas.create!, edit: schemas.update! },
      create: { path: calls.save, title: `新增${k.title}` },
      edit: { path: calls.edit, title: `编辑${k.title}`, idParam: 'id' },
    },
    detail: { title: `${k.title}详情`, fetch: (r) => call(calls.detail, { id: r.id }) },
  });
}

export const equipmentScreens = Object.fromEntries(Object.entries(equipmentApi).map(([kind, api]) => [kind, equipmentScreen(api)])) as Record<EquipmentKind, ScreenDef<EquipmentRow>>;
