import { Button } from 'antd-mobile';
import { useRef } from 'react';
import './copy-field.css';
import { showToast } from '../lib/feedback';

/**
 * Puts `text` on the clipboard; where the Clipboard API is missing or refused
 * (plain http off localhost, older browsers) it selects `el`'s text instead,
 * so Ctrl+C or a long press copies it. Answers whether it reached the clipboard.
 */
export async function copyText(text: string, el: HTMLElement | null): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Refused (no permission, document not focused): fall back to the selection.
  }
  if (el) {
    const selection = window.getSelection();
    selection?.removeAllRanges();
    const range = document.createRange();
    range.selectNodeContents(el);
    selection?.addRange(range);
  }
  return false;
}

interface CopyFieldProps {
  label: string;
  value: string;
  /** The button's words; 复制 by default. */
  copyLabel?: string;
}

/** A value to be copied whole (a one-time key, a header line): shown in full, in monospace, with its copy button. */
export function CopyField({ label, value, copyLabel = '复制' }: CopyFieldProps) {
  const ref = useRef<HTMLElement>(null);
  const copy = async () => {
    const copied = await copyText(value, ref.current);
    showToast(copied ? { icon: 'success', content: '已复制' } : { content: '无法访问剪贴板，已选中文本，请按 Ctrl+C 或长按复制', duration: 3000 });
  };
  return (
    <div className="cf">
      <div className="cf-head">
        <span className="cf-label">{label}</span>
        <Button size="mini" color="primary" fill="outline" onClick={() => void copy()} aria-label={`${copyLabel}${label}`}>
          {copyLabel}
        </Button>
      </div>
      <code ref={ref} className="cf-value">
        {value}
      </code>
    </div>
  );
}
