import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { InputOf } from '../../../../domain/contract';
import { userApi } from '../../../../domain/schemas/user';
import { call } from '../../../lib/http';

export type BindRoleInput = InputOf<typeof userApi.bindRole>;

export const bindRole = (input: BindRoleInput) => call(userApi.bindRole, input);

export function useBindRole() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: bindRole,
    onSuccess: (_d, v) => qc.invalidateQueries({ queryKey: ['users', 'user-roles', v.userId] }),
  });
}
