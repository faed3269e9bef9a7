import { useMutation, useQueryClient } from '@tanstack/react-query';
import { roleApi } from '../../../../domain/schemas/role';
import { call } from '../../../lib/http';

export interface BindPermissionsInput {
  roleId: number;
  permissionIds: number[];
}

/** The role holds exactly these from now on (a comma list, as the spec sends it). */
export const bindPermissions = ({ roleId, permissionIds }: BindPermissionsInput) => call(roleApi.bindPermissions, { roleId, permissionIds: permissionIds.join(',') });

export function useBindPermissions() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: bindPermissions,
    onSuccess: () => {
      // The tree's role counts change, and so may the signed-in person's own menu.
      void qc.invalidateQueries({ queryKey: ['permission', 'all'] });
      void qc.invalidateQueries({ queryKey: ['me'] });
    },
  });
}
