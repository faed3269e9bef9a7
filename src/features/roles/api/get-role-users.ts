import { queryOptions, useQuery } from '@tanstack/react-query';
import { roleApi } from '../../../../domain/schemas/role';
import { call } from '../../../lib/http';

/** The users holding a role now; never cached: the form must start from the truth. */
export const roleUsersQuery = (roleId: number) =>
  queryOptions({
    queryKey: ['roles', 'users', roleId],
    queryFn: () => call(roleApi.users, { roleId }),
    staleTime: 0,
    gcTime: 0,
  });

export const useRoleUsers = (roleId: number) => useQuery(roleUsersQuery(roleId));
