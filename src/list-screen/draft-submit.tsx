import { Button } from 'antd-mobile';
import { ApiError } from '../lib/http';
import { failureText, MESSAGES } from './conventions';
import { alertDialog, showToast } from '../lib/feedback';

/**
 * Forms of records under approval (registers, appointments): 保存草稿 saves,
 * 提交审核 saves and submits in one step (issue 24 item 1). Submitting is a
 * second call after the save because the spec's save and push are separate
 * calls with their own rules: a save that passes can still be refused at
 * submit (a black-listed visitor), and then the draft stays and is said to.
 */
export type SaveIntent = 'draft' | 'submit';

export const DRAFT_BUTTONS = { draft: '保存草稿', submit: '提交审核' } as const;

/** Title of the message when the save went through and the submit did not. */
export const DRAFT_KEPT = '已保存为草稿，未提交审核';

export interface SaveSteps {
  edit: boolean;
  /** The create or edit call; answers the id of the row it saved. */
  save: () => Promise<number>;
  /** The submit call of that row. */
  submit: (id: number) => Promise<unknown>;
}

export type SaveOutcome = { saved: false; error: ApiError } | { saved: true; submitted: boolean };

const asApiError = (err: unknown) => (err instanceof ApiError ? err : new ApiError(err instanceof Error ? err.message : String(err), 1500, 0));

/** Runs the steps the intent asks for and tells the person what happened, in the spec's words (spec 000 §8, 001 §8). */
export async function saveThenSubmit(intent: SaveIntent, steps: SaveSteps): Promise<SaveOutcome> {
  let id: number;
  try {
    id = await steps.save();
  } catch (err) {
    const e = asApiError(err);
    showToast({ icon: 'fail', content: failureText(steps.edit ? MESSAGES.editFail : MESSAGES.createFail, e.message), duration: 3000 });
    return { saved: false, error: e };
  }
  if (intent === 'draft') {
    showToast({ icon: 'success', content: steps.edit ? MESSAGES.editOk : MESSAGES.createOk });
    return { saved: true, submitted: false };
  }
  try {
    await steps.submit(id);
    showToast({ icon: 'success', content: MESSAGES.submitOk });
    return { saved: true, submitted: true };
  } catch (err) {
    // A dialog, not a toast: the person believes they submitted, and must read why the record is still a draft.
    void alertDialog({ title: DRAFT_KEPT, content: failureText(MESSAGES.submitFail, asApiError(err).message), confirmText: '知道了' });
    return { saved: true, submitted: false };
  }
}

export interface DraftFooterProps {
  onClose: () => void;
  onSave: (intent: SaveIntent) => void;
  /** The step running, if any: its button spins, the others wait. */
  busy: SaveIntent | null;
  /** Without the submit code only the draft can be saved. */
  canSubmit: boolean;
  /** What the spinning button says (e.g. 照片处理中). */
  loadingText?: string;
}

/** The buttons of such a form, the same at both sizes. */
export function DraftFooter({ onClose, onSave, busy, canSubmit, loadingText }: DraftFooterProps) {
  return (
    <>
      <Button className="sm-btn" onClick={onClose} disabled={!!busy}>
        取消
      </Button>
      <Button className="sm-btn" color="primary" fill="outline" loading={busy === 'draft'} loadingText={loadingText} disabled={!!busy} onClick={() => onSave('draft')}>
        {DRAFT_BUTTONS.draft}
      </Button>
      {canSubmit && (
        <Button className="sm-btn" color="primary" loading={busy === 'submit'} loadingText={loadingText} disabled={!!busy} onClick={() => onSave('submit')}>
          {DRAFT_BUTTONS.submit}
        </Button>
      )}
    </>
  );
}
