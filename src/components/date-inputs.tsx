import dayjs from 'dayjs';
import { DATE_FORMAT, DATETIME_FORMAT } from '../../domain/time';
import './fields.css';

/**
 * Native date inputs: the phone's own date wheel and the desktop's calendar,
 * converted to the wire formats of DESIGN.md §3.
 */
const toWire = (raw: string, withTime: boolean) => (raw ? dayjs(raw).format(withTime ? DATETIME_FORMAT : DATE_FORMAT) : undefined);
const toNative = (v: unknown, withTime: boolean) => {
  if (typeof v !== 'string' || !v) return '';
  const d = dayjs(v);
  return d.isValid() ? d.format(withTime ? 'YYYY-MM-DDTHH:mm:ss' : 'YYYY-MM-DD') : '';
};

export interface DateInputProps {
  value?: unknown;
  onChange?: (value: unknown) => void;
  withTime?: boolean;
  disabled?: boolean;
  /** Earliest and latest selectable day, 'YYYY-MM-DD' (the native picker greys out the rest). */
  min?: string;
  max?: string;
  'aria-label'?: string;
}

export function DateInput({ value, onChange, withTime = false, disabled, min, max, ...aria }: DateInputProps) {
  return (
    <input
      className="pf-date"
      type={withTime ? 'datetime-local' : 'date'}
      step={withTime ? 1 : undefined}
      value={toNative(value, withTime)}
      min={min && (withTime ? `${min}T00:00:00` : min)}
      max={max && (withTime ? `${max}T23:59:59` : max)}
      disabled={disabled}
      aria-label={aria['aria-label']}
      onChange={(e) => onChange?.(toWire(e.target.value, withTime))}
    />
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
    <span className="pf-range">
      <DateInput value={pair[0]} withTime={withTime} disabled={disabled} min={min} max={max} aria-label={`${label}开始`} onChange={(v) => set(0, v)} />
      <span className="pf-range__sep">至</span>
      <DateInput value={pair[1]} withTime={withTime} disabled={disabled} min={endMin} max={max} aria-label={`${label}结束`} onChange={(v) => set(1, v)} />
    </span>
  );
}
