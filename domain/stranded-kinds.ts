/**
 * What differs between the vehicle and the person stranded alarms (spec 001
 * §2), and the route-deviation alarms beside them, free of the schemas
 * (domain/schemas/stranded.ts re-exports it), so the home screen's open
 * alarms need no zod on its first load.
 */
import type { PermissionCode } from './permissions';
import type { StrandedAlarmRow } from './schemas/stranded';

export const STRANDED_KINDS = ['car', 'person'] as const;
export type StrandedKind = (typeof STRANDED_KINDS)[number];

/**
 * Why an alarm was raised (stranded_alarm.level_type, 告警类型; domain/enums.ts
 * `strandedLevel` names them): the stay outlasted the visit, or the model's
 * dwell limit; a black-listed subject came in; a visiting vehicle crossed a
 * gate off its department's published route (a vehicle alarm of its own list);
 * a hazardous-goods vehicle was refused at a gate for want of a waybill
 * (listed with the vehicle alarms, docs/decisions.md).
 */
export const AlarmLevel = { VISIT_END: 1, DWELL_LIMIT: 2, BLACK_LISTED: 3, ROUTE_DEVIATION: 4, HAZMAT_NO_WAYBILL: 5 } as const;

/**
 * The alarm lists: 车辆滞留告警 and 人员滞留告警 (every alarm of their kind but
 * the route deviations), and 偏离路线告警 (vehicle alarms of level ROUTE_DEVIATION).
 * One table holds them all, so "open alarms" anywhere is its rows not handled yet.
 */
export const ALARM_LISTS = ['car', 'person', 'deviation'] as const;
export type AlarmList = (typeof ALARM_LISTS)[number];

/** What an alarm shows of its subject: the stored columns that name it. */
type Subject = Pick<StrandedAlarmRow, 'license_plate' | 'person_name' | 'idcard'>;

/**
 * What differs between the alarm lists, declared once for the server
 * (routes, detection, notification) and the screens: paths, codes, nouns,
 * the column the stay's subject is stored in, and how an alarm names it.
 */
export interface StrandedKindDecl {
  /** The list (ALARM_LISTS): the outbox names a waiting handling's list by it. */
  key: AlarmList;
  /** The alarms' kind column: whose stay or crossing it is. */
  kind: StrandedKind;
  /** Whether the list holds the route deviations of its kind, or every other alarm of it. */
  deviation: boolean;
  /** '车辆滞留告警': the screen's title, messages and operation names. */
  noun: string;
  /** '车辆' / '人员': the subject's word in texts (黑名单车辆入园, 人员滞留超时). */
  word: string;
  base: string;
  list: PermissionCode;
  deal: PermissionCode;
  /** The client's alarm screen (src/app/screens.tsx): notifications and the home link an alarm there (?open=<id>). */
  screen: string;
  /** The alarm column a stay's subject (plate or ID number) is stored in; the other stays ''. */
  subjectColumn: 'license_plate' | 'idcard';
  /** How an alarm names its subject: the plate, or the person's name (the ID number when the gate read no name). */
  subject: (row: Subject) => string;
}

export const strandedKinds: Record<StrandedKind, StrandedKindDecl> = {
  car: {
    key: 'car',
    kind: 'car',
    deviation: false,
    noun: '车辆滞留告警',
    word: '车辆',
    base: '/car/stranded',
    list: 'strandedManagementCar:list',
    deal: 'strandedManagementCar:deal',
    screen: '/security/stranded-car',
    subjectColumn: 'license_plate',
    subject: (r) => r.license_plate,
  },
  person: {
    key: 'person',
    kind: 'person',
    deviation: false,
    noun: '人员滞留告警',
    word: '人员',
    base: '/person/stranded',
    list: 'strandedManagementPerson:list',
    deal: 'strandedManagementPerson:deal',
    screen: '/security/stranded-person',
    subjectColumn: 'idcard',
    subject: (r) => r.person_name || r.idcard,
  },
};

/**
 * 偏离路线告警: one alarm per vehicle visit, raised at its first crossing off
 * the route and holding every later one (server/modules/driving-routes/deviation.ts).
 * Read and handled with the vehicle alarms' codes, as the lead who handles
 * vehicles stranded handles vehicles astray.
 */
export const routeDeviationAlarms: StrandedKindDecl = {
  key: 'deviation',
  kind: 'car',
  deviation: true,
  noun: '偏离路线告警',
  word: '车辆',
  base: '/car/routeDeviation',
  list: 'strandedManagementCar:list',
  deal: 'strandedManagementCar:deal',
  screen: '/security/route-deviation',
  subjectColumn: 'license_plate',
  subject: (r) => r.license_plate,
};

export const alarmLists: Record<AlarmList, StrandedKindDecl> = { ...strandedKinds, deviation: routeDeviationAlarms };

/** The list an alarm belongs to, by its kind and level. */
export const alarmListOf = (row: { kind: StrandedKind; level_type: number }): AlarmList => (row.level_type === AlarmLevel.ROUTE_DEVIATION ? 'deviation' : row.kind);
