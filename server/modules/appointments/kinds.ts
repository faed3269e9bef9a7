import { appointmentKinds, exportTitleOf, type AppointmentKindDecl } from '../../../domain/appointment-kinds';
import type { AppointmentKind } from '../../../domain/appointments';
import type { EnumName } from '../../../domain/enums';
import type { AnySelect } from '../../core/repository';
import type { UnderApproval } from '../../workflow/subject-actions';

/** A column's header is its field's label in the kind's catalogue, unless the spec's export names it otherwise. */
export type ExportColumn = {
  /** Code table whose label replaces the stored value. */
  table?: EnumName;
  width?: number;
} & ({ value: string; header?: string } | { value: (row: Record<string, any>) => unknown; header: string });

/**
 * A kind as the server reads it: the domain declaration (domain/appointment-kinds.ts:
 * prefix, key, fields, codes, labels, bodies) plus what only the server knows: the
 * table, the SQL filters and the export.
 */
export type KindDef = AppointmentKindDecl &
  UnderApproval & {
    table: 'car_application' | 'person_application';
    /** Text filters matched as "contains"; upper-cased where the column is stored upper-case. */
    textFilters: Array<{ field: string; upper?: boolean }>;
    /** Integer filters matched exactly (absent or -1 means all). */
    intFilters: string[];
    /** JSON text columns, read back as objects. */
    jsonColumns: readonly string[];
    /** Joins the names a row shows beside its ids that only this kind has (a vehicle's model name). */
    joinNames: (q: AnySelect) => AnySelect;
    /** Whether the detail carries the drivers and passengers (carPersonList). */
    detailPersons: boolean;
    /** The all-history export: file title and columns. */
    exportTitle: string;
    exportColumns: ExportColumn[];
  };

const common = {
  state: { value: 'state', table: 'applicationState', width: 10 },
  delayed: { value: 'is_delayed', table: 'delayed', width: 8 },
  dept: { value: 'interviewee_depart_name', width: 24 },
  area: { value: 'visit_area', table: 'visitArea', width: 12 },
} satisfies Record<string, ExportColumn>;

export const kinds: Record<AppointmentKind, KindDef> = {
  car: {
    ...appointmentKinds.car,
    table: 'car_application',
    jsonColumns: ['dump_truck_file', 'cargo_info'],
    joinNames: (q) => q.leftJoin('vehicle_type as vt', 'vt.id', 'a.vehicle_type_id').select('vt.name as vehicle_type_name'),
    detailPersons: true,
    textFilters: [
      { field: 'application_number', upper: true },
      { field: 'license_plate', upper: true },
      { field: 'applicant_name' },
      { field: 'applicant_phone' },
      { field: 'applicant_idcard', upper: true },
      { field: 'visitor_company' },
      { field: 'interviewee_name' },
      { field: 'interviewee_phone' },
    ],
    intFilters: ['visit_area', 'state', 'visitor_type', 'is_delayed'],
    exportTitle: exportTitleOf('car'),
    exportColumns: [
      { value: 'application_number', width: 20 },
      { value: 'license_plate', width: 12 },
      { value: 'license_plate_color', table: 'plateColor', width: 10 },
      { value: 'vehicle_type_name', width: 16 },
      { value: 'applicant_name', width: 12 },
      { value: 'visitor_idcard_type', table: 'idcardType', width: 18 },
      { value: 'applicant_idcard', width: 22 },
      { value: 'applicant_gender', table: 'gender', width: 6 },
      { value: 'applicant_phone', width: 14 },
      common.area,
      { value: 'visitor_type', table: 'carVisitorType', width: 10 },
      { value: 'visitor_company', width: 28 },
      { value: 'visitor_content', width: 30 },
      { value: 'visitor_begin_time', width: 20 },
      { value: 'visitor_end_time', width: 20 },
      { value: 'interviewee_name', width: 12 },
      { value: 'interviewee_phone', width: 14 },
      common.dept,
      common.state,
      { header: '货物类型', value: (r) => (r.cargo_type === 1 ? '危险货物' : r.cargo_type === 0 ? '普通货物' : ''), width: 10 },
      { value: 'cargo_name', width: 16 },
      { header: '载重（吨）', value: 'car_load', width: 10 },
      common.delayed,
      { value: 'delay_reason', width: 24 },
      { value: 'label_status', table: 'yesNo', width: 8 },
      { value: 'label_remark', width: 24 },
      { value: 'in_black_list', table: 'yesNo', width: 10 },
      { value: 'revoke_reason', width: 24 },
      { value: 'create_time', width: 20 },
    ],
  },
  person: {
    ...appointmentKinds.person,
    table: 'person_application',
    jsonColumns: [],
    joinNames: (q) => q,
    detailPersons: false,
    textFilters: [
      { field: 'application_number', upper: true },
      { field: 'visitor_name' },
      { field: 'visitor_company' },
      { field: 'visitor_idcard', upper: true },
      { field: 'visitor_phone' },
      { field: 'interviewee_name' },
      { field: 'interviewee_phone' },
    ],
    intFilters: ['interviewee_depart_id', 'visit_area', 'state', 'visitor_type', 'is_delayed'],
    exportTitle: exportTitleOf('person'),
    exportColumns: [
      { value: 'application_number', width: 20 },
      { value: 'visitor_name', width: 12 },
      { value: 'visitor_gender', table: 'gender', width: 6 },
      { value: 'visitor_nation', width: 8 },
      { value: 'visitor_phone', width: 14 },
      { value: 'visitor_company', width: 28 },
      { value: 'visitor_address', width: 28 },
      { value: 'visitor_type', table: 'personVisitorType', width: 10 },
      { value: 'visitor_idcard_type', table: 'idcardType', width: 18 },
      { value: 'visitor_idcard', width: 22 },
      { value: 'visit_content', width: 30 },
      { value: 'visit_begin_time', width: 20 },
      { value: 'visit_end_time', width: 20 },
      common.area,
      { value: 'interviewee_name', width: 12 },
      { value: 'interviewee_phone', width: 14 },
      common.dept,
      common.state,
      common.delayed,
      { value: 'delay_reason', width: 24 },
      { value: 'in_black_list', table: 'yesNo', width: 10 },
      { value: 'revoke_reason', width: 24 },
      { value: 'create_time', width: 20 },
    ],
  },
};

export const kindList: KindDef[] = [kinds.car, kinds.person];
