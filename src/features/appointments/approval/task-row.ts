import { AppState, TaskState, type AppointmentKind } from '../../../../domain/appointments';
import type { TaskRow } from '../../../../domain/schemas/approval-task';
import type { CarApplicationRow } from '../../../../domain/schemas/car-application';
import type { PersonApplicationRow } from '../../../../domain/schemas/person-application';

export type { TaskRow };

export const carOf = (row: TaskRow): Partial<CarApplicationRow> => row.carApplication ?? {};
export const personOf = (row: TaskRow): Partial<PersonApplicationRow> => row.personApplication ?? {};

/**
 * Spec 000 §4: review needs the check code and, for vehicle queues, the task
 * row's state 0 (pending); for person queues the application's state 1 (under review).
 */
export function reviewable(kind: AppointmentKind, row: TaskRow): boolean {
  if (kind === 'car') return row.state === TaskState.PENDING;
  return (row.personApplication?.state ?? AppState.REVIEW) === AppState.REVIEW && row.state === TaskState.PENDING;
}

/** The visit window of the embedded application, as [begin, end]. */
export function visitRange(kind: AppointmentKind, row: TaskRow): [string | undefined, string | undefined] {
  if (kind === 'car') return [row.carApplication?.visitor_begin_time, row.carApplication?.visitor_end_time];
  return [row.personApplication?.visit_begin_time, row.personApplication?.visit_end_time];
}

/** One line naming the application: plate or visitor, for batch lists and headings. */
export function taskTitle(kind: AppointmentKind, row: TaskRow): string {
  if (kind === 'car') return row.carApplication?.license_plate || row.carApplication?.application_number || `#${row.ref_id}`;
  return row.personApplication?.visitor_name || row.personApplication?.application_number || `#${row.ref_id}`;
}

export function taskSubtitle(kind: AppointmentKind, row: TaskRow): string {
  const a = kind === 'car' ? row.carApplication : row.personApplication;
  return [a?.visitor_company, a?.application_number].filter(Boolean).join(' · ');
}
