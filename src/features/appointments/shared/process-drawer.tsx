import type { ComponentType } from 'react';
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
  const v = r[kind === 'car' ? 'car_application_id' : 'person_application_id'] ?? r.ref_id;
  return typeof v === 'number' ? v : typeof v === 'string' && v !== '' ? Number(v) : undefined;
}

function subtitleOf(kind: AppointmentKind, row: Row | undefined): string {
  if (!row) return '';
  const r = row as Record<string, unknown>;
  const app = (kind === 'car' ? r.carApplication : r.personApplication) as Record<string, unknown> | undefined;
  const src = app ?? r;
  const who = kind === 'car' ? src.license_plate : src.visitor_name;
  return [src.application_number, who].filter((v) => typeof v === 'string' && v).join(' · ');
}

export const processInfoPath = (kind: AppointmentKind) => (kind === 'car' ? '/v2/carApplications/check/process/info' : '/v2/personApplications/check/process/info');

const subjects: Record<AppointmentKind, ProcessSubject> = {
  car: { path: processInfoPath('car'), idOf: (row) => applicationIdOf('car', row), subtitle: (row) => subtitleOf('car', row) },
  person: { path: processInfoPath('person'), idOf: (row) => applicationIdOf('person', row), subtitle: (row) => subtitleOf('person', row) },
};

/** The process drawer of an appointment kind as a row-action modal. */
export const processDrawerFor = <R extends Row = Row>(kind: AppointmentKind): ComponentType<ScreenModalProps<R>> => drawerFor<R>(subjects[kind]);
