import { queryOptions, useQuery } from '@tanstack/react-query';
import { enums, type EnumName, type EnumOption } from '../../domain/enums';
import { commonApi } from '../../domain/schemas/common-api';
import { call } from '../lib/http';

/**
 * Code tables from GET /common/enum/{name}. The static copy in domain/ paints
 * at once (and offline); it is marked stale so the first use or the
 * post-login prefetch replaces it with the server's table.
 */
export const enumQuery = (name: EnumName) =>
  queryOptions({
    queryKey: ['enum', name],
    queryFn: (): Promise<EnumOption[]> => call(commonApi.enum, {}, { params: { name } }),
    initialData: enums[name] as EnumOption[],
    initialDataUpdatedAt: 0,
    staleTime: 60 * 60_000,
  });

export function useEnum(name: EnumName): EnumOption[] {
  return useQuery(enumQuery(name)).data;
}
