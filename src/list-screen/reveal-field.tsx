import { EyeOutline } from 'antd-mobile-icons';
import { useState, type ReactNode } from 'react';
import { looksMasked, personalKindOf } from '../../domain/personal-data';
import { piiApi, revealableFields, revealInput, type RevealRecord } from '../../domain/schemas/pii';
import { ReasonModal } from '../components/reason-modal';
import { showToast } from '../lib/feedback';
import { ApiError, call } from '../lib/http';
import { useCan } from '../lib/me';
import { fieldErrorMap } from './conventions';

/** Which record a detail shows, so that its masked fields can be revealed (domain/schemas/pii.ts). */
export interface RevealTarget {
  record: RevealRecord;
  id: number;
}

/** Whether a field of the record, shown as `value`, is a masked one its reader may reveal. */
export function revealable(target: RevealTarget | undefined, field: string, value: unknown, canView: boolean): boolean {
  if (!target || !canView || typeof value !== 'string') return false;
  const kind = personalKindOf(field);
  return kind !== null && kind !== 'photo' && (revealableFields[target.record] as readonly string[]).includes(field) && looksMasked(kind, value);
}

/**
 * A masked value with 查看 beside it, for a holder of pii:view: asks for the
 * reason, which the server logs with who and what, then shows the whole value
 * in place until the detail closes.
 */
export function RevealField({ target, field, label, children }: { target: RevealTarget; field: string; label: string; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const [value, setValue] = useState<string | null>(null);
  if (value !== null) return <span className="pii-revealed">{value || '-'}</span>;
  return (
    <span className="pii-masked">
      {children}
      <button type="button" className="pii-reveal" onClick={() => setOpen(true)} aria-label={`查看完整的${label}`}>
        <EyeOutline aria-hidden />
        查看
      </button>
      <ReasonModal
        open={open}
        title={`查看完整的${label}`}
        label="查看原因"
        placeholder="请填写查看原因，如：核对访客身份"
        notice="查看将记入操作日志（查看人、记录、字段与原因）。"
        errorKey="reason"
        onClose={() => setOpen(false)}
        submit={async (reason) => {
          const parsed = revealInput.safeParse({ ...target, field, reason });
          if (!parsed.success) return fieldErrorMap(parsed.error.issues);
          try {
            const answer = await call(piiApi.reveal, parsed.data);
            setValue(answer.value);
            setOpen(false);
          } catch (e) {
            showToast({ icon: 'fail', content: e instanceof ApiError || e instanceof Error ? e.message : String(e), duration: 3000 });
          }
          return null;
        }}
      />
    </span>
  );
}

/** The detail line's value: revealable when the field is a masked one its reader may reveal. */
export function useRevealWrap(target: RevealTarget | undefined) {
  const can = useCan();
  const canView = can('pii:view');
  return (field: string, label: string, value: unknown, shown: ReactNode): ReactNode =>
    target && revealable(target, field, value, canView) ? (
      <RevealField target={target} field={field} label={label}>
        {shown}
      </RevealField>
    ) : (
      shown
    );
}
