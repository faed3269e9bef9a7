import { queryOptions, useQuery } from '@tanstack/react-query';
import { permissionApi } from '../../../../domain/schemas/permission';
import { call } from '../../../lib/http';

/** The whole permission tree, rows in the tree's order. The permission screen reads the same key. */
export const permissionTreeQuery = queryOptions({
  queryKey: ['permission', 'all'],
  queryFn: () => call(permissionApi.tree, {}),
  staleTime: 30_000,
});

export const usePermissionTree = () => useQuery(permissionTreeQuery);
