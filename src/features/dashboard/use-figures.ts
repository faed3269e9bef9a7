import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { boardApi } from '../../../domain/schemas/board';
import { call } from '../../lib/http';
import { FIGURES_POLL_MS, figuresKey } from '../../lib/live-figures';
import { offlineStamp } from '../../lib/offline-reads';

/**
 * The dashboard's figures: each panel one board call, under figuresKey so the
 * notification stream's `figures` event refetches them within a second of a
 * crossing, decision or alarm, with the spec's 60 s poll as the fallback
 * (spec 002 §9). A refetch keeps the figures on screen until the new ones
 * arrive (keepPreviousData), including when a chart's toggle changes its type.
 * The key's second part, 'dashboard', is what query-persistence.ts keeps
 * across a reload, so an offline start shows the last figures.
 */
export const dashboardKey = [...figuresKey, 'dashboard'] as const;

function useFigure<T>(name: string, fetch: () => Promise<T>, extra?: number) {
  return useQuery({
    queryKey: extra === undefined ? [...dashboardKey, name] : [...dashboardKey, name, extra],
    queryFn: fetch,
    refetchInterval: FIGURES_POLL_MS,
    placeholderData: keepPreviousData,
  });
}

export function useDashboardFigures(inOutType: 1 | 2, overtimeType: 1 | 2) {
  const queries = {
    park: useFigure('parkCounts', () => call(boardApi.parkCounts)),
    devices: useFigure('deviceCounts', () => call(boardApi.deviceCounts)),
    other: useFigure('todayOtherCounts', () => call(boardApi.todayOtherCounts)),
    applications: useFigure('todayApplicationCounts', () => call(boardApi.todayApplicationCounts)),
    check: useFigure('parkInOutCheckCounts', () => call(boardApi.parkInOutCheckCounts)),
    trend: useFigure('applicationCounts', () => call(boardApi.applicationCounts)),
    inOut: useFigure('parkInOutChart', () => call(boardApi.parkInOutChart, { type: inOutType }), inOutType),
    overtime: useFigure('overtimeChart', () => call(boardApi.overtimeChart, { type: overtimeType }), overtimeType),
  };
  const all = Object.values(queries);
  // When the figures were true: the newest answer, or the offline copy's own time when the service worker answered.
  const updatedAt = Math.max(0, ...all.map((q) => (q.data === undefined ? 0 : (offlineStamp(q.data) ?? q.dataUpdatedAt))));
  const fromCopy = all.some((q) => q.data !== undefined && offlineStamp(q.data) !== undefined);
  const failed = all.some((q) => q.isError);
  return { ...queries, updatedAt, fromCopy, failed };
}
