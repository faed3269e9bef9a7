import { queryOptions, useQuery } from '@tanstack/react-query';
import { permissionApi } from '../../../../domain/schemas/permission';
import { call } from '../../../lib/http';

/** What a role holds now ; never cached: the tree must start from the truth. */
export const rolePermissionsQuery = (roleId: number) =>
  queryOptions({
    queryKey: ['roles', 'permissions', roleId],
    queryFn: () => call(permissionApi.byRole, { roleId }),
    staleTime: 0,
    gcTime: 0,
  });

export const useRolePermissions = (roleId: number) => useQuery(rolePermissionsQuery(roleId));
