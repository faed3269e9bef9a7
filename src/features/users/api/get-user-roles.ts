import { queryOptions, useQuery } from '@tanstack/react-query';
import { post } from '../../../lib/http';
import type { RoleOption } from './get-roles';

/** The roles a user holds now (POST /role/findByUserId); never cached, the form must start from the truth. */
export const userRolesQuery = (userId: number) =>
  queryOptions({
    queryKey: ['users', 'user-roles', userId],
    queryFn: () => post<RoleOption[]>('/role/findByUserId', { userId }),
    staleTime: 0,
    gcTime: 0,
  });

export const useUserRoles = (userId: number) => useQuery(userRolesQuery(userId));
