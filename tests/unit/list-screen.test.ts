import { describe, expect, it } from 'vitest';
import {
  activeFilterCount,
  buildListParams,
  defaultFilters,
  failureText,
  fieldErrorMap,
  formErrorMap,
  fitColumnWidths,
  formValuesToBody,
  labelWidth,
  pinnedOffsets,
  loadScreenState,
  pageCount,
  pageItems,
  parseJump,
  restoreScreenState,
  rowToFormValues,
  saveScreenState,
  serializeScreenState,
  stepBackPage,
  storageKey,
  tableColumns,
} from '../../src/list-screen/conventions';
import type { FieldDef } from '../../src/list-screen/types';

interface UserLike {
  user_id: number;
  user_name: string;
  depart_id: number;
  status: number;
  begin: string;
  end: string;
}

const fields: FieldDef<UserLike>[] = [
  { name: 'userName', label: '用户名', kind: 'text', dataIndex: 'user_name' },
  { name: 'password', label: '密码', kind: 'password', hideInSearch: true },
  { name: 'departId', label: '部门', kind: 'department', dataIndex: 'depart_id' },
  { name: 'status', label: '状态', kind: 'enum', options: 'status', dataIndex: 'status' },
  { name: 'park', label: '园区', kind: 'enum', options: 'visitArea', search: { default: 1 }, hideInForm: true },
  { name: 'delayed', label: '是否延期', kind: 'yesNo', hideInForm: true },
  { name: 'visit', label: '有效时间', kind: 'datetimeRange', search: { rangeKeys: ['begin_time', 'end_time'] }, form: { rangeKeys: ['begin', 'end'] } },
  { name: 'remark', label: '备注', kind: 'text', hideInSearch: true, form: { only: 'create' } },
];

describe('filter defaults', () => {
  it("defaults 'status' and other choice filters to -1 (全部) and keeps explicit defaults", () => {
    expect(defaultFilters(fields)).toEqual({ status: -1, park: 1, delayed: -1 });
  });
});

describe('buildListParams', () => {
  it('drops blanks and -1, trims text, splits ranges, adds size and pn', () => {
    const params = buildListParams({ userName: '  张三 ', departId: undefined, status: -1, park: 2, delayed: 0, visit: ['2026-01-01 00:00:00', undefined], password: 'x' }, fields, {
      pn: 3,
      size: 20,
    });
    expect(params).toEqual({ userName: '张三', park: 2, delayed: 0, begin_time: '2026-01-01 00:00:00', size: 20, pn: 3 });
  });

  it('keeps 0 as a real value and treats a -1 department as none', () => {
    expect(buildListParams({ status: 0, departId: -1 }, fields, { pn: 1, size: 10 })).toEqual({ status: 0, size: 10, pn: 1 });
  });

  it('merges fixed params of the screen, filters win over nothing', () => {
    expect(buildListParams({}, fields, { pn: 1, size: 10 }, { type: 5 })).toEqual({ type: 5, size: 10, pn: 1 });
  });

  it('ignores an empty text filter', () => {
    expect(buildListParams({ userName: '   ' }, fields, { pn: 1, size: 10 })).toEqual({ size: 10, pn: 1 });
  });
});

describe('stepBackPage', () => {
  it('steps back one page when a page beyond the first comes back empty', () => {
    expect(stepBackPage(3, 0)).toBe(2);
  });
  it('stays on page 1 and on pages with rows', () => {
    expect(stepBackPage(1, 0)).toBeNull();
    expect(stepBackPage(4, 7)).toBeNull();
  });
});

describe('pagination helpers', () => {
  it('counts pages, at least one', () => {
    expect(pageCount(0, 10)).toBe(1);
    expect(pageCount(101, 10)).toBe(11);
    expect(pageCount(100, 100)).toBe(1);
  });
  it('lists page buttons with gaps', () => {
    expect(pageItems(1, 1)).toEqual([1]);
    expect(pageItems(1, 5)).toEqual([1, 2, 3, 4, 5]);
    expect(pageItems(10, 20)).toEqual([1, 'gap', 8, 9, 10, 11, 12, 'gap', 20]);
    expect(pageItems(2, 20)).toEqual([1, 2, 3, 4, 'gap', 20]);
  });
  it('clamps the quick jumper', () => {
    expect(parseJump('7', 5)).toBe(5);
    expect(parseJump('0', 5)).toBe(1);
    expect(parseJump('abc', 5)).toBeNull();
  });
});

describe('remembered filters', () => {
  it('round-trips through serialisation', () => {
    const state = { filters: { userName: '李', status: 1, park: 1, delayed: -1, visit: ['2026-01-01 00:00:00', '2026-01-31 23:59:59'] }, pn: 2, size: 50 };
    expect(restoreScreenState(serializeScreenState(state), fields)).toEqual(state);
  });

  it('falls back to defaults on garbage, old versions and unknown page sizes', () => {
    const defaults = { filters: { status: -1, park: 1, delayed: -1 }, pn: 1, size: 10 };
    expect(restoreScreenState('not json', fields)).toEqual(defaults);
    expect(restoreScreenState(JSON.stringify({ filters: { status: 1 } }), fields)).toEqual(defaults);
    expect(restoreScreenState(JSON.stringify({ v: 1, filters: {}, pn: -4, size: 33 }), fields)).toEqual(defaults);
  });

  it('drops filters the screen no longer declares and keeps the defaults of new ones', () => {
    const raw = JSON.stringify({ v: 1, filters: { gone: 'x', password: 'secret', userName: 'a' }, pn: 1, size: 20 });
    expect(restoreScreenState(raw, fields).filters).toEqual({ status: -1, park: 1, delayed: -1, userName: 'a' });
  });

  it('keys storage by screen and survives a throwing storage', () => {
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) };
    saveScreenState('system.users', { filters: { userName: 'x' }, pn: 1, size: 20 }, storage);
    expect([...store.keys()]).toEqual([storageKey('system.users')]);
    expect(loadScreenState('system.users', fields, storage).size).toBe(20);
    expect(loadScreenState('system.roles', fields, storage).size).toBe(10);
    const broken = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('quota');
      },
    };
    expect(() => saveScreenState('k', { filters: {}, pn: 1, size: 10 }, broken)).not.toThrow();
    expect(loadScreenState('k', fields, broken).pn).toBe(1);
  });

  it('counts filters that differ from the defaults', () => {
    expect(activeFilterCount({ status: -1, park: 1, delayed: -1 }, fields)).toBe(0);
    expect(activeFilterCount({ status: 1, park: 1, userName: 'a', delayed: -1 }, fields)).toBe(2);
  });
});

describe('form mapping', () => {
  const row: UserLike = { user_id: 7, user_name: '王五', depart_id: 3, status: 0, begin: '2026-02-01 08:00:00', end: '2026-02-02 18:00:00' };

  it('maps a row to edit values through dataIndex, never the password, nor create-only fields', () => {
    expect(rowToFormValues(fields, row)).toEqual({ userName: '王五', departId: 3, status: 0, visit: ['2026-02-01 08:00:00', '2026-02-02 18:00:00'] });
  });

  it('splits a range back into its wire params', () => {
    expect(formValuesToBody(fields, 'edit', { userName: 'a', visit: ['x', 'y'] })).toEqual({ userName: 'a', begin: 'x', end: 'y' });
  });

  it('maps zod issues and server errors to the first message per field', () => {
    expect(
      fieldErrorMap([
        { path: ['userName'], message: '请输入用户名' },
        { path: ['userName'], message: '不能超过30个文字' },
        { field: 'phone', message: '请输入11位手机号' },
        { path: [], message: 'root' },
      ]),
    ).toEqual({ userName: '请输入用户名', phone: '请输入11位手机号' });
  });

  it("reports a range's wire params under the range's one input, where the form shows it", () => {
    const issues = [
      { path: ['begin'], message: '请选择开始时间' },
      { field: 'end', message: '结束时间不能早于今天' },
      { path: ['userName'], message: '请输入用户名' },
    ];
    expect(formErrorMap(fields, 'create', issues)).toEqual({ visit: '请选择开始时间', userName: '请输入用户名' });
    expect(formErrorMap(fields, 'edit', [{ field: 'end', message: '结束时间不能早于今天' }])).toEqual({ visit: '结束时间不能早于今天' });
  });

  it('joins failure prefixes with the server message', () => {
    expect(failureText('删除失败', '记录正在被使用，不能删除')).toBe('删除失败：记录正在被使用，不能删除');
    expect(failureText('编辑错误：', '账号已存在')).toBe('编辑错误：账号已存在');
    expect(failureText('删除失败', undefined)).toBe('删除失败');
  });
});

describe('desktop table columns (issue 24 item 3)', () => {
  const col = (name: string, extra: Partial<FieldDef> = {}): FieldDef => ({ name, label: name, kind: 'text', ...extra });
  const names = (fs: FieldDef[]) => fs.map((f) => f.name);

  it('moves the state column to right after the key column', () => {
    const fields = [col('number'), col('plate'), col('company'), col('valid'), col('state'), col('creator'), col('hidden', { hideInTable: true })];
    expect(names(tableColumns(fields, { title: 'plate', extra: 'state' }))).toEqual(['number', 'plate', 'state', 'company', 'valid', 'creator']);
    // A state declared before its key lands after it too.
    expect(names(tableColumns([col('state'), col('a'), col('plate')], { title: 'plate', extra: 'state' }))).toEqual(['a', 'plate', 'state']);
  });

  it('leaves the order alone when the key or the state is not a column', () => {
    const fields = [col('a'), col('plate'), col('b'), col('state')];
    expect(names(tableColumns(fields, { title: 'plate' }))).toEqual(['a', 'plate', 'b', 'state']);
    expect(names(tableColumns(fields, { title: 'missing', extra: 'state' }))).toEqual(['a', 'plate', 'b', 'state']);
    expect(names(tableColumns([col('a'), col('state', { hideInTable: true }), col('plate')], { title: 'plate', extra: 'state' }))).toEqual(['a', 'plate']);
  });

  it('measures a header on one line: 14 px a CJK character, about half a Latin one, plus the cell padding', () => {
    expect(labelWidth('审核状态')).toBe(4 * 14 + 20);
    expect(labelWidth('车速(km/h)')).toBe(2 * 14 + 6 * 8 + 20);
  });

  it('keeps the declared widths when they fit', () => {
    expect(
      fitColumnWidths(
        [
          { width: 100, min: 50 },
          { width: 200, min: 60 },
        ],
        400,
      ),
    ).toEqual([100, 200]);
  });

  it('takes from each column in proportion to what it has above its minimum, and never more than the pane', () => {
    // 1382 px of columns into 914: the key (110) and the state (96) keep theirs, the rest give up 468 px of their 596 px of slack.
    const cols = [
      { width: 170, min: 76 },
      { width: 110, min: 110 },
      { width: 96, min: 96 },
      { width: 200, min: 76 },
      { width: 120, min: 76 },
      { width: 120, min: 62 },
      { width: 90, min: 62 },
      { width: 210, min: 90 },
      { width: 96, min: 62 },
      { width: 170, min: 76 },
    ];
    const widths = fitColumnWidths(cols, 914);
    expect(widths.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(914);
    expect(widths.reduce((a, b) => a + b, 0)).toBeGreaterThan(914 - cols.length);
    expect(widths[1]).toBe(110);
    expect(widths[2]).toBe(96);
    widths.forEach((w, i) => expect(w).toBeGreaterThanOrEqual(cols[i]!.min));
    // The wide text column gives up more than the narrow one.
    expect(200 - widths[3]!).toBeGreaterThan(90 - widths[6]!);
  });

  it('cuts first the room no cell uses, then text too long for its column, and only then the rest', () => {
    // A time column (170, cells 150 px wide), a validity range (210, cells 194), a reason whose text overflows anyway, a name column half empty.
    const cols = [
      { width: 170, min: 76, content: 150 },
      { width: 210, min: 62, content: 194 },
      { width: 200, min: 48, content: 420 },
      { width: 96, min: 62, content: 48 },
    ];
    // 676 px into 560: the time, range and name give back the 70 px no cell uses, the reason the other 46.
    expect(fitColumnWidths(cols, 560)).toEqual([150, 194, 154, 62]);
    // Into 480: the reason gives way almost to its header before the range or time lose a pixel.
    const tight = fitColumnWidths(cols, 480);
    expect(tight.slice(0, 2)).toEqual([150, 194]);
    expect(tight[2]).toBeLessThan(200);
    // Past that, everything gives in proportion, within the pane.
    const tighter = fitColumnWidths(cols, 400);
    expect(tighter.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(400);
    tighter.forEach((w, i) => expect(w).toBeGreaterThanOrEqual(cols[i]!.min));
    expect(tighter[0]).toBeLessThan(150);
  });

  it('gives a cell wider than its column the room other cells leave, rather than cutting it beside half-empty columns', () => {
    // A department's name (208 px) beside two counts under 140 px headers: 420 px hold them all whole.
    const cols = [
      { width: 140, min: 76, content: 208 },
      { width: 140, min: 48, content: 40 },
      { width: 140, min: 48, content: 40 },
    ];
    const widths = fitColumnWidths(cols, 420);
    expect(widths[0]).toBe(208);
    expect(widths.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(420);
    // The counts keep what is left, shared alike.
    expect(widths[1]).toBe(widths[2]);
    expect(widths[1]).toBeGreaterThan(48);
    // With room for everything, every column keeps at least its declared width.
    expect(fitColumnWidths(cols, 600)).toEqual([208, 140, 140]);
  });

  it('lets a key or state column give up room its cells leave, and never cut its cells', () => {
    // A 220 px key whose titles need 150 beside a time (150 of 170) and a delivery line (140 of 150).
    const cols = [
      { width: 220, min: 220, content: 150, whole: true },
      { width: 170, min: 76, content: 150 },
      { width: 150, min: 76, content: 140 },
    ];
    const roomy = fitColumnWidths(cols, 460);
    expect(roomy.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(460);
    roomy.forEach((w, i) => expect(w).toBeGreaterThanOrEqual(cols[i]!.content));
    // Tighter than the cells: the others are cut, the key keeps its cells whole.
    const tight = fitColumnWidths(cols, 400);
    expect(tight[0]).toBe(150);
    expect(tight.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(400);
    // Whether a table scrolls is still decided by the declared widths: 220 + 76 + 76 does not fit 360.
    expect(fitColumnWidths(cols, 360)).toEqual([220, 170, 150]);
  });

  it('keeps the declared widths when even the minimums do not fit, and widens a column whose header needs more than its declared width', () => {
    expect(
      fitColumnWidths(
        [
          { width: 100, min: 80 },
          { width: 100, min: 90 },
        ],
        170,
      ),
    ).toEqual([80, 90]);
    expect(
      fitColumnWidths(
        [
          { width: 100, min: 80 },
          { width: 100, min: 90 },
        ],
        169,
      ),
    ).toEqual([100, 100]);
    expect(fitColumnWidths([{ width: 60, min: 90 }], 500)).toEqual([90]);
  });

  it('keeps the declared widths until the pane is measured', () => {
    expect(fitColumnWidths([{ width: 300, min: 50 }], 0)).toEqual([300]);
  });

  it('pins a wide table through its key and state, after the checkbox and number columns', () => {
    const cols = [col('number', { fixed: 'left' }), col('plate'), col('state'), col('company')];
    const card = { title: 'plate', extra: 'state' };
    expect(pinnedOffsets(cols, [180, 120, 100, 150], 64, 600, card)).toEqual([64, 244, 364, undefined]);
    // Without room for the key and state, only the columns the screen pins itself.
    expect(pinnedOffsets(cols, [180, 120, 100, 150], 64, 400, card)).toEqual([64, undefined, undefined, undefined]);
    // A key far to the right is not worth half the pane.
    expect(pinnedOffsets([col('a'), col('b'), col('c'), col('plate')], [200, 200, 200, 100], 0, 500, card)).toEqual([undefined, undefined, undefined, undefined]);
    expect(pinnedOffsets([col('a'), col('plate')], [100, 100], 0, 500)).toEqual([undefined, undefined]);
  });
});
