import { ProcessType } from '../../domain/appointments';

/**
 * What each process type is about: the table whose row the engine locks and
 * moves through its states, and how a notification names it. One row per kind
 * under approval (DESIGN.md §4, §7); the engine and its notifications read only this.
 */
export interface SubjectDef {
  /** In notification tags: one notification per row and kind replaces the last. */
  kind: 'person' | 'car' | 'car-list' | 'person-list' | 'registration' | 'waybill';
  table: SubjectTable;
  key: string;
  /** The column holding the spec's state (0 draft … 4 revoked): `state`, or `status` on the black/white lists. */
  stateColumn: 'state' | 'status';
  /** The column naming the park the row is about, where it has one: the reports count its instances there (migration 023). */
  areaColumn?: 'visit_area';
  /** The soft-delete flag: `is_deleted` on appointments (spec 000), `deleted` on the registers (spec 001). */
  deletedColumn: 'is_deleted' | 'deleted';
  /** '人员预约' … as the applicant's decision notification names it. */
  noun: string;
  /** Notification titles on approval and rejection. */
  decided: readonly [approved: string, rejected: string];
  /** Columns read to name the row in a notification. */
  nameColumns: readonly string[];
  name: (row: Record<string, any>) => string;
  /** How a batch decision's failure message refers to the row. */
  ref: (row: Record<string, any>) => string;
  /** The filer's own list, opened from a decision notification. */
  url: string;
}

export type SubjectTable = 'car_application' | 'person_application' | 'car_black_white_list' | 'person_black_white_list' | 'vehicle_registration' | 'transport_list';

const person: SubjectDef = {
  kind: 'person',
  table: 'person_application',
  key: 'person_application_id',
  areaColumn: 'visit_area',
  stateColumn: 'state',
  deletedColumn: 'is_deleted',
  noun: '人员预约',
  decided: ['预约已通过', '预约被驳回'],
  nameColumns: ['visitor_name', 'application_number'],
  name: (r) => `访客${r.visitor_name}（${r.application_number}）`,
  ref: (r) => `申请 ${r.application_number}`,
  url: '/appointments/person',
};
const car: SubjectDef = {
  kind: 'car',
  table: 'car_application',
  key: 'car_application_id',
  areaColumn: 'visit_area',
  stateColumn: 'state',
  deletedColumn: 'is_deleted',
  noun: '车辆预约',
  decided: ['预约已通过', '预约被驳回'],
  nameColumns: ['license_plate', 'application_number'],
  name: (r) => `${r.license_plate}（${r.application_number}）`,
  ref: (r) => `申请 ${r.application_number}`,
  url: '/appointments/car',
};
const listName = (r: Record<string, any>) => `${r.type === 1 ? '黑名单' : '白名单'}`;
const carList: SubjectDef = {
  kind: 'car-list',
  table: 'car_black_white_list',
  key: 'id',
  stateColumn: 'status',
  deletedColumn: 'deleted',
  noun: '车辆黑白名单',
  decided: ['名单已通过', '名单被驳回'],
  nameColumns: ['license_plate', 'type'],
  name: (r) => `${r.license_plate}（${listName(r)}）`,
  ref: (r) => `名单 ${r.license_plate}`,
  url: '/vehicles/car-list',
};
const personList: SubjectDef = {
  kind: 'person-list',
  table: 'person_black_white_list',
  key: 'id',
  stateColumn: 'status',
  deletedColumn: 'deleted',
  noun: '人员黑白名单',
  decided: ['名单已通过', '名单被驳回'],
  nameColumns: ['name', 'type'],
  name: (r) => `${r.name}（${listName(r)}）`,
  ref: (r) => `名单 ${r.name}`,
  url: '/vehicles/person-list',
};

const registration: SubjectDef = {
  kind: 'registration',
  table: 'vehicle_registration',
  key: 'id',
  areaColumn: 'visit_area',
  stateColumn: 'state',
  deletedColumn: 'deleted',
  noun: '车辆备案',
  decided: ['备案已通过', '备案被驳回'],
  nameColumns: ['license_plate', 'application_number'],
  name: (r) => `${r.license_plate}（${r.application_number}）`,
  ref: (r) => `备案 ${r.application_number}`,
  url: '/vehicles/registration',
};
const waybill: SubjectDef = {
  kind: 'waybill',
  table: 'transport_list',
  key: 'id',
  stateColumn: 'state',
  deletedColumn: 'deleted',
  noun: '运单',
  decided: ['运单已通过', '运单被驳回'],
  nameColumns: ['license_plate', 'application_number'],
  name: (r) => `${r.license_plate}（${r.application_number}）`,
  ref: (r) => `运单 ${r.application_number}`,
  url: '/vehicles/transport-history',
};

export const subjects: Record<number, SubjectDef> = {
  [ProcessType.PERSON]: person,
  [ProcessType.CAR]: car,
  [ProcessType.HEAVY_DUMP]: car,
  [ProcessType.BUS]: car,
  [ProcessType.CHEMICALS]: car,
  [ProcessType.CAR_LIST]: carList,
  [ProcessType.PERSON_LIST]: personList,
  [ProcessType.REGISTRATION]: registration,
  [ProcessType.WAYBILL]: waybill,
};

export const subjectByTable: Record<SubjectTable, SubjectDef> = {
  person_application: person,
  car_application: car,
  car_black_white_list: carList,
  person_black_white_list: personList,
  vehicle_registration: registration,
  transport_list: waybill,
};

export function subjectOf(processType: number): SubjectDef {
  const s = subjects[processType];
  if (!s) throw new Error(`no subject table for process type ${processType}`);
  return s;
}
