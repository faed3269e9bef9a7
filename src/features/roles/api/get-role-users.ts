import { queryOptions, useQuery } from '@tanstack/react-query';
import type { RoleUserRow } from '../../../../domain/schemas/role';
import { post } from '../../../lib/http';

/** The users holding a role now (POST /user/findByRoleId); never cached: the form must start from the truth. */
export const roleUsersQuery = (roleId: number) =>
  queryOptions({
    queryKey: ['roles', 'users', roleId],
    queryFn: () => post<RoleUserRow[]>('/user/findByRoleId', { roleId }),
    staleTime: 0,
    gcTime: 0,
  });

export const useRoleUsers = (roleId: number) => useQuery(roleUsersQuery(roleId));
