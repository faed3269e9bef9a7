import { enumLabel } from '../../../domain/enums';
import { DEFAULT_CARGO_UNIT, transportListApi, waybillPlaceLabels, TransportType, type TransportListRow } from '../../../domain/schemas/transport-list';
import type { DeclaredField } from '../../list-screen';
import { registerHistoryScreen, registerListScreen, registerQueueScreen, type RegisterScreens } from './approvable-screens';
import { DetailSections, type DetailSection } from './register-detail';

/** Transport waybills (spec 001 §2): the filer's 运单记录 with its form, the 运单总记录 and the 运单审核 queue, from one declaration. */

type R = TransportListRow;

/** Lines only the form and the detail show. */
const formOnly = { hideInSearch: true, hideInTable: true, hideInCard: true } as const;
const text = (name: keyof R & string): DeclaredField<R> => ({ name, kind: 'text', ...formOnly });

const fields: DeclaredField<R>[] = [
  { name: 'application_number', kind: 'text', width: 170, hideInForm: true },
  { name: 'transport_type', kind: 'enum', options: 'transportType', width: 80 },
  text('list_number'),
  { name: 'cargo_name', kind: 'text', hideInSearch: true, width: 120 },
  { name: 'cargo_quantity', kind: 'number', unit: DEFAULT_CARGO_UNIT, hideInSearch: true, hideInCard: true, width: 100, render: (r) => `${r.cargo_quantity} ${r.cargo_unit || DEFAULT_CARGO_UNIT}` },
  { name: 'enterprise', kind: 'text', width: 200 },
  text('unified_social_credit_code'),
  text('business_license_number'),
  text('contact_phone'),
  text('carrier'),
  text('carrier_phone'),
  { name: 'license_plate', kind: 'text', width: 110 },
  { name: 'license_plate_color', kind: 'enum', options: 'plateColor', ...formOnly },
  text('vehicle_transport_license'),
  text('trailer_license'),
  text('trailer_transport_license'),
  { name: 'tank_volume', kind: 'number', unit: 'm³', ...formOnly },
  text('driver'),
  text('driver_qualification_certificate'),
  text('driver_phone'),
  text('supercargo'),
  text('supercargo_qualification_certificate'),
  text('supercargo_phone'),
  text('shipper'),
  text('shipper_phone'),
  text('recipient'),
  text('recipient_phone'),
  text('loader'),
  text('loader_phone'),
  { name: 'shipment_date', kind: 'date', hideInSearch: true, width: 110 },
  {
    name: 'shipment_range',
    label: '起运日期',
    kind: 'dateRange',
    search: { rangeKeys: ['shipment_begin', 'shipment_end'] },
    hideInTable: true,
    hideInCard: true,
    hideInForm: true,
    hideInDetail: true,
  },
  // The form cannot relabel itself as the type changes: it says what each place is for either type (the detail relabels).
  { ...text('shipment_addr'), form: { help: `提货时为${waybillPlaceLabels(TransportType.PICK_UP).origin}，送货时为${waybillPlaceLabels(TransportType.DELIVER).origin}` } },
  { ...text('destination'), form: { help: `提货时为${waybillPlaceLabels(TransportType.PICK_UP).destination}，送货时为${waybillPlaceLabels(TransportType.DELIVER).destination}` } },
  { name: 'annex', kind: 'images', ...formOnly },
  { name: 'state', kind: 'enum', options: 'applicationState', tag: true, hideInForm: true, width: 96 },
  { name: 'revoke_reason', kind: 'text', ...formOnly, hideInForm: true, render: (r) => r.revoke_reason || '-' },
  { name: 'create_user_name', kind: 'text', hideInSearch: true, hideInForm: true, hideInCard: true, width: 96, render: (r) => r.create_user_name ?? '-' },
  { name: 'create_time', kind: 'text', hideInSearch: true, hideInForm: true, hideInCard: true, width: 170 },
];

/** Spec 001 §2: the read-only detail's four parts. */
const sections: DetailSection[] = [
  { title: '运单信息', fields: ['application_number', 'transport_type', 'list_number', 'cargo_name', 'cargo_quantity', 'state', 'revoke_reason', 'create_user_name', 'create_time'] },
  {
    title: '承运与车辆',
    fields: [
      'enterprise',
      'unified_social_credit_code',
      'business_license_number',
      'contact_phone',
      'carrier',
      'carrier_phone',
      'license_plate',
      'license_plate_color',
      'vehicle_transport_license',
      'trailer_license',
      'trailer_transport_license',
      'tank_volume',
    ],
  },
  {
    title: '人员信息',
    fields: [
      'driver',
      'driver_qualification_certificate',
      'driver_phone',
      'supercargo',
      'supercargo_qualification_certificate',
      'supercargo_phone',
      'shipper',
      'shipper_phone',
      'recipient',
      'recipient_phone',
      'loader',
      'loader_phone',
    ],
  },
  { title: '起运与附件', fields: ['shipment_date', { name: 'shipment_addr', wide: true }, { name: 'destination', wide: true }, { name: 'annex', wide: true }] },
];

/** The detail in sections, its lines the list's fields as labelled by the catalogue. */
function WaybillDetail({ row }: { row: R }) {
  // A queue's task lays its own state over the row's; the row's is then its approval_status.
  const approval = (row as R & { approval_status?: number | null }).approval_status;
  const shown = approval === undefined || approval === null ? row : { ...row, state: approval };
  const places = waybillPlaceLabels(row.transport_type);
  return (
    <DetailSections
      sections={sections}
      fields={waybillHistoryScreen.fields}
      row={shown}
      label={(name) => (name === 'shipment_addr' ? places.origin : name === 'destination' ? places.destination : undefined)}
    />
  );
}

export const waybill: RegisterScreens<R> = {
  reveal: 'transport_list',
  key: 'registers.waybill',
  title: '运单记录',
  contract: transportListApi,
  fields,
  card: { title: 'license_plate', extra: 'state' },
  stateKey: 'state',
  detail: (row) => <WaybillDetail row={row} />,
  name: (r) => r.license_plate,
  subtitle: (r) =>
    `${enumLabel('transportType', r.transport_type)} · ${r.cargo_name} ${r.cargo_quantity}${r.cargo_unit || DEFAULT_CARGO_UNIT}${r.application_number ? ` · ${r.application_number}` : ''}`,
};

export const waybillHistoryScreen = registerListScreen(waybill);
export const allWaybillHistoryScreen = registerHistoryScreen(waybill, 'all');
export const waybillQueueScreen = registerQueueScreen(waybill);
