import { strandedKinds, type StrandedKind } from '../../../domain/schemas/stranded';
import { outboxStore, type OutboxItem, type OutboxSnapshot } from '../../lib/outbox';

/** What differs between the person and the vehicle alarms: their declaration in domain/schemas/stranded.ts, which the server reads too. */
export const alarmKinds = strandedKinds;

/** The handling of this alarm that waits in the outbox (made offline, or still being sent), if any. */
export function waitingDeal(kind: StrandedKind, id: number, s: OutboxSnapshot = outboxStore.get()): OutboxItem | undefined {
  return s.waiting.find((i) => i.kind === 'alarmDeal' && i.meta?.alarmKind === kind && Number(i.meta?.alarmId) === id);
}
