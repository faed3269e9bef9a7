import { Popup } from 'antd-mobile';
import { useEffect, useState } from 'react';
import { PLATE_PATTERN } from '../../domain/identity';
import './plate-keyboard.css';

/**
 * Plate entry without the phone's own keyboard (issue 4 item 5): provinces
 * first, then letters and digits. Letters I and O never appear on plates
 * (they read as 1 and 0), the second character is always a letter, and the
 * suffixes 挂学警港澳 only end a plate; the plate is accepted when it matches
 * the same PLATE_PATTERN the application form and the server use.
 */

export const PLATE_PROVINCES = [...'京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼'];
const DIGITS = [...'1234567890'];
const LETTER_ROWS = [[...'QWERTYUP'], [...'ASDFGHJKL'], [...'ZXCVBNM']];
const SUFFIXES = [...'挂学警港澳'];
/** Ordinary plates have 7 characters, new-energy plates 8. */
const MAX_LENGTH = 8;
export const PLATE_INVALID = '车牌号格式不正确';

/** Which keys the next character may use, from what is typed so far. */
function allowed(value: string) {
  const n = value.length;
  const ended = n >= MAX_LENGTH || (n > 0 && SUFFIXES.includes(value[n - 1]));
  return {
    province: n === 0,
    letter: n >= 1 && !ended,
    digit: n >= 2 && !ended,
    suffix: n === 6,
  };
}

export const isPlate = (value: string) => PLATE_PATTERN.test(value);

interface KeyboardProps {
  value: string;
  onChange: (value: string) => void;
  onConfirm: (plate: string) => void;
  /** Listen to a hardware keyboard too (desktop): letters, digits, Backspace, Enter. */
  hardwareKeys?: boolean;
}

/** The panel alone: the typed plate in cells, then the keys. */
export function PlateKeyboard({ value, onChange, onConfirm, hardwareKeys = true }: KeyboardProps) {
  const [error, setError] = useState<string>();
  const can = allowed(value);
  const type = (c: string) => {
    setError(undefined);
    onChange(value + c);
  };
  const back = () => {
    setError(undefined);
    onChange(value.slice(0, -1));
  };
  const confirm = () => {
    if (!isPlate(value)) return setError(value ? PLATE_INVALID : '请输入车牌号');
    onConfirm(value);
  };

  useEffect(() => {
    if (!hardwareKeys) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const k = e.key.length === 1 ? e.key.toUpperCase() : e.key;
      const a = allowed(value);
      if (k === 'Backspace') back();
      else if (k === 'Enter') confirm();
      else if (PLATE_PROVINCES.includes(k) && a.province) type(k);
      else if (/^[A-Z]$/.test(k) && k !== 'I' && k !== 'O' && a.letter) type(k);
      else if (/^\d$/.test(k) && a.digit) type(k);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  const key = (c: string, enabled: boolean, extra = '') => (
    <button key={c} type="button" className={`pk-key${extra}`} disabled={!enabled} onClick={() => type(c)}>
      {c}
    </button>
  );
  const cells = Array.from({ length: MAX_LENGTH }, (_, i) => value[i] ?? '');

  return (
    <div className="pk">
      <div className={`pk-cells${error ? ' pk-cells--error' : ''}`} role="textbox" aria-label="车牌号" aria-readonly="true" aria-invalid={!!error} data-value={value}>
        {cells.map((c, i) => (
          <span
            key={i}
            className={['pk-cell', i === value.length && 'pk-cell--cursor', i === 0 && 'pk-cell--province', i === MAX_LENGTH - 1 && 'pk-cell--energy'].filter(Boolean).join(' ')}
            aria-hidden
          >
            {c || (i === MAX_LENGTH - 1 ? <small>新能源</small> : null)}
          </span>
        ))}
      </div>
      <div className="pk-hint" role={error ? 'alert' : undefined}>
        {error ? <span className="pk-error">{error}</span> : can.province ? '选择车牌省份简称' : value.length === 1 ? '输入发牌机关代号（字母）' : '输入号码；新能源车牌为8位'}
      </div>
      {can.province ? (
        <div className="pk-grid pk-grid--provinces" role="group" aria-label="省份">
          {PLATE_PROVINCES.map((p) => key(p, true, ' pk-key--province'))}
        </div>
      ) : (
        <div className="pk-grid" role="group" aria-label="字母和数字">
          <div className="pk-row">{DIGITS.map((d) => key(d, can.digit))}</div>
          {LETTER_ROWS.map((row, i) => (
            <div key={i} className="pk-row">
              {row.map((l) => key(l, can.letter))}
            </div>
          ))}
          <div className="pk-row pk-row--suffix">{SUFFIXES.map((s) => key(s, can.suffix, ' pk-key--suffix'))}</div>
        </div>
      )}
      <div className="pk-actions">
        <button type="button" className="pk-key pk-key--action" onClick={back} disabled={!value} aria-label="删除">
          删除
        </button>
        <button type="button" className="pk-key pk-key--action" onClick={() => (setError(undefined), onChange(''))} disabled={!value} aria-label="清空">
          清空
        </button>
        <button type="button" className="pk-key pk-key--confirm" onClick={confirm} aria-label="确定">
          确定
        </button>
      </div>
    </div>
  );
}

interface InputProps {
  value: string;
  onChange: (value: string) => void;
  /** Called with a well-formed plate when the person presses 确定. */
  onConfirm?: (plate: string) => void;
  placeholder?: string;
  /** Label of the opened sheet. */
  title?: string;
}

/** A tappable plate field that opens the keyboard in a bottom sheet. */
export function PlateInput({ value, onChange, onConfirm, placeholder = '点击输入车牌号', title = '输入车牌号' }: InputProps) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className={`pk-field${value ? '' : ' pk-field--empty'}`} onClick={() => setOpen(true)} aria-haspopup="dialog">
        {value || placeholder}
      </button>
      <Popup visible={open} onMaskClick={() => setOpen(false)} onClose={() => setOpen(false)} bodyClassName="pk-sheet" destroyOnClose>
        <div role="dialog" aria-label={title}>
          <div className="pk-sheet__head">
            <span>{title}</span>
            <button type="button" className="pk-sheet__close" onClick={() => setOpen(false)}>
              收起
            </button>
          </div>
          <PlateKeyboard
            value={value}
            onChange={onChange}
            onConfirm={(plate) => {
              setOpen(false);
              onConfirm?.(plate);
            }}
          />
        </div>
      </Popup>
    </>
  );
}
