import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { AxiosResponseTransformer } from 'axios';
import { ICON_PAGE_SIZE, iconApi, type IconPage } from '../../../../domain/icons';
import { call, http } from '../../../lib/http';

export type { IconPage };

const defaults = [http.defaults.transformResponse ?? []].flat() as AxiosResponseTransformer[];
/** The spec's reply carries `totalCount` beside `data` (spec 002 §7): folded into `data`, so the shared client's unwrapping keeps it. */
const foldTotal: AxiosResponseTransformer = (body: unknown) => {
  const b = body as { success?: boolean; data?: unknown; totalCount?: number } | null;
  return b && b.success ? { ...b, data: { data: b.data, totalCount: b.totalCount ?? 0 } } : b;
};

/** A page of the one icon set (current, pageSize 72, title); the page is the envelope's data with its totalCount folded in. */
export const getIconList = (title: string, current: number): Promise<IconPage> =>
  call(iconApi.list, { current, pageSize: ICON_PAGE_SIZE, ...(title ? { title } : {}) }, { transformResponse: [...defaults, foldTotal] }) as unknown as Promise<IconPage>;

export const iconListQuery = (title: string, current: number) =>
  queryOptions({ queryKey: ['icons', 'list', title, current], queryFn: () => getIconList(title, current), staleTime: 10 * 60_000, placeholderData: keepPreviousData });

export const useIconList = (title: string, current: number, enabled: boolean) => useQuery({ ...iconListQuery(title, current), enabled });
