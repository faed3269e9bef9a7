import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { PermissionCreate, PermissionUpdate } from '../../../../domain/schemas/permission';
import { post } from '../../../lib/http';

export type SavePermissionInput = { mode: 'create'; values: PermissionCreate } | { mode: 'edit'; values: PermissionUpdate };

/** POST /permission/save or /permission/update. */
export const savePermission = (input: SavePermissionInput) => post<unknown>(input.mode === 'create' ? '/permission/save' : '/permission/update', input.values);

/** POST /permission/delete: the roles holding it lose it in the same transaction. */
export const deletePermission = (permissionId: number) => post<{ removedBindings: number }>('/permission/delete', { permissionId });

/** After a change: the tree, and the signed-in person's menu (names, icons, routes come from it). */
export function useRefreshPermissions() {
  const qc = useQueryClient();
  return () => {
    void qc.invalidateQueries({ queryKey: ['permission', 'all'] });
    void qc.invalidateQueries({ queryKey: ['me'] });
  };
}

export function useSavePermission() {
  const refresh = useRefreshPermissions();
  return useMutation({ mutationFn: savePermission, onSuccess: refresh });
}

export function useDeletePermission() {
  const refresh = useRefreshPermissions();
  return useMutation({ mutationFn: deletePermission, onSuccess: refresh });
}
