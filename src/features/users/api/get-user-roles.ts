import { queryOptions, useQuery } from '@tanstack/react-query';
import { userApi } from '../../../../domain/schemas/user';
import { call } from '../../../lib/http';

/** The roles a user holds now; never cached, the form must start from the truth. */
export const userRolesQuery = (userId: number) =>
  queryOptions({
    queryKey: ['users', 'user-roles', userId],
    queryFn: () => call(userApi.roles, { userId }),
    staleTime: 0,
    gcTime: 0,
  });

export const useUserRoles = (userId: number) => useQuery(userRolesQuery(userId));
