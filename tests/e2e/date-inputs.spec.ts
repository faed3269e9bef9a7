import { expect, test, type Locator, type Page } from '@playwright/test';
import { formatInZone } from '../../domain/time';
import { formField, isPhone, listScreen, randomPlate, saveDraft, shot, signInAs } from './support';

/**
 * Issue 24 item 8: date fields read YYYY-MM-DD (HH:mm:ss, 24-hour) in an
 * English browser too, take typed text in that format only, and pick from the
 * phone's wheel or the desktop's calendar; the list filter and the form send
 * what the field shows.
 */
test.use({ locale: 'en-US' });

const today = () => formatInZone(new Date()).slice(0, 10);
/** The 5th of next month: a day the calendar reaches by its next-month arrow, the wheel by its month column. */
function nextMonthFifth(): { wire: string; y: number; m: number } {
  const [y, m] = today().split('-').map(Number) as [number, number];
  const next = m === 12 ? { y: y + 1, m: 1 } : { y, m: m + 1 };
  return { ...next, wire: `${next.y}-${String(next.m).padStart(2, '0')}-05` };
}

/** A field's box: the text input with its 清除 and calendar buttons. */
const box = (input: Locator) => input.locator('xpath=..');

/** 确定 of the open wheel. */
const confirmWheel = (page: Page) => page.locator('.adm-picker-header-button:visible', { hasText: '确定' });

/** Taps one wheel item (the columns read 2026年 / 11月 / 5日) and waits until the wheel has settled on it. */
async function wheel(page: Page, text: string) {
  const item = page.locator('.adm-picker-view-column-item', { hasText: new RegExp(`^${text}$`) });
  // A column's items are re-rendered when the column before it changes (a new year opens other months): a tap
  // landing on the old items is lost, so it is tapped again until it holds.
  await expect(async () => {
    await item.dispatchEvent('click');
    await expect(item).toHaveAttribute('data-selected', 'true', { timeout: 2_000 });
  }).toPass();
}

test('a time filter reads 24-hour YYYY-MM-DD HH:mm:ss, takes typed text strictly, and the picker narrows the list', async ({ page }) => {
  await signInAs(page, 'admin');
  const list = listScreen(page);
  await list.open('/system/login-logs');
  const openFilters = async () => {
    if (isPhone(page)) await page.getByRole('button', { name: /筛选/ }).click();
  };
  const search = async () => {
    await page.locator('.ff').getByRole('button', { name: '查询' }).click();
    if (isPhone(page)) await expect(page.locator('.ls-sheet')).toBeHidden();
  };
  await openFilters();
  const start = page.getByLabel('登录时间开始');
  const end = page.getByLabel('登录时间结束');
  await expect(start).toHaveValue(/^\d{4}-\d{2}-\d{2} \d{2}:00:00$/);
  await expect(end).toHaveValue(`${today()} 23:59:59`);
  await expect(start).toHaveAttribute('type', 'text');
  await shot(page, 'dates-filter');

  // Typed in the field's format (24-hour), the range narrows the list to none.
  await start.fill('2001-01-01 00:00:00');
  await end.fill('2001-01-02 15:30:00');
  // An English browser's way of writing it is refused with a hint, and the last valid time stays.
  await end.fill('01/02/2001 3:30 PM');
  await end.blur();
  await expect(page.getByRole('alert').filter({ hasText: '请按 YYYY-MM-DD HH:mm:ss 输入' })).toBeVisible();
  await expect(end).toHaveValue('2001-01-02 15:30:00');
  await shot(page, 'dates-filter-hint');
  await search();
  await expect(page.getByText('暂无数据')).toBeVisible();
  await expect(list.rows()).toHaveCount(0);
  // 重置 brings the default range back, and the hint about the refused text goes with the value it was about.
  await openFilters();
  await page.locator('.ff').getByRole('button', { name: '重置' }).click();
  // The phone's sheet closes on 重置.
  if (isPhone(page)) {
    await expect(page.locator('.ls-sheet')).toBeHidden();
    await openFilters();
  }
  await expect(end).toHaveValue(`${today()} 23:59:59`);
  await expect(page.getByRole('alert').filter({ hasText: '请按' })).toHaveCount(0);

  // Emptied by 清除 and picked again: from today's start to its end the admin's own sign-in shows.
  for (const input of [start, end]) await box(input).getByRole('button', { name: '清除' }).click();
  await expect(start).toHaveValue('');
  await expect(end).toHaveValue('');
  await box(start).getByRole('button', { name: '选择日期时间' }).click();
  if (isPhone(page)) {
    // The wheel starts at today, the start of the day for a range's start.
    await expect(page.locator('.adm-picker-header-title')).toHaveText('登录时间开始');
    await shot(page, 'dates-filter-picker');
    await confirmWheel(page).click();
    // The closing wheel keeps its 确定 visible for a moment: the end's wheel is opened once it is gone.
    await expect(confirmWheel(page)).toHaveCount(0);
  } else {
    const panel = page.getByRole('dialog', { name: '选择日期和时间' });
    await panel.locator('.adm-calendar-cell-today').click();
    await panel.getByLabel('时', { exact: true }).selectOption('0');
    await shot(page, 'dates-filter-picker');
    await panel.getByRole('button', { name: '确定' }).click();
    await expect(panel).toBeHidden();
  }
  await expect(start).toHaveValue(`${today()} 00:00:00`);
  await box(end).getByRole('button', { name: '选择日期时间' }).click();
  if (isPhone(page)) await confirmWheel(page).click();
  else {
    const panel = page.getByRole('dialog', { name: '选择日期和时间' });
    // A range's end starts at the end of the day; hours run 00–23.
    await expect(panel.getByLabel('时', { exact: true })).toHaveValue('23');
    await expect(panel.getByLabel('时', { exact: true }).locator('option')).toHaveText(Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0')));
    await panel.locator('.adm-calendar-cell-today').click();
    await panel.getByRole('button', { name: '确定' }).click();
  }
  await expect(end).toHaveValue(`${today()} 23:59:59`);
  await search();
  await expect(list.rows().filter({ hasText: '系统管理员' }).first()).toBeVisible();
});

test('a form date is picked from the calendar or the wheel and saved as shown', async ({ page }) => {
  const plate = randomPlate();
  await signInAs(page, 'lead');
  const list = listScreen(page);
  await list.open('/vehicles/car-list');
  await page.getByRole('button', { name: /新增车辆黑白名单/ }).click();
  await formField(page, '车牌号').locator('input').fill(plate);
  await formField(page, '名单类型').getByText('黑名单').click();
  await formField(page, '原因').locator('textarea').first().fill('日期选择测试');

  const start = page.getByLabel('有效期开始');
  const end = page.getByLabel('有效期结束');
  await expect(start).toHaveAttribute('placeholder', 'YYYY-MM-DD');
  // Typed: shown and kept as typed, in any browser language.
  await start.fill(today());
  await start.blur();
  await expect(start).toHaveValue(today());

  // Picked: the 5th of next month.
  const target = nextMonthFifth();
  await box(end).getByRole('button', { name: '选择日期' }).click();
  if (isPhone(page)) {
    await wheel(page, `${target.y}年`);
    await wheel(page, `${target.m}月`);
    await wheel(page, '5日');
    await shot(page, 'dates-form-picker');
    await confirmWheel(page).click();
  } else {
    const panel = page.getByRole('dialog', { name: '选择日期', exact: true });
    // Days before the start cannot be picked.
    await expect(panel.locator('.adm-calendar-cell-today').locator('xpath=preceding-sibling::div[1]')).toHaveClass(/adm-calendar-cell-disabled/);
    await shot(page, 'dates-form-picker');
    await panel.locator('.adm-calendar-arrow-button-right-month').click();
    await expect(panel.locator('.adm-calendar-title')).toHaveText(`${target.y}年${target.m}月`);
    await panel.locator('.adm-calendar-cell:not(.adm-calendar-cell-disabled)', { hasText: /^5$/ }).click();
    await expect(panel).toBeHidden();
  }
  await expect(end).toHaveValue(target.wire);
  await shot(page, 'dates-form');

  await saveDraft(page);
  await expect(page.getByText('创建成功！')).toBeVisible();
  await expect(list.row(plate)).toContainText(`${today()} 至 ${target.wire}`);
});
