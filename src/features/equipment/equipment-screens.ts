import { equipmentApi, equipmentLabels, type EquipmentApi, type EquipmentKind, type EquipmentRow } from '../../../domain/schemas/equipment';
import { call } from '../../lib/http';
import { defineScreen, type DeclaredField, type ScreenDef } from '../../list-screen';
import { issueKeyConfirm, issueKeyModal } from './issue-key-modal';

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

function equipmentScreen(api: EquipmentApi): ScreenDef<EquipmentRow> {
  const { kind: k, calls, schemas } = api;
  const shown = (name: string) => k.filters.includes(name as never);
  const fields = [...k.fields.map((f) => fieldDefs[f]!), ...deviceFields].map((f) => ({ ...f, hideInSearch: f.hideInSearch || !shown(f.name) }));
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
