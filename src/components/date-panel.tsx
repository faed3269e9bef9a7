import { Calendar } from 'antd-mobile';
import dayjs from 'dayjs';
import { useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { createPortal } from 'react-dom';
import { dateToWire } from './date-text';

export interface DatePanelProps {
  /** The field the panel drops from; a press inside it is not an outside press. */
  anchor: RefObject<HTMLElement | null>;
  value: string;
  withTime: boolean;
  min?: string;
  max?: string;
  /** Time of day a newly picked day starts with ('HH:mm:ss'). */
  defaultTime: string;
  onPick: (value: string | undefined) => void;
  onClose: () => void;
}

const two = (n: number) => String(n).padStart(2, '0');
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/**
 * The desktop's calendar: a month page under the field (a bottom-sheet wheel
 * is a phone idiom), with 24-hour selects for a time field. Portalled and
 * fixed, so a scrolling form or a dialog's body does not clip it.
 */
export function DatePanel({ anchor, value, withTime, min, max, defaultTime, onPick, onClose }: DatePanelProps) {
  const panel = useRef<HTMLDivElement>(null);
  const [pos, setPos] = useState<{ top: number; left: number } | null>(null);
  const [day, setDay] = useState<Date | null>(() => (value ? dayjs(value.slice(0, 10)).toDate() : null));
  const [time, setTime] = useState(() => {
    const [h, m, s] = (value.length > 10 ? value.slice(11) : defaultTime).split(':').map(Number);
    return { h: h ?? 0, m: m ?? 0, s: s ?? 0 };
  });

  useLayoutEffect(() => {
    const place = () => {
      const a = anchor.current?.getBoundingClientRect();
      const p = panel.current;
      if (!a || !p) return;
      const gap = 4;
      const below = a.bottom + gap;
      const above = a.top - gap - p.offsetHeight;
      const top = below + p.offsetHeight > window.innerHeight - 8 && above >= 8 ? above : below;
      const left = Math.max(8, Math.min(a.left, window.innerWidth - p.offsetWidth - 8));
      setPos({ top, left });
    };
    place();
    window.addEventListener('resize', place);
    window.addEventListener('scroll', place, true);
    return () => {
      window.removeEventListener('resize', place);
      window.removeEventListener('scroll', place, true);
    };
  }, [anchor]);

  useEffect(() => {
    const outside = (e: MouseEvent) => {
      const t = e.target as Node;
      if (!panel.current?.contains(t) && !anchor.current?.contains(t)) onClose();
    };
    const escape = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClose();
    };
    document.addEventListener('mousedown', outside);
    document.addEventListener('keydown', escape);
    return () => {
      document.removeEventListener('mousedown', outside);
      document.removeEventListener('keydown', escape);
    };
  }, [anchor, onClose]);

  const minDate = min ? dayjs(min).toDate() : undefined;
  const maxDate = max ? dayjs(max).toDate() : undefined;
  const today = dayjs().format('YYYY-MM-DD');
  const todayAllowed = (!min || today >= min) && (!max || today <= max);
  const withClock = (d: Date) => dateToWire(dayjs(d).hour(time.h).minute(time.m).second(time.s).toDate(), true);

  const timeSelect = (label: string, key: 'h' | 'm' | 's', count: number) => (
    <select className="pf-date-panel__select" aria-label={label} value={time[key]} onChange={(e) => setTime({ ...time, [key]: Number(e.target.value) })}>
      {range(count).map((n) => (
        <option key={n} value={n}>
          {two(n)}
        </option>
      ))}
    </select>
  );

  return createPortal(
    <div
      ref={panel}
      className="pf-date-panel"
      role="dialog"
      aria-label={withTime ? '选择日期和时间' : '选择日期'}
      style={pos ? { top: pos.top, left: pos.left } : { visibility: 'hidden' }}
      // React events bubble through portals: keep the panel's clicks from the rows and forms it drops over.
      onClick={(e) => e.stopPropagation()}
    >
      <Calendar
        selectionMode="single"
        value={day}
        min={minDate}
        max={maxDate}
        allowClear={false}
        weekStartsOn="Monday"
        onChange={(d) => {
          if (!d) return;
          if (withTime) setDay(d);
          else onPick(dateToWire(d, false));
        }}
      />
      {withTime && (
        <div className="pf-date-panel__time">
          <span>时间</span>
          {timeSelect('时', 'h', 24)}:{timeSelect('分', 'm', 60)}:{timeSelect('秒', 's', 60)}
        </div>
      )}
      <div className="pf-date-panel__foot">
        <button type="button" className="pf-date-panel__btn pf-date-panel__btn--muted" onClick={() => onPick(undefined)}>
          清除
        </button>
        {withTime ? (
          <>
            <button type="button" className="pf-date-panel__btn pf-date-panel__btn--muted" onClick={onClose}>
              取消
            </button>
            <button type="button" className="pf-date-panel__btn" disabled={!day} onClick={() => day && onPick(withClock(day))}>
              确定
            </button>
          </>
        ) : (
          <button type="button" className="pf-date-panel__btn" disabled={!todayAllowed} onClick={() => onPick(today)}>
            今天
          </button>
        )}
      </div>
    </div>,
    document.body,
  );
}
