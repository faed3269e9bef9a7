import { ALL } from '../../../domain/enums';
import { GATE_RECORD_CODES, deviatedOptions, gateRecordApi, hazmatOptions, gateRecordLabels, type GateRecordCarRow, type GateRecordPersonRow } from '../../../domain/schemas/gate-record';
import type { Call } from '../../../domain/contract';
import { formatInZone } from '../../../domain/time';
import { dateOf } from '../../../domain/visit-rules';
import type { PermissionCode } from '../../../domain/permissions';
import type { RevealRecord } from '../../../domain/schemas/pii';
import { defineScreen, type DeclaredField } from '../../list-screen';
import { GateSelect } from './gate-select';

/**
 * 车辆过闸记录 and 人员过闸记录 (spec 001 §2 Gate crossing records): what the
 * park's devices report through the device API, read only, newest first.
 * Both lists cover a day, today in park time unless the filter says
 * otherwise (the server answers today too when no day is sent).
 */

/** Today in park time, read whenever the filters are (re)set, so a screen left open overnight starts at the new day. */
const today = () => dateOf(formatInZone(new Date()));
const dash = (v: string | null | undefined) => v || '-';

type Shared = GateRecordCarRow | GateRecordPersonRow;
const deviceName = <R extends Shared>(width: number): DeclaredField<R> => ({ name: 'device_name', kind: 'text', hideInSearch: true, width, render: (r) => dash(r.device_name) });
const openResult = <R extends Shared>(): DeclaredField<R> => ({
  name: 'openResult',
  dataIndex: 'open_result',
  kind: 'enum',
  options: 'gateOpenResult',
  tag: true,
  width: 84,
  search: { default: ALL },
});
const captureTime = <R extends Shared>(): DeclaredField<R> => ({ name: 'capture_time', kind: 'text', hideInSearch: true, width: 166 });

/** A records list: read only, a row opens as its detail (the images as thumbnails): a phone card by a tap, a desktop row by its 详情 button. */
const recordsScreen = <R extends Shared>(s: {
  key: string;
  title: string;
  call: Call;
  permission: PermissionCode;
  card: { title: string; extra: string };
  fields: DeclaredField<R>[];
  reveal?: RevealRecord;
}) =>
  defineScreen<R>({
    key: `gate-records.${s.key}`,
    title: s.title,
    labels: gateRecordLabels,
    list: { path: s.call, permission: s.permission },
    rowKey: 'id',
    ...(s.reveal ? { reveal: s.reveal } : {}),
    card: s.card,
    fields: s.fields,
    detail: { title: `${s.title}详情` },
    rowActions: [{ key: 'detail', label: '详情', type: 'detail' }],
  });

export const vehicleGateRecordsScreen = recordsScreen<GateRecordCarRow>({
  key: 'vehicle',
  title: '车辆过闸记录',
  call: gateRecordApi.car,
  permission: GATE_RECORD_CODES.car,
  card: { title: 'license_plate', extra: 'direction' },
  fields: [
    { name: 'licensePlate', dataIndex: 'license_plate', kind: 'text', width: 100, fixed: 'left', search: { placeholder: '完整车牌或其中几位' } },
    { name: 'plate_image', kind: 'images', hideInSearch: true, width: 80 },
    { name: 'vehicle_image', kind: 'images', hideInSearch: true, hideInTable: true, hideInCard: true },
    { name: 'vehicle_brand', kind: 'text', hideInSearch: true, hideInCard: true, width: 90, render: (r) => dash(r.vehicle_brand) },
    { name: 'vehicle_type', kind: 'text', hideInSearch: true, hideInCard: true, width: 90, render: (r) => dash(r.vehicle_type) },
    { name: 'vehicleColor', dataIndex: 'vehicle_color', kind: 'enum', options: 'vehicleColor', width: 80, search: { default: ALL } },
    { name: 'license_plate_color', kind: 'enum', options: 'plateColor', hideInSearch: true, hideInTable: true, hideInCard: true },
    { name: 'direction', kind: 'enum', options: 'gateDirection', tag: true, width: 84, search: { default: ALL } },
    { name: 'deviceId', kind: 'custom', input: GateSelect, hideInTable: true, hideInCard: true, hideInDetail: true, search: { default: ALL } },
    deviceName<GateRecordCarRow>(120),
    openResult<GateRecordCarRow>(),
    // 偏离路线 (issue 27): at a gate off the route of the visit's department.
    { name: 'deviated', kind: 'enum', options: deviatedOptions, tag: true, width: 96, search: { default: ALL } },
    // 危化品: the visit's model is hazardous; its crossing shows the waybill that covered the day (empty: none).
    // One column for both in the table, so the list still fits a 1440 px pane; the detail shows each.
    { name: 'hazmat', kind: 'enum', options: hazmatOptions, width: 140, search: { default: ALL }, render: (r) => (r.hazmat ? (r.waybill_number ? `运单 ${r.waybill_number}` : '无有效运单') : '否') },
    { name: 'waybill_number', kind: 'text', hideInSearch: true, hideInTable: true, render: (r) => (r.hazmat ? r.waybill_number || '无有效运单' : '-') },
    { name: 'vehicle_compare_result', kind: 'enum', options: 'compareResult', hideInSearch: true, hideInCard: true, width: 104 },
    { name: 'face_compare_result', kind: 'enum', options: 'compareResult', hideInSearch: true, hideInCard: true, width: 104 },
    // A getter: the default is read each time the filters start or are reset.
    {
      name: 'date',
      kind: 'date',
      hideInTable: true,
      hideInCard: true,
      hideInDetail: true,
      search: {
        get default() {
          return today();
        },
      },
    },
    captureTime<GateRecordCarRow>(),
  ],
});

export const personGateRecordsScreen = recordsScreen<GateRecordPersonRow>({
  key: 'person',
  title: '人员过闸记录',
  call: gateRecordApi.person,
  permission: GATE_RECORD_CODES.person,
  reveal: 'gate_record_person',
  card: { title: 'person_name', extra: 'person_event_type' },
  fields: [
    { name: 'date', kind: 'text', dataIndex: 'capture_time', hideInSearch: true, hideInCard: true, hideInDetail: true, width: 110, render: (r) => dateOf(r.capture_time) },
    { name: 'personName', dataIndex: 'person_name', kind: 'text', width: 90, render: (r) => dash(r.person_name) },
    { name: 'idCard', dataIndex: 'paper_number', revealColumn: 'idcard', kind: 'text', width: 156, search: { placeholder: '完整证件号码或其中几位' } },
    { name: 'image_type', kind: 'enum', options: 'gateImageType', hideInSearch: true, hideInCard: true, width: 84 },
    { name: 'card_status', kind: 'enum', options: 'gateCardStatus', tag: true, hideInSearch: true, hideInCard: true, width: 70 },
    { name: 'card_number', kind: 'text', hideInSearch: true, hideInCard: true, width: 90, render: (r) => dash(r.card_number) },
    { name: 'person_event_type', kind: 'enum', options: 'gateDirection', tag: true, hideInSearch: true, width: 84 },
    deviceName<GateRecordPersonRow>(100),
    openResult<GateRecordPersonRow>(),
    { name: 'snapshot', kind: 'images', hideInSearch: true, width: 72 },
    captureTime<GateRecordPersonRow>(),
    // The spec's startDate and endDate, last among the filters as the spec lists them; both today at first.
    {
      name: 'dates',
      label: gateRecordLabels.date,
      kind: 'dateRange',
      hideInTable: true,
      hideInCard: true,
      hideInDetail: true,
      search: {
        rangeKeys: ['startDate', 'endDate'],
        get default() {
          return [today(), today()];
        },
      },
    },
  ],
});
