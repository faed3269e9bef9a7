import type { ComponentType } from 'react';
import { appointmentKinds, kindCalls } from '../../../../domain/appointment-kinds';
import type { AppointmentKind } from '../../../../domain/appointments';
import { processDrawerFor as drawerFor, type ProcessSubject } from '../../../components/process/process-drawer';
import type { Row, ScreenModalProps } from '../../../list-screen';

/**
 * The application id of a row: an application row carries it under its own
 * key, an approval-queue task row as ref_id.
 */
export function applicationIdOf(kind: AppointmentKind, row: Row | undefined): number | undefined {
  if (!row) return undefined;
  const r = row as Record<string, unknown>;
  const v = r[appointmentKinds[kind].key] ?? r.ref_id;
  return typeof v === 'number' ? v : typeof v === 'string' && v !== '' ? Number(v) : undefined;
}

function subtitleOf(kind: AppointmentKind, row: Row | undefined): string {
  if (!row) return '';
  const k = appointmentKinds[kind];
  const r = row as Record<string, unknown>;
  const app = r[k.wrapper] as Record<string, unknown> | undefined;
  const src = app ?? r;
  return [src.application_number, src[k.who]].filter((v) => typeof v === 'string' && v).join(' · ');
}

const subjectOf = (kind: AppointmentKind): ProcessSubject => ({ call: kindCalls[kind].process, idOf: (row) => applicationIdOf(kind, row), subtitle: (row) => subtitleOf(kind, row) });
const subjects: Record<AppointmentKind, ProcessSubject> = { car: subjectOf('car'), person: subjectOf('person') };

/** The process drawer of an appointment kind as a row-action modal. */
export const processDrawerFor = <R extends Row = Row>(kind: AppointmentKind): ComponentType<ScreenModalProps<R>> => drawerFor<R>(subjects[kind]);
