import { queryOptions, useQuery } from '@tanstack/react-query';
import { post } from '../../../lib/http';

/** What a role holds now (POST /permission/findByRoleId); never cached: the tree must start from the truth. */
export const rolePermissionsQuery = (roleId: number) =>
  queryOptions({
    queryKey: ['roles', 'permissions', roleId],
    queryFn: () => post<Array<{ permission_id: number; code: string }>>('/permission/findByRoleId', { roleId }),
    staleTime: 0,
    gcTime: 0,
  });

export const useRolePermissions = (roleId: number) => useQuery(rolePermissionsQuery(roleId));
