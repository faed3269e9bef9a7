import { appointmentKinds } from '../../../../domain/appointment-kinds';
import { AppState, TaskState, type AppointmentKind } from '../../../../domain/appointments';
import type { TaskRow } from '../../../../domain/schemas/approval-task';
import type { CarApplicationRow } from '../../../../domain/schemas/car-application';
import type { PersonApplicationRow } from '../../../../domain/schemas/person-application';

export type { TaskRow };

export const carOf = (row: TaskRow): Partial<CarApplicationRow> => row.carApplication ?? {};
export const personOf = (row: TaskRow): Partial<PersonApplicationRow> => row.personApplication ?? {};

/** The application a task row wraps, under its kind's wrapper key. */
const wrapped = (kind: AppointmentKind, row: TaskRow) => row[appointmentKinds[kind].wrapper] as Record<string, unknown> | undefined;
const text = (v: unknown) => (typeof v === 'string' ? v : undefined);

/**
 * Spec 000 §4: review needs the check code and the task row's state 0
 * (pending); person queues also need the application's state 1 (under review).
 */
export function reviewable(kind: AppointmentKind, row: TaskRow): boolean {
  const rowInReview = !appointmentKinds[kind].reviewNeedsRowInReview || ((wrapped(kind, row)?.state as number | undefined) ?? AppState.REVIEW) === AppState.REVIEW;
  return rowInReview && row.state === TaskState.PENDING;
}

/** The visit window of the embedded application, as [begin, end]. */
export function visitRange(kind: AppointmentKind, row: TaskRow): [string | undefined, string | undefined] {
  const k = appointmentKinds[kind];
  const a = wrapped(kind, row);
  return [text(a?.[k.begin]), text(a?.[k.end])];
}

/** One line naming the application: plate or visitor, for batch lists and headings. */
export function taskTitle(kind: AppointmentKind, row: TaskRow): string {
  const a = wrapped(kind, row);
  return text(a?.[appointmentKinds[kind].who]) || text(a?.application_number) || `#${row.ref_id}`;
}

export function taskSubtitle(kind: AppointmentKind, row: TaskRow): string {
  const a = wrapped(kind, row);
  return [a?.visitor_company, a?.application_number].filter(Boolean).join(' · ');
}
