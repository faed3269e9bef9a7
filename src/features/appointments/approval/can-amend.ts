import { appointmentKinds } from '../../../../domain/appointment-kinds';
import type { AppointmentKind } from '../../../../domain/appointments';
import type { TaskRow } from './task-row';

/** Cache key of one row's can-amend answer; the amend modal invalidates it after a change. */
export const canAmendKey = (kind: AppointmentKind, row: Pick<TaskRow, 'ref_id' | 'process_instance_id'>) => ['approval', 'canAmend', kind, row.ref_id, row.process_instance_id] as const;

/** The kind's canAmend body (spec 000 §7): the application under its key, and the instance. */
export const canAmendBody = (kind: AppointmentKind, row: Pick<TaskRow, 'ref_id' | 'process_instance_id'>) => ({
  [appointmentKinds[kind].key]: row.ref_id,
  process_instance_id: row.process_instance_id,
});
