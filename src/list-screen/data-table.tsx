import { Checkbox, Popover } from 'antd-mobile';
import { MoreOutline } from 'antd-mobile-icons';
import { useEffect, useRef, useState, type MouseEvent, type ReactNode } from 'react';
import { CELL_PADDING, fitColumnWidths, KEY_MAX_WIDTH, labelWidth, pinnedOffsets, tableColumns, textWidth } from './conventions';
import { FieldValue, fieldText } from './field-value';
import type { FieldDef, Row, ScreenDef } from './types';
// The list screen's styles: a report screen (src/features/reports) draws this part without the rest.
import './list-screen.css';

export interface BoundAction {
  key: string;
  label: string;
  danger?: boolean;
  run: () => void;
}

export interface DataTableProps<R extends Row> {
  rows: R[];
  rowKey: keyof R & string;
  fields: FieldDef<R>[];
  /** The row's key and state fields: the state column is placed beside the key column, and neither is narrowed. */
  card?: ScreenDef<R>['card'];
  actionsFor?: (row: R) => BoundAction[];
  hasActions: boolean;
  onOpen?: (row: R) => void;
  rowClassName?: (row: R) => string | undefined;
  selection?: { selected: Set<unknown>; toggle: (key: unknown) => void; toggleAll: (on: boolean) => void };
  /** Replaces the body (skeleton, empty and error states) while keeping the header. */
  placeholder?: ReactNode;
  busy?: boolean;
  /** Shows a leading 序号 column starting at this number (the first row of the page). */
  rowNumberFrom?: number;
  /** Names the table's pane, which scrolls when the table is wider than the screen and so must take the keyboard's focus. */
  label: string;
}

const INLINE_ACTIONS = 4;
const CHECK_WIDTH = 48;
const NUMBER_WIDTH = 64;
const DEFAULT_WIDTH = 140;

/** The buttons a row shows inline: all of them up to four, else three and 更多. */
const inlineLabels = (actions: BoundAction[]) => (actions.length > INLINE_ACTIONS ? [...actions.slice(0, INLINE_ACTIONS - 1).map((a) => a.label), '更多…'] : actions.map((a) => a.label));

/** The actions column as wide as the widest row of this page needs (not every action the screen has: a row shows only those its state allows). */
function actionColumnWidth(labelsPerRow: string[][]): number {
  const widest = Math.max(0, ...labelsPerRow.map((labels) => labels.reduce((n, l) => n + l.length * 14 + 16, 0)));
  return Math.max(labelWidth('操作'), CELL_PADDING + 8 + widest);
}

// A tag's border and padding (list-screen.css .ls-tag) beside its 12 px text.
const TAG_CHROME = 18;

let pen: CanvasRenderingContext2D | null | undefined;
/**
 * Width of a cell's text in the page's own font, measured rather than guessed:
 * Latin digits are 7.8 px in one font and 8.5 in another, and a time column
 * fitted on a guess would be cut by a character. Falls back to the estimate
 * where there is no canvas.
 */
function drawnWidth(text: string, px: number, weight = 400): number {
  if (pen === undefined) {
    pen = typeof document === 'undefined' ? null : (document.createElement('canvas').getContext?.('2d') ?? null);
  }
  if (!pen) return (textWidth(text) * px) / 14;
  const font = `${weight} ${px}px ${getComputedStyle(document.body).fontFamily}`;
  if (pen.font !== font) pen.font = font;
  return Math.ceil(pen.measureText(text).width);
}

/** A header's width on one line in its bold 14 px (list-screen.css .dtb th), padding included: Latin letters in it ('(MB)') are wider than the estimate. */
const headerWidth = (label: string) => Math.max(labelWidth(label), drawnWidth(label, 14, 600) + CELL_PADDING);

/** Widest cell of a column on this page, padding included, or undefined when a cell is not plain text or there are no rows. */
function contentWidth<R extends Row>(f: FieldDef<R>, rows: R[]): number | undefined {
  let widest = 0;
  for (const r of rows) {
    const text = fieldText(f, r);
    if (text === undefined) return undefined;
    widest = Math.max(widest, drawnWidth(text, f.tag ? 12 : 14));
  }
  return rows.length ? widest + CELL_PADDING + (f.tag ? TAG_CHROME : 0) : undefined;
}

/** A cell cut short by its column shows its whole text on hover, also when it is drawn by a render function. */
function titleIfCut(e: MouseEvent<HTMLElement>) {
  const td = (e.target as HTMLElement).closest('td.dtb-cell');
  if (td instanceof HTMLElement && !td.title && td.scrollWidth > td.clientWidth) td.title = (td.textContent ?? '').trim();
}

/** The scroll box's inner width, followed as the window or the side menu changes it. */
function useInnerWidth() {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => setWidth(el.clientWidth));
    ro.observe(el);
    setWidth(el.clientWidth);
    return () => ro.disconnect();
  }, []);
  return [ref, width] as const;
}

function ActionCell({ actions }: { actions: BoundAction[] }) {
  if (!actions.length) return <span className="ls-dash">-</span>;
  const inline = actions.length > INLINE_ACTIONS ? actions.slice(0, INLINE_ACTIONS - 1) : actions;
  const rest = actions.length > INLINE_ACTIONS ? actions.slice(INLINE_ACTIONS - 1) : [];
  return (
    <span className="dtb-actions">
      {inline.map((a) => (
        <button key={a.key} type="button" className={`dtb-link${a.danger ? ' dtb-link--danger' : ''}`} onClick={a.run} onDoubleClick={(e) => e.stopPropagation()}>
          {a.label}
        </button>
      ))}
      {rest.length > 0 && (
        <Popover.Menu
          trigger="click"
          placement="bottom-end"
          actions={rest.map((a) => ({ key: a.key, text: <span className={a.danger ? 'dtb-menu--danger' : undefined}>{a.label}</span>, onClick: a.run }))}
        >
          <button type="button" className="dtb-link" aria-label="更多操作">
            更多 <MoreOutline />
          </button>
        </Popover.Menu>
      )}
    </span>
  );
}

/**
 * The desktop table: semantic markup, sticky header, zebra rows, the actions
 * pinned right. Columns are fitted to the pane (fitColumnWidths): long text is
 * cut with an ellipsis and shown whole on hover and in the detail; the table
 * scrolls sideways only when even the narrowest columns do not fit.
 */
export function DataTable<R extends Row>({ rows, rowKey, fields, card, actionsFor, hasActions, onOpen, rowClassName, selection, placeholder, busy, rowNumberFrom, label }: DataTableProps<R>) {
  const [scrollRef, inner] = useInnerWidth();
  const cols = tableColumns(fields, card);
  const keys = rows.map((r) => (r as Record<string, unknown>)[rowKey]);
  const allOn = selection && keys.length > 0 && keys.every((k) => selection.selected.has(k));
  const someOn = selection && keys.some((k) => selection.selected.has(k));
  const numbered = rowNumberFrom !== undefined;
  const rowActions = hasActions ? rows.map((r) => actionsFor?.(r) ?? []) : [];
  const actionWidth = hasActions ? actionColumnWidth(rowActions.map(inlineLabels)) : 0;
  const fixedWidth = actionWidth + (selection ? CHECK_WIDTH : 0) + (numbered ? NUMBER_WIDTH : 0);
  const whole = new Set([card?.title, card?.extra]);
  const widths = fitColumnWidths(
    cols.map((f) => {
      const width = f.width ?? DEFAULT_WIDTH;
      const header = headerWidth(f.label);
      const content = contentWidth(f, rows);
      if (!whole.has(f.name) && !f.fixed) return { width, min: header, content };
      // A column that is not cut (key, state, pinned) counts its declared width towards whether a table fits or scrolls
      // (spec 000 §2's wide tables), which so does not change with the page shown; the key widens to its page's keys,
      // up to KEY_MAX_WIDTH. While the table fits, such a column gives up the room its cells leave (a short title).
      const key = f.name === card?.title && content !== undefined ? Math.min(KEY_MAX_WIDTH, content) : undefined;
      const shown = f.name === card?.title ? key : content;
      return { width, min: Math.max(width, header, key ?? 0), content: shown === undefined ? undefined : Math.max(header, shown), whole: true };
    }),
    inner - fixedWidth,
  );
  const minWidth = widths.reduce((a, b) => a + b, 0) + fixedWidth;
  // A table too wide for its pane keeps its key and state in view while it scrolls (the actions are pinned right).
  const lead = (selection ? CHECK_WIDTH : 0) + (numbered ? NUMBER_WIDTH : 0);
  const pins = inner > 0 && minWidth > inner ? pinnedOffsets(cols, widths, lead, inner / 2, card) : [];
  const lastPin = pins.reduce<number>((n, p, i) => (p === undefined ? n : i), -1);
  const pinned = lastPin >= 0;
  const pinClass = (i: number, base?: string) => [base, pins[i] !== undefined ? 'dtb-fixed-left' : '', i === lastPin ? 'dtb-fixed-left--last' : ''].filter(Boolean).join(' ') || undefined;
  const pinStyle = (i: number) => (pins[i] === undefined ? undefined : { left: pins[i] });
  return (
    <div ref={scrollRef} className={`dtb-scroll${busy ? ' dtb-scroll--busy' : ''}`} role="region" aria-label={label} tabIndex={0}>
      <table className="dtb" style={{ minWidth }}>
        <colgroup>
          {selection && <col style={{ width: CHECK_WIDTH }} />}
          {numbered && <col style={{ width: NUMBER_WIDTH }} />}
          {cols.map((f, i) => (
            <col key={f.name} style={{ width: widths[i] }} />
          ))}
          {hasActions && <col style={{ width: actionWidth }} />}
        </colgroup>
        <thead>
          <tr>
            {selection && (
              <th className={pinned ? 'dtb-check dtb-fixed-left' : 'dtb-check'} style={pinned ? { left: 0 } : undefined} scope="col">
                <Checkbox checked={!!allOn} indeterminate={!allOn && !!someOn} onChange={(on) => selection.toggleAll(on)}>
                  <span className="visually-hidden">全选本页</span>
                </Checkbox>
              </th>
            )}
            {numbered && (
              <th scope="col" className={pinned ? 'dtb-num dtb-fixed-left' : 'dtb-num'} style={pinned ? { left: selection ? CHECK_WIDTH : 0 } : undefined}>
                序号
              </th>
            )}
            {cols.map((f, i) => (
              <th key={f.name} scope="col" style={{ textAlign: f.align, ...pinStyle(i) }} className={pinClass(i)}>
                {f.label}
              </th>
            ))}
            {hasActions && (
              <th scope="col" className="dtb-action-col">
                操作
              </th>
            )}
          </tr>
        </thead>
        <tbody onMouseOver={titleIfCut}>
          {placeholder ? (
            <tr className="dtb-placeholder">
              <td colSpan={cols.length + (hasActions ? 1 : 0) + (selection ? 1 : 0) + (numbered ? 1 : 0)}>{placeholder}</td>
            </tr>
          ) : (
            rows.map((r, i) => {
              const k = (r as Record<string, unknown>)[rowKey];
              const on = selection?.selected.has(k);
              return (
                <tr
                  key={String(k)}
                  className={[on ? 'dtb-row--selected' : '', rowClassName?.(r) ?? '', onOpen ? 'dtb-row--open' : ''].join(' ').trim() || undefined}
                  onDoubleClick={onOpen ? () => onOpen(r) : undefined}
                  title={onOpen ? '双击查看详情' : undefined}
                >
                  {selection && (
                    <td className={pinned ? 'dtb-check dtb-fixed-left' : 'dtb-check'} style={pinned ? { left: 0 } : undefined}>
                      <Checkbox checked={!!on} onChange={() => selection.toggle(k)}>
                        <span className="visually-hidden">选择此行</span>
                      </Checkbox>
                    </td>
                  )}
                  {numbered && (
                    <td className={pinned ? 'dtb-num dtb-fixed-left' : 'dtb-num'} style={pinned ? { left: selection ? CHECK_WIDTH : 0 } : undefined}>
                      {rowNumberFrom + i}
                    </td>
                  )}
                  {cols.map((f, c) => (
                    <td key={f.name} style={{ textAlign: f.align, ...pinStyle(c) }} className={pinClass(c, 'dtb-cell')}>
                      <FieldValue field={f} row={r} />
                    </td>
                  ))}
                  {hasActions && (
                    <td className="dtb-action-col">
                      <ActionCell actions={rowActions[i] ?? []} />
                    </td>
                  )}
                </tr>
              );
            })
          )}
        </tbody>
      </table>
    </div>
  );
}
