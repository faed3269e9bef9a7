import { DatePicker } from 'antd-mobile';
import { CalendarOutline, CloseCircleFill } from 'antd-mobile-icons';
import { useCallback, useRef, useState } from 'react';
import { useIsDesktop } from '../lib/use-media';
import { DatePanel } from './date-panel';
import { dateToWire, fieldFormat, parseTypedDate, shownDate, wireToDate } from './date-text';
import './fields.css';

/**
 * Date and date-time fields that read YYYY-MM-DD (HH:mm:ss, 24-hour) whatever
 * the browser's language: a text field one can type into, and a picker behind
 * the calendar icon (the wheel on phones, a month calendar on desktop). Values
 * go out in the wire formats of DESIGN.md §3.
 */
export interface DateInputProps {
  value?: unknown;
  onChange?: (value: unknown) => void;
  withTime?: boolean;
  disabled?: boolean;
  /** Earliest and latest selectable day, 'YYYY-MM-DD' (the pickers grey out the rest; typed days outside are refused). */
  min?: string;
  max?: string;
  'aria-label'?: string;
}

const pad2 = (n: number) => String(n).padStart(2, '0');
const WHEEL_UNITS: Record<string, string> = { year: '年', month: '月', day: '日' };
/** The wheel's columns in Chinese (2026年 11月 30日), clock columns as two digits. */
const wheelLabel = (type: string, data: number) => (WHEEL_UNITS[type] ? `${data}${WHEEL_UNITS[type]}` : pad2(data));

export function DateInput(props: DateInputProps) {
  return <DateField {...props} />;
}

/** `defaultTime`: the clock a newly picked day starts at, so a range's end can cover its whole last day. */
function DateField({ value, onChange, withTime = false, disabled, min, max, defaultTime = '00:00:00', ...aria }: DateInputProps & { defaultTime?: string }) {
  const desktop = useIsDesktop();
  const box = useRef<HTMLSpanElement>(null);
  const shown = shownDate(value, withTime);
  // What the person is typing, until it is settled; null while the field shows the value.
  const [draft, setDraft] = useState<string | null>(null);
  // The hint belongs to the value it was given over: a new value from outside (a filter's 重置) drops it.
  const [refused, setRefused] = useState<{ hint: string; over: string } | null>(null);
  const hint = refused?.over === shown ? refused.hint : '';
  const [open, setOpen] = useState(false);
  const close = useCallback(() => setOpen(false), []);

  const commit = (next: string | undefined) => {
    setRefused(null);
    if (next !== (shown || undefined)) onChange?.(next);
  };
  const type = (text: string) => {
    setDraft(text);
    setRefused(null);
    // A complete, valid value applies at once: a save or 查询 right after typing needs no blur first.
    const typed = parseTypedDate(text, withTime, min, max);
    if (typed.ok && typed.value) commit(typed.value);
  };
  // On leaving the field or Enter: the typed value, or the last valid one back with a hint why.
  const settle = () => {
    if (draft === null) return;
    const typed = parseTypedDate(draft, withTime, min, max);
    setDraft(null);
    if (typed.ok) commit(typed.value);
    else setRefused({ hint: typed.hint, over: shown });
  };
  const pick = (next: string | undefined) => {
    setDraft(null);
    setOpen(false);
    commit(next);
  };

  const label = aria['aria-label'];
  return (
    <span className="pf-datefield">
      <span ref={box} className={`pf-date${disabled ? ' pf-date--disabled' : ''}${hint ? ' pf-date--invalid' : ''}`}>
        <input
          className="pf-date__input"
          type="text"
          value={draft ?? shown}
          placeholder={fieldFormat(withTime)}
          maxLength={fieldFormat(withTime).length}
          // Never narrower than its value: a flex row that gives the field no width of its own (a report's filter bar) drew it 0 px wide.
          style={{ minWidth: `${fieldFormat(withTime).length}ch` }}
          autoComplete="off"
          spellCheck={false}
          disabled={disabled}
          aria-label={label}
          aria-invalid={hint ? true : undefined}
          onChange={(e) => type(e.target.value)}
          onBlur={settle}
          onKeyDown={(e) => {
            if (e.key === 'Enter') settle();
            else if (e.key === 'Escape' && draft !== null) {
              setDraft(null);
              setRefused(null);
            }
          }}
        />
        {/* Button names stay generic: getByLabel(field label) must find the text field alone. */}
        {shown && !disabled && (
          <button type="button" className="pf-trigger__clear" aria-label="清除" title="清除" onClick={() => pick(undefined)}>
            <CloseCircleFill />
          </button>
        )}
        <button type="button" className="pf-date__open" aria-label={withTime ? '选择日期时间' : '选择日期'} aria-expanded={open} disabled={disabled} onClick={() => setOpen((o) => !o)}>
          <CalendarOutline />
        </button>
      </span>
      {hint && (
        <span className="pf-date__hint" role="alert">
          {hint}
        </span>
      )}
      {desktop ? (
        open && <DatePanel anchor={box} value={shown} withTime={withTime} min={min} max={max} defaultTime={defaultTime} onPick={pick} onClose={close} />
      ) : (
        <DatePicker
          visible={open}
          onClose={close}
          // Reopened, the wheel starts again from the field's value.
          destroyOnClose
          title={label}
          precision={withTime ? 'second' : 'day'}
          value={wireToDate(shown || dateToWire(new Date(), false), defaultTime)}
          min={min ? wireToDate(min, '00:00:00') : undefined}
          max={max ? wireToDate(max, '23:59:59') : undefined}
          renderLabel={wheelLabel}
          confirmText="确定"
          cancelText="取消"
          onConfirm={(d) => pick(dateToWire(d, withTime))}
        />
      )}
    </span>
  );
}

export function DateRangeInput({ value, onChange, withTime = false, disabled, min, max, ...aria }: DateInputProps) {
  const pair = Array.isArray(value) ? value : [];
  const set = (i: 0 | 1, v: unknown) => {
    const next = [pair[0], pair[1]];
    next[i] = v;
    onChange?.(next.every((x) => x === undefined) ? undefined : next);
  };
  const label = aria['aria-label'] ?? '';
  // The end cannot come before the chosen start.
  const startDay = typeof pair[0] === 'string' && pair[0] ? pair[0].slice(0, 10) : undefined;
  const endMin = startDay && (!min || startDay > min) ? startDay : min;
  return (
    <span className={`pf-range${withTime ? ' pf-range--time' : ''}`}>
      <DateField value={pair[0]} withTime={withTime} disabled={disabled} min={min} max={max} aria-label={`${label}开始`} onChange={(v) => set(0, v)} />
      <span className="pf-range__sep">至</span>
      <DateField value={pair[1]} withTime={withTime} disabled={disabled} min={endMin} max={max} defaultTime="23:59:59" aria-label={`${label}结束`} onChange={(v) => set(1, v)} />
    </span>
  );
}
