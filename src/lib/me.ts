import { queryOptions, useQuery } from '@tanstack/react-query';
import type { PermissionCode } from '../../domain/permissions';
import { shellCalls } from '../../domain/shell-calls';
import { call } from './http';

export type { Me } from '../../domain/schemas/auth';

export const meQuery = queryOptions({
  queryKey: ['me'],
  queryFn: () => call(shellCalls.me),
  staleTime: 5 * 60_000,
});

export function useMe() {
  return useQuery(meQuery);
}

/** `can(code)`: the same test the server applies; buttons hide themselves with it. */
export function useCan(): (code: PermissionCode | undefined) => boolean {
  const { data } = useMe();
  const held = new Set(data?.permissions ?? []);
  return (code) => !code || held.has(code);
}
