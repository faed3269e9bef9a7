/**
 * What differs between the vehicle and the person stranded alarms (spec 001
 * §2), free of the schemas (domain/schemas/stranded.ts re-exports it), so the
 * home screen's open alarms need no zod on its first load.
 */
import type { PermissionCode } from './permissions';
import type { StrandedAlarmRow } from './schemas/stranded';

export const STRANDED_KINDS = ['car', 'person'] as const;
export type StrandedKind = (typeof STRANDED_KINDS)[number];

/** What an alarm shows of its subject: the stored columns that name it. */
type Subject = Pick<StrandedAlarmRow, 'license_plate' | 'person_name' | 'idcard'>;

/**
 * What differs between the vehicle and the person alarms, declared once for
 * the server (routes, detection, notification) and the screens: paths, codes,
 * nouns, the column the stay's subject is stored in, and how an alarm names it.
 */
export interface StrandedKindDecl {
  kind: StrandedKind;
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
    kind: 'car',
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
    kind: 'person',
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
