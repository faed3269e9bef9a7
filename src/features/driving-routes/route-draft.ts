import { splitIds, type DrivingRouteRow } from '../../../domain/schemas/driving-route';

/**
 * The route form's 行车路线 value: the line (the serialized path the server
 * takes) and the points it passes, edited together, since drawing the line
 * picks the gates it passes (route-path-input.tsx).
 */
export interface RouteDraft {
  path: string;
  locationIds: number[];
}

export function routeDraftOf(value: unknown): RouteDraft {
  if (value && typeof value === 'object' && 'path' in value) return value as RouteDraft;
  return { path: typeof value === 'string' ? value : '', locationIds: [] };
}

/** A route as the form edits it. */
export const routeFormValues = (row: DrivingRouteRow) => ({ name: row.name, publish: row.publish, path: { path: row.path, locationIds: splitIds(row.location_id) } satisfies RouteDraft });

/** The form's values as /drivingRoute/save and /update take them: path and locationIds side by side. */
export function routeFormBody(values: Record<string, unknown>): Record<string, unknown> {
  const draft = routeDraftOf(values.path);
  return { ...values, path: draft.path, locationIds: draft.locationIds };
}
