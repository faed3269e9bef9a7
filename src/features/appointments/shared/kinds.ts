import { appointmentCodes, type AppointmentKind } from '../../../../domain/appointments';
import { formatInZone } from '../../../../domain/time';

/**
 * What differs between the two appointment kinds on the wire (spec 000 §7):
 * the path prefix, the v2 save/edit paths, the key column, the visit-time
 * field names and the permission codes.
 */
export interface KindInfo<K extends AppointmentKind = AppointmentKind> {
  kind: K;
  /** '人员预约' / '车辆预约', for titles. */
  name: string;
  /** Prefix of list, detail, get, delete, push, revoke, delay… */
  prefix: string;
  savePath: string;
  editPath: string;
  /** Key column of the row, also the id field of the edit body. */
  key: K extends 'car' ? 'car_application_id' : 'person_application_id';
  /** Visit-time fields (delay body, form): visitor_… for cars, visit_… for persons. */
  begin: K extends 'car' ? 'visitor_begin_time' : 'visit_begin_time';
  end: K extends 'car' ? 'visitor_end_time' : 'visit_end_time';
  codes: (typeof appointmentCodes)[K];
}

export const carKind: KindInfo<'car'> = {
  kind: 'car',
  name: '车辆预约',
  prefix: '/carApplications',
  savePath: '/v2/carApplications/save',
  editPath: '/v2/carApplications/edit',
  key: 'car_application_id',
  begin: 'visitor_begin_time',
  end: 'visitor_end_time',
  codes: appointmentCodes.car,
};

export const personKind: KindInfo<'person'> = {
  kind: 'person',
  name: '人员预约',
  prefix: '/personApplications',
  savePath: '/v2/personApplications/save',
  editPath: '/v2/personApplications/edit',
  key: 'person_application_id',
  begin: 'visit_begin_time',
  end: 'visit_end_time',
  codes: appointmentCodes.person,
};

export const kinds = { car: carKind, person: personKind } as const;

/** The row's id whatever its kind. */
export function rowId(kind: AppointmentKind, row: object): number {
  return Number((row as Record<string, unknown>)[kinds[kind].key]);
}

/** Today in park time, 'YYYY-MM-DD HH:mm:ss': the visit rules take it so a phone in another zone judges days as the server does. */
export const parkNow = () => formatInZone(new Date());

/** A visit time as lists show it: the day alone when it is the whole day's edge, else to the minute. */
export function visitTimeText(v: string | null | undefined, edge: 'begin' | 'end'): string {
  if (!v) return '?';
  const whole = edge === 'begin' ? / 00:00(:00)?$/ : / 23:59(:59)?$/;
  return whole.test(v) || v.length <= 10 ? v.slice(0, 10) : v.slice(0, 16);
}

/** A visit's validity as the list shows it. */
export function visitRange(begin: string | null | undefined, end: string | null | undefined): string {
  if (!begin && !end) return '-';
  return `${visitTimeText(begin, 'begin')} 至 ${visitTimeText(end, 'end')}`;
}
