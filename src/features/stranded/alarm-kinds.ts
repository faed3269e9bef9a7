import type { PermissionCode } from '../../../domain/permissions';
import type { StrandedAlarmRow, StrandedKind } from '../../../domain/schemas/stranded';
import { outboxStore, type OutboxItem, type OutboxSnapshot } from '../../lib/outbox';

/** What differs between the person and the vehicle alarms (server/modules/stranded/routes.ts holds the same paths and codes). */
export interface AlarmKind {
  kind: StrandedKind;
  noun: string;
  base: string;
  list: PermissionCode;
  deal: PermissionCode;
  /** How an alarm names its subject: the plate, or the person's name (the ID number when the gate read no name). */
  subject: (row: StrandedAlarmRow) => string;
}

export const alarmKinds: Record<StrandedKind, AlarmKind> = {
  car: {
    kind: 'car',
    noun: '车辆滞留告警',
    base: '/car/stranded',
    list: 'strandedManagementCar:list',
    deal: 'strandedManagementCar:deal',
    subject: (r) => r.license_plate,
  },
  person: {
    kind: 'person',
    noun: '人员滞留告警',
    base: '/person/stranded',
    list: 'strandedManagementPerson:list',
    deal: 'strandedManagementPerson:deal',
    subject: (r) => r.person_name || r.idcard,
  },
};

/** The handling of this alarm that waits in the outbox (made offline, or still being sent), if any. */
export function waitingDeal(kind: StrandedKind, id: number, s: OutboxSnapshot = outboxStore.get()): OutboxItem | undefined {
  return s.waiting.find((i) => i.kind === 'alarmDeal' && i.meta?.alarmKind === kind && Number(i.meta?.alarmId) === id);
}
