import { useMutation, useQueryClient } from '@tanstack/react-query';
import { roleApi } from '../../../../domain/schemas/role';
import { call } from '../../../lib/http';

export interface BindUsersInput {
  roleId: number;
  userIds: number[];
}

/** Exactly these users hold the role from now on (a comma list, as the spec sends it). */
export const bindUsers = ({ roleId, userIds }: BindUsersInput) => call(roleApi.bindUsers, { roleId, userIds: userIds.join(',') });

export function useBindUsers() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: bindUsers,
    onSuccess: () => {
      // The user screen's role names and bind-role form read these.
      void qc.invalidateQueries({ queryKey: ['users'] });
      void qc.invalidateQueries({ queryKey: ['list', 'system.users'] });
    },
  });
}
