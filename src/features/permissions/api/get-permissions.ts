import { queryOptions, useQuery } from '@tanstack/react-query';
import { permissionApi } from '../../../../domain/schemas/permission';
import { call } from '../../../lib/http';

/** The whole tree (POST /permission/all), rows in the tree's order; searched here, so that a hit keeps its ancestors. */
export const permissionsQuery = queryOptions({
  queryKey: ['permission', 'all'],
  queryFn: () => call(permissionApi.tree, {}),
  staleTime: 30_000,
});

export const usePermissions = (enabled: boolean) => useQuery({ ...permissionsQuery, enabled });
