import { ActionSheet } from '../../../components/action-sheet';
import type { PermissionRow } from '../../../../domain/schemas/permission';
import type { PermissionActions } from '../use-permission-actions';
import { PermissionForm } from './permission-form';

/** The add / edit form and the phone's action sheet of a node. */
export function PermissionOverlays({ actions, rows, onChildAdded }: { actions: PermissionActions; rows: PermissionRow[]; onChildAdded: (parentId: number) => void }) {
  const { form, sheet } = actions;
  return (
    <>
      {form && (
        <PermissionForm
          key={form.seq}
          mode={form.mode}
          row={form.row}
          rows={rows}
          onClose={actions.closeForm}
          onSaved={() => {
            // A child just added shows under its parent, unfolded.
            const parent = form.mode === 'create' ? form.row?.permission_id : undefined;
            if (parent !== undefined) onChildAdded(parent);
            actions.closeForm();
          }}
        />
      )}
      <ActionSheet
        visible={!!sheet}
        actions={(sheet ? actions.actionsFor(sheet) : []).map((a) => ({ key: a.key, text: a.label, danger: a.danger, onClick: a.run }))}
        extra={
          sheet ? (
            <span className="pp-sheet-extra">
              {sheet.name} · {sheet.code}
            </span>
          ) : undefined
        }
        onClose={() => actions.setSheet(null)}
      />
    </>
  );
}
