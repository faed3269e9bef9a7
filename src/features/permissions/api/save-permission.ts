import { useMutation, useQueryClient } from '@tanstack/react-query';
import { permissionApi, type PermissionCreate, type PermissionUpdate } from '../../../../domain/schemas/permission';
import { call } from '../../../lib/http';

const { calls } = permissionApi;

export type SavePermissionInput = { mode: 'create'; values: PermissionCreate } | { mode: 'edit'; values: PermissionUpdate };

/** Save or update. */
export const savePermission = (input: SavePermissionInput) => (input.mode === 'create' ? call(calls.save, input.values) : call(calls.edit, input.values));

/** Delete: the roles holding it lose it in the same transaction. */
export const deletePermission = (permissionId: number) => call(permissionApi.delete, { permissionId });

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
