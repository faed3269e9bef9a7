import { queryOptions, useQuery } from '@tanstack/react-query';
import { roleApi } from '../../../../domain/schemas/role';
import { call } from '../../../lib/http';

/** Every role the user could be bound to . */
export const rolesQuery = queryOptions({
  queryKey: ['users', 'roles'],
  queryFn: () => call(roleApi.calls.all, {}),
  staleTime: 60_000,
});

export const useRoles = () => useQuery(rolesQuery);
