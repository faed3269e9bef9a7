import { useMutation, useQueryClient } from '@tanstack/react-query';
import { post } from '../../../lib/http';

export interface BindPermissionsInput {
  roleId: number;
  permissionIds: number[];
}

/** POST /role/permission/bind: the role holds exactly these from now on (a comma list, as the spec sends it). */
export const bindPermissions = ({ roleId, permissionIds }: BindPermissionsInput) => post<null>('/role/permission/bind', { roleId, permissionIds: permissionIds.join(',') });

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
