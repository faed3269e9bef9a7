import { queryOptions, useQuery } from '@tanstack/react-query';
import type { PermissionRow } from '../../../../domain/schemas/permission';
import { post } from '../../../lib/http';

/** The whole permission tree (POST /permission/all), rows in the tree's order. The permission screen reads the same key. */
export const permissionTreeQuery = queryOptions({
  queryKey: ['permission', 'all'],
  queryFn: () => post<PermissionRow[]>('/permission/all', {}),
  staleTime: 30_000,
});

export const usePermissionTree = () => useQuery(permissionTreeQuery);
