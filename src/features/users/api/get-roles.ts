import { queryOptions, useQuery } from '@tanstack/react-query';
import { post } from '../../../lib/http';

export interface RoleOption {
  role_id: number;
  name: string;
  code: string;
  remark?: string | null;
  status?: number;
}

/** Every role the user could be bound to (POST /role/all). */
export const rolesQuery = queryOptions({
  queryKey: ['users', 'roles'],
  queryFn: () => post<RoleOption[]>('/role/all', {}),
  staleTime: 60_000,
});

export const useRoles = () => useQuery(rolesQuery);
