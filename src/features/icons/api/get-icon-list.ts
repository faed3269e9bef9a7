import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { AxiosResponseTransformer } from 'axios';
import { ICON_PAGE_SIZE, type IconItem } from '../../../../domain/icons';
import { api, http } from '../../../lib/http';

export interface IconPage {
  data: IconItem[];
  totalCount: number;
}

const defaults = [http.defaults.transformResponse ?? []].flat() as AxiosResponseTransformer[];
/** The spec's reply carries `totalCount` beside `data` (spec 002 §7): folded into `data`, so the shared client's unwrapping keeps it. */
const foldTotal: AxiosResponseTransformer = (body: unknown) => {
  const b = body as { success?: boolean; data?: unknown; totalCount?: number } | null;
  return b && b.success ? { ...b, data: { data: b.data, totalCount: b.totalCount ?? 0 } } : b;
};

/** GET /icon/getList: a page of the one icon set (current, pageSize 72, title). */
export const getIconList = (title: string, current: number) =>
  api<IconPage>({ method: 'GET', url: '/icon/getList', params: { current, pageSize: ICON_PAGE_SIZE, ...(title ? { title } : {}) }, transformResponse: [...defaults, foldTotal] });

export const iconListQuery = (title: string, current: number) =>
  queryOptions({ queryKey: ['icons', 'list', title, current], queryFn: () => getIconList(title, current), staleTime: 10 * 60_000, placeholderData: keepPreviousData });

export const useIconList = (title: string, current: number, enabled: boolean) => useQuery({ ...iconListQuery(title, current), enabled });
