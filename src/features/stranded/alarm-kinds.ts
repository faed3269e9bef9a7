import { alarmLists, type AlarmList } from '../../../domain/schemas/stranded';
import { outboxStore, type OutboxItem, type OutboxSnapshot } from '../../lib/outbox';

/** What differs between the alarm lists (vehicle and person stranded, route deviations): their declaration in domain/stranded-kinds.ts, which the server reads too. */
export const alarmKinds = alarmLists;

/** The handling of this alarm that waits in the outbox (made offline, or still being sent), if any; items name their list as `alarmKind`. */
export function waitingDeal(list: AlarmList, id: number, s: OutboxSnapshot = outboxStore.get()): OutboxItem | undefined {
  return s.waiting.find((i) => i.kind === 'alarmDeal' && i.meta?.alarmKind === list && Number(i.meta?.alarmId) === id);
}
