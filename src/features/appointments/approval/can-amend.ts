import type { AppointmentKind } from '../../../../domain/appointments';
import type { TaskRow } from './task-row';

/** Cache key of one row's can-amend answer; the amend modal invalidates it after a change. */
export const canAmendKey = (kind: AppointmentKind, row: Pick<TaskRow, 'ref_id' | 'process_instance_id'>) => ['approval', 'canAmend', kind, row.ref_id, row.process_instance_id] as const;

/** POST {prefix}/canAmend body (spec 000 §7). */
export const canAmendBody = (kind: AppointmentKind, row: Pick<TaskRow, 'ref_id' | 'process_instance_id'>) =>
  kind === 'car' ? { car_application_id: row.ref_id, process_instance_id: row.process_instance_id } : { person_application_id: row.ref_id, process_instance_id: row.process_instance_id };
