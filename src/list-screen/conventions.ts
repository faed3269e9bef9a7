/**
 * The shared list conventions of spec 000 §1 that carry logic, kept pure (no
 * React, no I/O besides an injected Storage) so unit tests pin them down.
 */
import { ALL } from '../../domain/enums';
import { DEFAULT_PAGE_SIZE, PAGE_SIZE_OPTIONS } from '../../domain/envelope';
import type { FieldDef, FormMode, Row, Values } from './types';

export { DEFAULT_PAGE_SIZE, PAGE_SIZE_OPTIONS };

const RANGE_KINDS = new Set(['dateRange', 'datetimeRange']);
const CHOICE_KINDS = new Set(['enum', 'yesNo']);

export const isRangeKind = (kind: string) => RANGE_KINDS.has(kind);

export function searchFields<R extends Row>(fields: FieldDef<R>[]): FieldDef<R>[] {
  return fields.filter((f) => !f.hideInSearch);
}

/** Filter defaults: an explicit default wins; choice filters (status above all) start at -1, 全部. */
export function defaultFilters<R extends Row>(fields: FieldDef<R>[]): Values {
  const out: Values = {};
  for (const f of searchFields(fields)) {
    if (f.search && 'default' in f.search) out[f.name] = f.search.default;
    else if (CHOICE_KINDS.has(f.kind) || f.name === 'status') out[f.name] = ALL;
  }
  return out;
}

function isBlank(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && v.every(isBlank));
}

/**
 * size, pn and the filters as the list call takes them: blanks and -1 ("all")
 * are left out, text is trimmed, a range is split into its two wire params.
 */
export function buildListParams<R extends Row>(filters: Values, fields: FieldDef<R>[], page: { pn: number; size: number }, extra: Values = {}): Values {
  const params: Values = { ...extra };
  for (const f of searchFields(fields)) {
    const v = filters[f.name];
    if (isBlank(v)) continue;
    if (isRangeKind(f.kind)) {
      if (!Array.isArray(v)) continue;
      const [fromKey, toKey] = f.search?.rangeKeys ?? [`${f.name}Start`, `${f.name}End`];
      if (!isBlank(v[0])) params[fromKey] = v[0];
      if (!isBlank(v[1])) params[toKey] = v[1];
      continue;
    }
    if ((CHOICE_KINDS.has(f.kind) || f.kind === 'department' || f.name === 'status') && Number(v) === ALL) continue;
    params[f.name] = typeof v === 'string' ? v.trim() : v;
  }
  params.size = page.size;
  params.pn = page.pn;
  return params;
}

/** An empty page beyond the first (after a fetch or a delete): the page to step back to, else null. */
export function stepBackPage(pn: number, listLength: number): number | null {
  return listLength === 0 && pn > 1 ? pn - 1 : null;
}

export function pageCount(total: number, size: number): number {
  return Math.max(1, Math.ceil(total / Math.max(1, size)));
}

/** Page buttons around the current page with '…' gaps, always showing the first and last page. */
export function pageItems(current: number, pages: number, around = 2): Array<number | 'gap'> {
  const items: Array<number | 'gap'> = [];
  const from = Math.max(2, current - around);
  const to = Math.min(pages - 1, current + around);
  items.push(1);
  // A gap that would hide a single page shows that page instead.
  if (from === 3) items.push(2);
  else if (from > 3) items.push('gap');
  for (let i = from; i <= to; i++) items.push(i);
  if (to === pages - 2) items.push(pages - 1);
  else if (to < pages - 2) items.push('gap');
  if (pages > 1) items.push(pages);
  return items;
}

/** Quick jumper: a typed page number clamped into range; null when not a number. */
export function parseJump(text: string, pages: number): number | null {
  const n = Number.parseInt(text.trim(), 10);
  if (!Number.isFinite(n)) return null;
  return Math.min(Math.max(1, n), pages);
}

export interface ScreenState {
  filters: Values;
  pn: number;
  size: number;
}

export const storageKey = (screenKey: string) => `list-screen:${screenKey}`;

export function serializeScreenState(state: ScreenState): string {
  return JSON.stringify({ v: 1, ...state });
}

/**
 * Restores what was remembered for a screen. Anything unreadable, stale or
 * unknown falls back to the defaults so a changed screen description never
 * sends a filter it no longer declares.
 */
export function restoreScreenState<R extends Row>(raw: string | null | undefined, fields: FieldDef<R>[]): ScreenState {
  const defaults: ScreenState = { filters: defaultFilters(fields), pn: 1, size: DEFAULT_PAGE_SIZE };
  if (!raw) return defaults;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return defaults;
  }
  if (!parsed || typeof parsed !== 'object' || (parsed as { v?: unknown }).v !== 1) return defaults;
  const p = parsed as Partial<ScreenState>;
  const known = new Set(searchFields(fields).map((f) => f.name));
  const filters = { ...defaults.filters };
  if (p.filters && typeof p.filters === 'object') {
    for (const [k, v] of Object.entries(p.filters)) if (known.has(k)) filters[k] = v;
  }
  const size = (PAGE_SIZE_OPTIONS as readonly number[]).includes(Number(p.size)) ? Number(p.size) : DEFAULT_PAGE_SIZE;
  const pn = Number.isInteger(p.pn) && (p.pn as number) >= 1 ? (p.pn as number) : 1;
  return { filters, pn, size };
}

export function loadScreenState<R extends Row>(screenKey: string, fields: FieldDef<R>[], storage: Pick<Storage, 'getItem'> | undefined = safeSession()): ScreenState {
  let raw: string | null = null;
  try {
    raw = storage?.getItem(storageKey(screenKey)) ?? null;
  } catch {
    raw = null;
  }
  return restoreScreenState(raw, fields);
}

export function saveScreenState(screenKey: string, state: ScreenState, storage: Pick<Storage, 'setItem'> | undefined = safeSession()): void {
  try {
    storage?.setItem(storageKey(screenKey), serializeScreenState(state));
  } catch {
    // Private mode or a full quota: remembering filters is a comfort, not a duty.
  }
}

function safeSession(): Storage | undefined {
  try {
    return typeof sessionStorage === 'undefined' ? undefined : sessionStorage;
  } catch {
    return undefined;
  }
}

/** How many filters differ from their defaults (the badge on the phone's filter button). */
export function activeFilterCount<R extends Row>(filters: Values, fields: FieldDef<R>[]): number {
  const defaults = defaultFilters(fields);
  return searchFields(fields).filter((f) => {
    const v = filters[f.name];
    if (isBlank(v)) return false;
    return JSON.stringify(v) !== JSON.stringify(defaults[f.name]);
  }).length;
}

export function cellValue<R extends Row>(row: R, field: FieldDef<R>): unknown {
  return (row as Record<string, unknown>)[field.dataIndex ?? field.name];
}

export function formFields<R extends Row>(fields: FieldDef<R>[], mode: FormMode): FieldDef<R>[] {
  return fields.filter((f) => !f.hideInForm && (!f.form?.only || f.form.only === mode));
}

/** Row → form values through each form field's dataIndex; ranges read their two row keys. */
export function rowToFormValues<R extends Row>(fields: FieldDef<R>[], row: R): Values {
  const r = row as Record<string, unknown>;
  const out: Values = {};
  for (const f of formFields(fields, 'edit')) {
    if (f.kind === 'password') continue;
    if (isRangeKind(f.kind) && f.form?.rangeKeys) {
      out[f.name] = [r[f.form.rangeKeys[0]], r[f.form.rangeKeys[1]]];
      continue;
    }
    const v = r[f.dataIndex ?? f.name];
    out[f.name] = v === null ? undefined : v;
  }
  return out;
}

/** Form values → body fields: ranges split into their wire params, everything else as is. */
export function formValuesToBody<R extends Row>(fields: FieldDef<R>[], mode: FormMode, values: Values): Values {
  const out: Values = {};
  const byName = new Map(formFields(fields, mode).map((f) => [f.name, f]));
  for (const [k, v] of Object.entries(values)) {
    const f = byName.get(k);
    if (f && isRangeKind(f.kind)) {
      const [a, b] = f.form?.rangeKeys ?? [`${k}Start`, `${k}End`];
      const pair = Array.isArray(v) ? v : [];
      out[a] = pair[0];
      out[b] = pair[1];
    } else out[k] = v;
  }
  return out;
}

/** zod issues (or server data.errors) → first message per top-level field. */
export function fieldErrorMap(issues: ReadonlyArray<{ path?: ReadonlyArray<PropertyKey>; field?: string; message: string }>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of issues) {
    const key = i.field ?? (i.path && i.path.length ? String(i.path[0]) : '');
    if (key && !(key in out)) out[key] = i.message;
  }
  return out;
}

/**
 * fieldErrorMap for a form: a range's two wire params (start_time, end_time)
 * report under the range's one input (有效期), the only place the form shows
 * them; left under their own names they were shown nowhere (issue 24 item 8).
 */
export function formErrorMap<R extends Row>(
  fields: FieldDef<R>[],
  mode: FormMode,
  issues: ReadonlyArray<{ path?: ReadonlyArray<PropertyKey>; field?: string; message: string }>,
): Record<string, string> {
  const owner = new Map<string, string>();
  for (const f of formFields(fields, mode)) {
    if (!isRangeKind(f.kind)) continue;
    for (const k of f.form?.rangeKeys ?? [`${f.name}Start`, `${f.name}End`]) owner.set(k, f.name);
  }
  return fieldErrorMap(
    issues.map((i) => {
      const key = i.field ?? (i.path && i.path.length ? String(i.path[0]) : '');
      return { field: owner.get(key) ?? key, message: i.message };
    }),
  );
}

/** The shared create/edit/delete messages (spec 000 §8, 002 §8), overridable per screen. */
export const MESSAGES = {
  createOk: '创建成功！',
  editOk: '编辑成功！',
  createFail: '创建错误：',
  editFail: '编辑错误：',
  deleteConfirm: '确认删除？',
  deleteOk: '删除成功！',
  deleteFail: '删除失败',
  submitOk: '提交成功！',
  submitFail: '提交失败',
  detailFail: '获取详情失败',
  empty: '暂无数据',
  openMissing: '未在当前列表中找到该记录，可能已处理或不符合当前筛选条件',
} as const;

/** '删除失败' + message reads as one sentence; a trailing colon already separates. */
export function failureText(prefix: string, message: string | undefined): string {
  if (!message) return prefix;
  return /[：:]$/.test(prefix) ? `${prefix}${message}` : `${prefix}：${message}`;
}

/**
 * The desktop table's columns in order: the row's state (card.extra) moves to
 * right after its key (card.title), so that it is read with the row's name and
 * never lands at the far right, under the pinned 操作 column or past the pane.
 */
export function tableColumns<R extends Row>(fields: FieldDef<R>[], card?: { title: string; extra?: string }): FieldDef<R>[] {
  const cols = fields.filter((f) => !f.hideInTable);
  const keyAt = cols.findIndex((f) => f.name === card?.title);
  const stateAt = cols.findIndex((f) => f.name === card?.extra);
  if (keyAt < 0 || stateAt < 0) return cols;
  const [state] = cols.splice(stateAt, 1);
  cols.splice(cols.findIndex((f) => f.name === card?.title) + 1, 0, state!);
  return cols;
}

/**
 * Left offsets of the columns that stay in view while a wide table scrolls
 * sideways: the leading columns a screen pins with `fixed`, and through the key
 * and its state when those end within `room` px (half the pane, say); the
 * others scroll (undefined). `lead` is the width of the checkbox and number
 * columns before them.
 */
export function pinnedOffsets<R extends Row>(cols: FieldDef<R>[], widths: number[], lead: number, room: number, card?: { title: string; extra?: string }): Array<number | undefined> {
  const lefts: number[] = [];
  let left = lead;
  for (const w of widths) {
    lefts.push(left);
    left += w;
  }
  const end = (i: number) => (i < 0 ? lead : lefts[i]! + widths[i]!);
  let fixedRun = 0;
  while (cols[fixedRun]?.fixed) fixedRun++;
  const keyAt = cols.findIndex((f) => f.name === card?.title);
  const stateAt = keyAt >= 0 ? cols.findIndex((f) => f.name === card?.extra) : -1;
  const through = Math.max(keyAt, stateAt);
  const last = through >= fixedRun && end(through) <= room ? through : fixedRun - 1;
  return cols.map((_, i) => (i <= last ? lefts[i] : undefined));
}

/** Horizontal padding of a desktop cell (list-screen.css .dtb th/td) and the width of one CJK character at 14 px. */
export const CELL_PADDING = 20;
const CHAR_WIDTH = 14;

/** Width of a label on one line at 14 px: a CJK character is 14 px, a Latin one about half. */
export function textWidth(label: string): number {
  let w = 0;
  for (const ch of label) w += ch.charCodeAt(0) > 0xff ? CHAR_WIDTH : CHAR_WIDTH / 2 + 1;
  return Math.ceil(w);
}

/** Width a table header needs on one line, its cell padding included. */
export const labelWidth = (label: string): number => textWidth(label) + CELL_PADDING;

/** The widest a key column grows to show its page's keys whole. */
export const KEY_MAX_WIDTH = 320;

export interface ColumnSpec {
  /** Declared width: what the column takes when there is room. */
  width: number;
  /** Narrowest it may get before the table scrolls instead: its header on one line, or its declared width for a column that must not be cut (key, state). */
  min: number;
  /** Width of its widest cell on the page, padding included (for a `whole` column, at least its header); absent when a cell is drawn rather than text (unknown). */
  content?: number;
  /** Never cut (key, state, pinned): it keeps its cells whole, and gives up declared room they do not use when others need it. */
  whole?: boolean;
}

/** Floors each width so rounding never pushes the sum past the pane, taking `cut` px in proportion to what each has above its floor. */
function cutDown(widths: number[], floor: number[], cut: number): number[] {
  const slack = widths.reduce((n, w, i) => n + Math.max(0, w - floor[i]!), 0);
  if (slack <= 0 || cut <= 0) return widths;
  const share = Math.min(1, cut / slack);
  return widths.map((w, i) => Math.floor(w - Math.max(0, w - floor[i]!) * share));
}

/**
 * Widths that fit `available` px, every cell of the page whole where the pane
 * allows. A column needs its widest cell (`content`), or its declared width
 * when its cells are not plain text:
 * - when every column gets that, each also keeps its declared room as far as
 *   the pane allows; a cell wider than its declared column (a department's
 *   long name) takes room the others' cells do not use (a count under a 140 px
 *   header), rather than being cut beside them;
 * - when they do not, what is cut is what a reader misses least: first text
 *   longer than its declared column (reasons, names), down to its header; then
 *   every column that may be cut in proportion to what it has above its header.
 *   So dates, times and tags stay whole while free text gives way, and a key
 *   or state column (`whole`) is never cut, though it gives up room its cells
 *   do not use.
 * When even the minimums do not fit, the table has to scroll sideways anyway,
 * so it keeps the declared widths and shows its text whole (spec 000 §2's wide
 * tables); whether it does depends on the declaration, not on the page shown.
 */
export function fitColumnWidths(cols: ColumnSpec[], available: number): number[] {
  const declared = cols.map((c) => Math.max(c.width, c.min));
  if (!(available > 0) || cols.reduce((n, c) => n + c.min, 0) > available) return declared;
  const need = cols.map((c, i) => (c.content === undefined ? declared[i]! : c.whole ? c.content : Math.max(c.min, c.content)));
  const target = cols.map((_, i) => Math.max(declared[i]!, need[i]!));
  const sum = (ws: number[]) => ws.reduce((a, b) => a + b, 0);
  if (sum(target) <= available) return target;
  const spare = available - sum(need);
  if (spare >= 0) {
    // Every cell whole; the declared room that is left is shared in proportion to what each column gave up.
    const share = spare / (sum(target) - sum(need));
    return need.map((n, i) => n + Math.floor((target[i]! - n) * share));
  }
  const overflowing = cols.map((c, i) => (!c.whole && c.content !== undefined && c.content > c.width ? c.min : need[i]!));
  const cuttable = cols.map((c, i) => (c.whole ? need[i]! : c.min));
  let widths = need;
  for (const floor of [overflowing, cuttable]) {
    const over = sum(widths) - available;
    if (over <= 0) break;
    widths = cutDown(widths, floor, over);
  }
  return widths;
}
