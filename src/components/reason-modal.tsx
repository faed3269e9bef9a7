import { TextArea } from 'antd-mobile';
import { useState, type ReactNode } from 'react';
import { useIsDesktop } from '../lib/use-media';
import { FormItem } from '../list-screen/form-item';
import { ScreenModal } from '../list-screen/screen-modal';
import './reason-modal.css';

/** The boxed form of an action modal, laid out as the screen forms are. */
export function ModalForm({ children }: { children: ReactNode }) {
  const desktop = useIsDesktop();
  return <div className={`ef pf-boxed am-form ${desktop ? 'ef--horizontal' : 'ef--vertical'}`}>{children}</div>;
}

interface ReasonModalProps {
  open: boolean;
  /** What the reason is for (a plate, a person, a number), shown above the field. */
  subject?: ReactNode;
  title: string;
  label: string;
  placeholder: string;
  okText?: string;
  danger?: boolean;
  notice?: string;
  onClose: () => void;
  /** Validates and sends; answers field errors to show, or null when done. */
  submit: (text: string) => Promise<Record<string, string> | null>;
  errorKey: string;
}

/** A reason (revoke) or an opinion (reject): one required text, the spec's message when empty. */
export function ReasonModal({ open, subject, title, label, placeholder, okText = '确定', danger, notice, onClose, submit, errorKey }: ReasonModalProps) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const go = async () => {
    if (busy) return;
    setBusy(true);
    try {
      const errs = await submit(text);
      if (errs) setError(errs[errorKey] ?? Object.values(errs)[0]);
    } finally {
      setBusy(false);
    }
  };
  return (
    <ScreenModal open={open} title={title} onClose={onClose} onOk={() => void go()} okText={okText} okLoading={busy} okDanger={danger}>
      {subject}
      {notice && <div className="am-notice">{notice}</div>}
      <ModalForm>
        <FormItem label={label} required error={error} htmlFor="am-reason">
          <TextArea
            id="am-reason"
            value={text}
            onChange={(v) => {
              setText(v);
              setError(undefined);
            }}
            placeholder={placeholder}
            autoSize={{ minRows: 3, maxRows: 8 }}
            maxLength={200}
            showCount
          />
        </FormItem>
      </ModalForm>
    </ScreenModal>
  );
}
