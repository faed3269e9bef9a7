import { queryOptions, useQuery } from '@tanstack/react-query';
import type { MenuNode, PermissionCode } from '../../domain/permissions';
import { get } from './http';

export interface Me {
  user: { user_id: number; user_name: string; account: string; gender: number; phone: string; depart_id: number; depart_name: string | null };
  roleNames: string[];
  permissions: string[];
  menus: MenuNode[];
}

export const meQuery = queryOptions({
  queryKey: ['me'],
  queryFn: () => get<Me>('/user/info'),
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
