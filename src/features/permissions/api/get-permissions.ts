import { queryOptions, useQuery } from '@tanstack/react-query';
import type { PermissionRow } from '../../../../domain/schemas/permission';
import { post } from '../../../lib/http';

/** The whole tree (POST /permission/all), rows in the tree's order; searched here, so that a hit keeps its ancestors. */
export const permissionsQuery = queryOptions({
  queryKey: ['permission', 'all'],
  queryFn: () => post<PermissionRow[]>('/permission/all', {}),
  staleTime: 30_000,
});

export const usePermissions = (enabled: boolean) => useQuery({ ...permissionsQuery, enabled });
