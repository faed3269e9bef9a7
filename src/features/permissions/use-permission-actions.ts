import { useState } from 'react';
import { deleteConfirmText, deleteRefusal, isBuiltinPermission, PERMISSION_TYPE, type PermissionRow } from '../../../domain/schemas/permission';
import { confirmDialog, showToast } from '../../lib/feedback';
import { ApiError } from '../../lib/http';
import { useCan } from '../../lib/me';
import { MESSAGES, failureText } from '../../list-screen';
import { useDeletePermission } from './api/save-permission';

export interface PermissionAction {
  key: string;
  label: string;
  danger?: boolean;
  run: () => void;
}

export interface PermissionFormState {
  mode: 'create' | 'edit';
  row?: PermissionRow;
  seq: number;
}

/**
 * What may be done to a node, by the caller's codes: add a child (not under
 * a 权限), edit, delete (never a built-in node; refused with the server's
 * rule when it has children). Holds the open form and the phone's action sheet.
 */
export function usePermissionActions(withChildren: ReadonlySet<number>) {
  const can = useCan();
  const remove = useDeletePermission();
  const [form, setForm] = useState<PermissionFormState | null>(null);
  const [sheet, setSheet] = useState<PermissionRow | null>(null);

  const openForm = (mode: 'create' | 'edit', row?: PermissionRow) => setForm({ mode, row, seq: Date.now() });

  const askDelete = async (row: PermissionRow) => {
    const refusal = deleteRefusal(row, withChildren.has(row.permission_id));
    if (refusal) {
      showToast({ content: refusal, duration: 3000 });
      return;
    }
    const ok = await confirmDialog({ content: deleteConfirmText(row.role_count), danger: true });
    if (!ok) return;
    remove.mutate(row.permission_id, {
      onSuccess: () => showToast({ icon: 'success', content: MESSAGES.deleteOk }),
      onError: (e) => showToast({ icon: 'fail', content: failureText(MESSAGES.deleteFail, e instanceof ApiError ? e.message : String(e)), duration: 3000 }),
    });
  };

  const actionsFor = (row: PermissionRow): PermissionAction[] => {
    const out: PermissionAction[] = [];
    if (can('perm:add') && row.type !== PERMISSION_TYPE.PERMISSION) out.push({ key: 'child', label: '新增下级', run: () => openForm('create', row) });
    if (can('perm:edit')) out.push({ key: 'edit', label: '编辑', run: () => openForm('edit', row) });
    if (can('perm:delete') && !isBuiltinPermission(row.code)) out.push({ key: 'delete', label: '删除', danger: true, run: () => void askDelete(row) });
    return out;
  };

  return { actionsFor, openForm, form, closeForm: () => setForm(null), sheet, setSheet, creating: can('perm:add') };
}

export type PermissionActions = ReturnType<typeof usePermissionActions>;
