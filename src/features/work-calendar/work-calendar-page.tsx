import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, DotLoading } from 'antd-mobile';
import { LeftOutline, RightOutline } from 'antd-mobile-icons';
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { CALENDAR_YEARS, NAME_MAX, workCalendarApi, workCalendarSaveInput, type WorkCalendarDay } from '../../../domain/schemas/work-calendar';
import { formatInZone } from '../../../domain/time';
import { addDays, addMonths, diffDays } from '../../../domain/visit-rules';
import { DayKind, dayKindLabels, isWeekend, MAX_RANGE_DAYS, weekdayOf } from '../../../domain/work-calendar';
import { showToast } from '../../lib/feedback';
import { call } from '../../lib/http';
import { useCan } from '../../lib/me';
import { useIsDesktop } from '../../lib/use-media';
// The look of the other settings pages of 系统设置 (cards, hints, the problem box).
import '../../components/settings-form.css';
import './work-calendar.css';
import { SettingsLoadFailed } from '../../components/settings-load-failed';

/**
 * 工作日历 (系统设置): a month of the year at a time, Monday first, with the
 * days the administrator marked: 节假日 rests on a weekday, 调休上班 works on
 * a weekend, every other day follows the week (docs/work-calendar.md; the
 * rule is domain/work-calendar.ts). A holder of workCalendar:edit picks a
 * range of at most MAX_RANGE_DAYS days (two taps, or the keyboard) and marks
 * or clears it; others read. The year's marked days are listed as text too.
 */

const yearKey = (year: number) => ['workCalendar', year] as const;
const WEEK = ['一', '二', '三', '四', '五', '六', '日'] as const;
const WEEKDAY_NAMES = ['星期日', '星期一', '星期二', '星期三', '星期四', '星期五', '星期六'] as const;
const YEARS = Array.from({ length: CALENDAR_YEARS.max - CALENDAR_YEARS.min + 1 }, (_, i) => CALENDAR_YEARS.min + i);
const MONTHS = Array.from({ length: 12 }, (_, i) => i + 1);
const FIRST_DAY = `${CALENDAR_YEARS.min}-01-01`;
const LAST_DAY = `${CALENDAR_YEARS.max}-12-31`;

type Action = 'holiday' | 'workday' | 'clear';
const actionKinds: Record<Exclude<Action, 'clear'>, DayKind> = { holiday: DayKind.HOLIDAY, workday: DayKind.WORKDAY };
const done: Record<Action, string> = { holiday: '已设为节假日', workday: '已设为调休上班', clear: '已恢复为按星期' };

const pad = (n: number) => String(n).padStart(2, '0');
const yearOf = (day: string) => Number(day.slice(0, 4));
const monthOf = (day: string) => Number(day.slice(5, 7));
const dayOf = (day: string) => Number(day.slice(8, 10));
const weekdayName = (day: string) => WEEKDAY_NAMES[weekdayOf(day)]!;
/** Monday 0 … Sunday 6: the column of a day. */
const column = (day: string) => (weekdayOf(day) + 6) % 7;
const inCalendar = (day: string) => (day < FIRST_DAY ? FIRST_DAY : day > LAST_DAY ? LAST_DAY : day);
const longDate = (day: string) => `${yearOf(day)}年${monthOf(day)}月${dayOf(day)}日`;
const shortDate = (day: string) => `${monthOf(day)}月${dayOf(day)}日`;

/** The weeks of a month, Monday first: null where a week reaches into the month before or after. */
function weeksOf(year: number, month: number): Array<Array<string | null>> {
  const first = `${year}-${pad(month)}-01`;
  const length = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const cells: Array<string | null> = [...Array<null>(column(first)).fill(null), ...Array.from({ length }, (_, i) => addDays(first, i))];
  while (cells.length % 7) cells.push(null);
  return Array.from({ length: cells.length / 7 }, (_, w) => cells.slice(w * 7, w * 7 + 7));
}

/** What a day is, in words: its date, weekday and kind, and its name when marked. */
function dayWords(day: string, mark: WorkCalendarDay | undefined, today: string): string {
  const kind = mark ? dayKindLabels[mark.kind as DayKind] : isWeekend(day) ? '休息日' : '工作日';
  return [longDate(day), weekdayName(day), kind, mark?.name, day === today ? '今天' : ''].filter(Boolean).join(' ');
}

export default function WorkCalendarPage() {
  const client = useQueryClient();
  const can = useCan();
  const desktop = useIsDesktop();
  const editable = can('workCalendar:edit');
  const today = useMemo(() => formatInZone(new Date()).slice(0, 10), []);
  /** The day the keyboard is on; the month shown is its month. */
  const [cursor, setCursor] = useState(today);
  /** The first day picked, while the second is awaited. */
  const [anchor, setAnchor] = useState<string | null>(null);
  const [range, setRange] = useState<{ start: string; end: string } | null>(null);
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const gridRef = useRef<HTMLTableElement>(null);
  const panelRef = useRef<HTMLElement>(null);
  const calendarRef = useRef<HTMLElement>(null);
  /** Set when the keyboard (or a listed day) moved the cursor: the day's button takes the focus once drawn. */
  const focusCursor = useRef(false);

  const year = yearOf(cursor);
  const month = monthOf(cursor);
  const marks = useQuery({ queryKey: yearKey(year), queryFn: () => call(workCalendarApi.list, { year }) });
  const byDay = useMemo(() => new Map((marks.data?.days ?? []).map((d) => [d.day, d])), [marks.data]);
  const weeks = useMemo(() => weeksOf(year, month), [year, month]);
  const length = range ? diffDays(range.start, range.end) + 1 : 0;
  const tooLong = length > MAX_RANGE_DAYS;

  useEffect(() => {
    if (!focusCursor.current) return;
    focusCursor.current = false;
    gridRef.current?.querySelector<HTMLButtonElement>(`[data-day="${cursor}"]`)?.focus();
  }, [cursor]);

  // A finished range brings its panel into view (below the month on a phone).
  useEffect(() => {
    if (range) panelRef.current?.scrollIntoView?.({ block: 'nearest' });
  }, [range]);

  const moveTo = (day: string, focus: boolean) => {
    const next = inCalendar(day);
    // At the calendar's first or last day nothing moves, and the focus is where it was.
    focusCursor.current = focus && next !== cursor;
    setCursor(next);
  };
  /** The keyboard goes back to the day it was on (the panel's buttons it was on are gone). */
  const focusGrid = () => gridRef.current?.querySelector<HTMLButtonElement>(`[data-day="${cursor}"]`)?.focus();
  /** A listed day: its month shown, and the day focused (or, to a reader, the month brought into view). */
  const showDay = (day: string) => {
    moveTo(day, editable);
    if (!editable) calendarRef.current?.scrollIntoView?.({ block: 'nearest' });
  };

  const cancel = () => {
    setAnchor(null);
    setRange(null);
    setProblem(null);
    setName('');
  };

  const pick = (day: string) => {
    if (apply.isPending) return;
    setCursor(day);
    setProblem(null);
    if (anchor && !range) {
      const [start, end] = anchor <= day ? [anchor, day] : [day, anchor];
      setRange({ start, end });
      setAnchor(null);
      // The name the marked days of the range share, if they share one, to keep when marking again.
      const names = new Set([...byDay.values()].filter((d) => d.day >= start && d.day <= end && d.name).map((d) => d.name));
      setName(names.size === 1 ? [...names][0]! : '');
    } else {
      setAnchor(day);
      setRange(null);
    }
  };

  const apply = useMutation({
    mutationFn: async (action: Action) => {
      const span = { start_date: range!.start, end_date: range!.end };
      if (action === 'clear') return call(workCalendarApi.clear, span);
      return call(workCalendarApi.save, { ...span, kind: actionKinds[action], name: name.trim() });
    },
    onSuccess: async (answer, action) => {
      // The month redraws from the server's answer before the panel closes.
      await client.invalidateQueries({ queryKey: ['workCalendar'] });
      showToast({ icon: 'success', content: action === 'clear' && answer.days === 0 ? '所选日期本就按星期计算' : `${done[action]}（${answer.days}天）` });
      cancel();
      focusGrid();
    },
    onError: (err) => {
      setProblem(err.message);
      showToast({ icon: 'fail', content: `保存失败：${err.message}`, duration: 4000 });
    },
  });

  const run = (action: Action) => {
    if (!range || apply.isPending) return;
    // Checked by the schema the server checks with; the server's refusal shows the same way.
    if (action !== 'clear') {
      const checked = workCalendarSaveInput.safeParse({ start_date: range.start, end_date: range.end, kind: actionKinds[action], name });
      if (!checked.success) {
        setProblem(checked.error.issues[0]?.message ?? '输入有误');
        return;
      }
    }
    setProblem(null);
    apply.mutate(action);
  };

  const onDayKey = (e: KeyboardEvent<HTMLButtonElement>, day: string) => {
    const col = column(day);
    const to: Partial<Record<string, string>> = {
      ArrowLeft: addDays(day, -1),
      ArrowRight: addDays(day, 1),
      ArrowUp: addDays(day, -7),
      ArrowDown: addDays(day, 7),
      Home: addDays(day, -col),
      End: addDays(day, 6 - col),
      PageUp: addMonths(day, e.shiftKey ? -12 : -1),
      PageDown: addMonths(day, e.shiftKey ? 12 : 1),
    };
    const next = to[e.key];
    if (next) {
      e.preventDefault();
      moveTo(next, true);
    } else if (e.key === 'Escape' && (anchor || range)) {
      e.preventDefault();
      cancel();
    }
  };

  /** Shows a month, keeping the day of the month where it can. */
  const showMonth = (y: number, m: number) => moveTo(`${y}-${pad(m)}-${pad(Math.min(dayOf(cursor), new Date(Date.UTC(y, m, 0)).getUTCDate()))}`, false);

  const selected = (day: string) => (range ? day >= range.start && day <= range.end : day === anchor);

  const cell = (day: string | null, i: number) => {
    if (!day) return <td key={`blank-${i}`} className="wc-blank" />;
    const mark = byDay.get(day);
    const kind = mark?.kind as DayKind | undefined;
    const off = kind === DayKind.HOLIDAY || (kind !== DayKind.WORKDAY && isWeekend(day));
    const isSelected = editable && selected(day);
    const edge = isSelected && (range ? day === range.start || day === range.end : true);
    const className = [
      'wc-day',
      off ? 'wc-day--off' : '',
      kind === DayKind.HOLIDAY ? 'wc-day--holiday' : '',
      kind === DayKind.WORKDAY ? 'wc-day--workday' : '',
      day === today ? 'wc-day--today' : '',
      isSelected ? 'wc-day--selected' : '',
      edge ? 'wc-day--edge' : '',
    ]
      .filter(Boolean)
      .join(' ');
    // The grid's drawing is hidden from a screen reader, which reads the day in words instead: an aria-label would not
    // contain the drawn text ("4 休 国庆节") as WCAG 2.5.3 asks.
    const face = (
      <>
        <span className="wc-face" aria-hidden="true">
          <span className="wc-num">{dayOf(day)}</span>
          {kind && <span className="wc-badge">{kind === DayKind.HOLIDAY ? '休' : '班'}</span>}
          <span className="wc-name">{mark?.name}</span>
        </span>
        <span className="visually-hidden">{dayWords(day, mark, today)}</span>
      </>
    );
    return (
      <td key={day} aria-selected={editable ? isSelected : undefined}>
        {editable ? (
          <button
            type="button"
            className={className}
            data-day={day}
            tabIndex={day === cursor ? 0 : -1}
            aria-current={day === today ? 'date' : undefined}
            onClick={() => pick(day)}
            onKeyDown={(e) => onDayKey(e, day)}
          >
            {face}
          </button>
        ) : (
          <div className={className} data-day={day}>
            {face}
          </div>
        )}
      </td>
    );
  };

  if (marks.error && !marks.data) return <SettingsLoadFailed what="工作日历" error={marks.error} pageClass="wc" onRetry={() => void marks.refetch()} />;

  const calendar = (
    <section ref={calendarRef} className="card wc-cal" aria-label={`${year}年${month}月日历`}>
      <div className="wc-head">
        <button type="button" className="wc-nav" aria-label="上一月" disabled={cursor.slice(0, 7) <= FIRST_DAY.slice(0, 7)} onClick={() => moveTo(addMonths(cursor, -1), false)}>
          <LeftOutline aria-hidden="true" />
          <span className="wc-nav-text">上一月</span>
        </button>
        <div className="wc-when">
          <select className="wc-select" aria-label="年份" value={year} onChange={(e) => showMonth(Number(e.target.value), month)}>
            {YEARS.map((y) => (
              <option key={y} value={y}>
                {y}年
              </option>
            ))}
          </select>
          <select className="wc-select" aria-label="月份" value={month} onChange={(e) => showMonth(year, Number(e.target.value))}>
            {MONTHS.map((m) => (
              <option key={m} value={m}>
                {m}月
              </option>
            ))}
          </select>
        </div>
        <button type="button" className="wc-nav" aria-label="下一月" disabled={cursor.slice(0, 7) >= LAST_DAY.slice(0, 7)} onClick={() => moveTo(addMonths(cursor, 1), false)}>
          <span className="wc-nav-text">下一月</span>
          <RightOutline aria-hidden="true" />
        </button>
        <button type="button" className="wc-today" disabled={cursor.slice(0, 7) === today.slice(0, 7)} onClick={() => moveTo(today, false)}>
          今天
        </button>
      </div>
      <div className="wc-grid-wrap">
        <table ref={gridRef} className="wc-grid" role={editable ? 'grid' : undefined} aria-labelledby="wc-caption" aria-busy={marks.isFetching || undefined}>
          <caption id="wc-caption" className="visually-hidden">
            {year}年{month}月
          </caption>
          <thead>
            <tr>
              {WEEK.map((w, i) => (
                <th key={w} scope="col" aria-label={`星期${w}`} className={i >= 5 ? 'wc-weekend' : undefined}>
                  {w}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {weeks.map((week, w) => (
              <tr key={w}>{week.map((day, i) => cell(day, w * 7 + i))}</tr>
            ))}
          </tbody>
        </table>
        {marks.isFetching && (
          <div className="wc-loading">
            <DotLoading color="primary" /> 加载中
          </div>
        )}
      </div>
      <ul className="wc-legend" aria-label="图例">
        <li>
          <span className="wc-swatch" aria-hidden="true" />
          工作日
        </li>
        <li>
          <span className="wc-swatch wc-swatch--off" aria-hidden="true" />
          休息日（周六、周日）
        </li>
        <li>
          <span className="wc-swatch wc-swatch--holiday" aria-hidden="true">
            休
          </span>
          节假日
        </li>
        <li>
          <span className="wc-swatch wc-swatch--workday" aria-hidden="true">
            班
          </span>
          调休上班
        </li>
        <li>
          <span className="wc-swatch wc-swatch--today" aria-hidden="true" />
          今天
        </li>
      </ul>
    </section>
  );

  const panel = editable ? (
    <section ref={panelRef} className="card sf-card wc-panel" aria-labelledby="wc-panel-title" data-testid="work-calendar-panel">
      <h3 className="sf-title" id="wc-panel-title">
        设置日期
      </h3>
      <p className="wc-status" aria-live="polite">
        {range
          ? range.start === range.end
            ? `已选 ${longDate(range.start)} ${weekdayName(range.start)}，共 1 天`
            : `已选 ${longDate(range.start)} ${weekdayName(range.start)} 至 ${yearOf(range.end) === yearOf(range.start) ? shortDate(range.end) : longDate(range.end)} ${weekdayName(range.end)}，共\u00a0${length}\u00a0天`
          : anchor
            ? `开始日期 ${longDate(anchor)} ${weekdayName(anchor)}：请再点选结束日期（单日再点一次同一天）`
            : `点选开始日期和结束日期（单日点两次），一次最多${MAX_RANGE_DAYS}天${desktop ? '；也可用方向键移动，回车或空格选择' : ''}。`}
      </p>
      {tooLong && (
        <p className="sf-problem" role="alert">
          一次最多设置{MAX_RANGE_DAYS}天，已选{length}天：请重新选择。
        </p>
      )}
      {problem && (
        <p className="sf-problem" role="alert">
          {problem}
        </p>
      )}
      {range && !tooLong && (
        <div className="wc-name-field">
          <label className="sf-name" htmlFor="wc-name">
            名称
          </label>
          <input
            id="wc-name"
            className="sf-input wc-name-input"
            autoComplete="off"
            value={name}
            maxLength={NAME_MAX}
            placeholder="可不填，如：国庆节"
            aria-describedby="wc-name-hint"
            onChange={(e) => {
              setName(e.target.value);
              setProblem(null);
            }}
          />
          <span className="sf-field-hint" id="wc-name-hint">
            {name.length}/{NAME_MAX}，设为节假日或调休上班时显示在日历上
          </span>
        </div>
      )}
      {(range || anchor) && (
        <div className="wc-actions">
          {range && (
            <>
              <Button
                color="primary"
                disabled={tooLong || (apply.isPending && apply.variables !== 'holiday')}
                loading={apply.isPending && apply.variables === 'holiday'}
                onClick={() => run('holiday')}
              >
                设为节假日
              </Button>
              <Button
                color="primary"
                fill="outline"
                disabled={tooLong || (apply.isPending && apply.variables !== 'workday')}
                loading={apply.isPending && apply.variables === 'workday'}
                onClick={() => run('workday')}
              >
                设为调休上班
              </Button>
              <Button disabled={tooLong || (apply.isPending && apply.variables !== 'clear')} loading={apply.isPending && apply.variables === 'clear'} onClick={() => run('clear')}>
                恢复为按星期
              </Button>
            </>
          )}
          <Button
            fill="none"
            className="wc-cancel"
            disabled={apply.isPending}
            onClick={() => {
              cancel();
              focusGrid();
            }}
          >
            取消
          </Button>
        </div>
      )}
    </section>
  ) : (
    <p className="card sf-card sf-hint wc-readonly">可以查看工作日历；修改需要“编辑工作日历”权限。</p>
  );

  const days = marks.data?.year === year ? marks.data.days : [];
  const list = (
    <section className="card sf-card wc-list" aria-labelledby="wc-list-title" data-testid="work-calendar-list">
      <h3 className="sf-title" id="wc-list-title">
        {year}年设置过的日期
      </h3>
      <p className="sf-hint">未列出的日期按星期计算：周一至周五上班，周六、周日休息。</p>
      {marks.isPending ? (
        <div className="sf-state">
          <DotLoading color="primary" /> 加载中
        </div>
      ) : days.length === 0 ? (
        <p className="sf-hint">{year}年尚未设置节假日或调休上班。</p>
      ) : desktop ? (
        <table className="wc-table">
          <thead>
            <tr>
              <th scope="col">日期</th>
              <th scope="col">星期</th>
              <th scope="col">类型</th>
              <th scope="col">名称</th>
              <th scope="col">修改人</th>
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.day}>
                <td>
                  <DayLink day={d.day} onShow={() => showDay(d.day)} />
                </td>
                <td>{weekdayName(d.day)}</td>
                <td>
                  <KindTag kind={d.kind as DayKind} />
                </td>
                <td>{d.name || '—'}</td>
                <td>{d.update_user_name}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <ul className="wc-rows">
          {days.map((d) => (
            <li key={d.day} className="wc-row">
              <div className="wc-row-head">
                <DayLink day={d.day} onShow={() => showDay(d.day)} />
                <span className="wc-row-weekday">{weekdayName(d.day)}</span>
                <KindTag kind={d.kind as DayKind} />
              </div>
              <div className="wc-row-meta">
                {d.name && <span className="wc-row-name">{d.name}</span>}
                <span>修改人：{d.update_user_name}</span>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );

  return (
    <div className="page sf wc" data-testid="work-calendar-page">
      <div className="wc-main">
        {calendar}
        {panel}
      </div>
      {list}
    </div>
  );
}

/** A listed date: shows its month in the calendar. */
function DayLink({ day, onShow }: { day: string; onShow: () => void }) {
  return (
    <button type="button" className="wc-link" aria-label={`${shortDate(day)}，在日历中查看`} onClick={onShow}>
      {shortDate(day)}
    </button>
  );
}

function KindTag({ kind }: { kind: DayKind }) {
  return (
    <span className={`wc-tag wc-tag--${kind === DayKind.HOLIDAY ? 'holiday' : 'workday'}`}>
      <span className="wc-tag-mark" aria-hidden="true">
        {kind === DayKind.HOLIDAY ? '休' : '班'}
      </span>
      {dayKindLabels[kind]}
    </span>
  );
}
