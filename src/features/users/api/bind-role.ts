import { useMutation, useQueryClient } from '@tanstack/react-query';
import { post } from '../../../lib/http';

export interface BindRoleInput {
  userId: number;
  roleIds: number[];
}

export const bindRole = (input: BindRoleInput) => post<null>('/user/bindRole', input);

export function useBindRole() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: bindRole,
    onSuccess: (_d, v) => qc.invalidateQueries({ queryKey: ['users', 'user-roles', v.userId] }),
  });
}
