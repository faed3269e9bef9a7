import { expect, test, type Page } from '@playwright/test';
import { addDays } from '../../domain/visit-rules';
import { isWeekend, weekdayOf } from '../../domain/work-calendar';
import { axeFindings } from './a11y-checks';
import { call, isPhone, shot, signInAs } from './support';

/**
 * 系统设置 → 工作日历 (docs/work-calendar.md) at both sizes, as the administrator: a range across a weekend becomes
 * 节假日 named 测试假期 (休 on its days, its rows in the year's list), a Saturday picked with the keyboard becomes
 * 调休上班 (班), one day goes back to the week, a range over 31 days is refused, and so is a name the server refuses.
 * Each size marks a year of its own far ahead, so the two never meet, and clears it at the end.
 */

const WEEKDAYS = ['星期日', '星期一', '星期二', '星期三', '星期四', '星期五', '星期六'];
const longDate = (day: string) => `${Number(day.slice(0, 4))}年${Number(day.slice(5, 7))}月${Number(day.slice(8, 10))}日`;
const shortDate = (day: string) => `${Number(day.slice(5, 7))}月${Number(day.slice(8, 10))}日`;
/** A day's name in the grid: its date and weekday, then its kind and name. */
const dayName = (day: string, rest: string) => `${longDate(day)} ${WEEKDAYS[weekdayOf(day)]} ${rest}`;

const dayButton = (page: Page, day: string) => page.getByRole('grid').locator(`[data-day="${day}"]`);
/** The mark drawn on a day: 休 or 班 (its words, read to a screen reader, say 休息日 of any weekend). */
const dayMark = (page: Page, day: string) => dayButton(page, day).locator('.wc-badge');

async function openFromMenu(page: Page) {
  if (isPhone(page)) {
    await page.goto('/workbench');
    await page.locator('.workbench-group', { hasText: '系统设置' }).getByRole('link', { name: '工作日历' }).click();
  } else {
    await page.goto('/');
    const nav = page.getByRole('navigation', { name: '主菜单' });
    const group = nav.getByRole('button', { name: '系统设置' });
    if ((await group.getAttribute('aria-expanded')) === 'false') await group.click();
    await nav.getByRole('link', { name: '工作日历' }).click();
  }
  await expect(page).toHaveURL(/\/settings\/work-calendar$/);
}

test('the administrator marks a holiday across a weekend, a worked Saturday by keyboard, clears a day and is refused a range over 31 days', async ({ page }, info) => {
  const year = info.project.name === 'phone' ? 2091 : 2092;
  const may = (d: number) => `${year}-05-${String(d).padStart(2, '0')}`;
  let friday = may(1);
  while (weekdayOf(friday) !== 5) friday = addDays(friday, 1);
  const [saturday, sunday, workedSaturday] = [addDays(friday, 1), addDays(friday, 2), addDays(friday, 8)];

  const token = await signInAs(page, 'admin');
  const clearAll = async () => {
    await call(token, '/workCalendar/clear', { start_date: may(1), end_date: may(31) });
    await call(token, '/workCalendar/clear', { start_date: `${year}-06-01`, end_date: `${year}-06-30` });
  };
  await clearAll();

  try {
    await openFromMenu(page);
    await page.getByLabel('年份').selectOption(String(year));
    await page.getByLabel('月份').selectOption('5');
    const grid = page.getByRole('grid', { name: `${year}年5月` });
    await expect(grid).toBeVisible();
    await expect(dayButton(page, friday)).toHaveAccessibleName(dayName(friday, '工作日'));
    await expect(dayButton(page, saturday)).toHaveAccessibleName(dayName(saturday, '休息日'));
    const list = page.getByTestId('work-calendar-list');
    await expect(list).toContainText(`${year}年尚未设置节假日或调休上班`);

    // A phone shows the month without scrolling sideways; a desktop does not stretch it across the window.
    if (isPhone(page)) expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    else expect((await grid.boundingBox())!.width).toBeLessThanOrEqual(600);

    // Friday to Sunday: 节假日 named 测试假期.
    const panel = page.getByTestId('work-calendar-panel');
    await dayButton(page, friday).click();
    await expect(panel).toContainText(`开始日期 ${longDate(friday)} 星期五`);
    await dayButton(page, sunday).click();
    await expect(panel).toContainText('共 3 天');
    await expect(dayButton(page, saturday).locator('..')).toHaveAttribute('aria-selected', 'true');
    await page.getByLabel('名称').fill('测试假期');
    await shot(page, 'work-calendar-range');
    expect(await axeFindings(page, '/settings/work-calendar 已选日期')).toEqual([]);
    await panel.getByRole('button', { name: '设为节假日' }).click();
    await expect(page.getByText('已设为节假日（3天）')).toBeVisible();
    for (const day of [friday, saturday, sunday]) {
      await expect(dayButton(page, day)).toHaveAccessibleName(dayName(day, '节假日 测试假期'));
      await expect(dayMark(page, day)).toHaveText('休');
      await expect(dayButton(page, day)).toContainText('测试假期');
    }
    await expect(list.getByText('测试假期')).toHaveCount(3);
    const fridayRow = list.locator(isPhone(page) ? 'li' : 'tr', { hasText: shortDate(friday) });
    await expect(fridayRow).toContainText('星期五');
    await expect(fridayRow).toContainText('节假日');
    await expect(fridayRow).toContainText('系统管理员');

    // The next Saturday by keyboard alone: from Friday down a week and right a day, Enter twice, then 调休上班.
    await dayButton(page, friday).focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    await expect(dayButton(page, workedSaturday)).toBeFocused();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await expect(panel).toContainText(`已选 ${longDate(workedSaturday)} 星期六，共 1 天`);
    await panel.getByRole('button', { name: '设为调休上班' }).click();
    await expect(dayButton(page, workedSaturday)).toHaveAccessibleName(dayName(workedSaturday, '调休上班'));
    await expect(dayMark(page, workedSaturday)).toHaveText('班');
    await expect(list.locator(isPhone(page) ? 'li' : 'tr', { hasText: shortDate(workedSaturday) })).toContainText('调休上班');
    // The keyboard is back on the day it marked.
    await expect(dayButton(page, workedSaturday)).toBeFocused();
    await expect(page.getByText('已设为调休上班（1天）')).toBeHidden();
    await shot(page, 'work-calendar');

    // Sunday back to the week: a weekend day off again, without 休.
    await dayButton(page, sunday).click();
    await dayButton(page, sunday).click();
    await panel.getByRole('button', { name: '恢复为按星期' }).click();
    await expect(dayButton(page, sunday)).toHaveAccessibleName(dayName(sunday, '休息日'));
    await expect(dayMark(page, sunday)).toHaveCount(0);
    await expect(list.getByText('测试假期')).toHaveCount(2);
    const marked = await call<{ days: Array<{ day: string; kind: number; name: string }> }>(token, `/workCalendar/list?year=${year}`, undefined, 'GET');
    expect(marked.days.map((d) => [d.day, d.kind, d.name])).toEqual([
      [friday, 1, '测试假期'],
      [saturday, 1, '测试假期'],
      [workedSaturday, 2, ''],
    ]);

    // Over 31 days: 5月1日 to 6月15日 is refused before any call, and nothing can be saved.
    await dayButton(page, may(1)).click();
    await page.getByRole('button', { name: '下一月' }).click();
    await expect(page.getByRole('grid', { name: `${year}年6月` })).toBeVisible();
    await dayButton(page, `${year}-06-15`).click();
    await expect(panel.getByRole('alert')).toHaveText('一次最多设置31天，已选46天：请重新选择。');
    await expect(panel.getByRole('button', { name: '设为节假日' })).toBeDisabled();
    await shot(page, 'work-calendar-too-long');

    // The server's refusal shows as it words it: a name the server is sent too long (rewritten on its way) names the field.
    await page.route('**/api/workCalendar/save', (route) => route.continue({ postData: JSON.stringify({ ...route.request().postDataJSON(), name: '测'.repeat(21) }) }));
    await dayButton(page, `${year}-06-01`).click();
    await dayButton(page, `${year}-06-01`).click();
    await panel.getByRole('button', { name: '设为节假日' }).click();
    await expect(panel.getByRole('alert')).toContainText('名称不能超过20个字符');
    await page.unroute('**/api/workCalendar/save');
    await panel.getByRole('button', { name: '取消' }).click();
    await expect(panel.getByRole('alert')).toHaveCount(0);
    await expect(dayButton(page, `${year}-06-01`)).toHaveAccessibleName(dayName(`${year}-06-01`, isWeekend(`${year}-06-01`) ? '休息日' : '工作日'));

    // Back on May with its marks: nothing serious or critical for axe.
    await page.getByRole('button', { name: '上一月' }).click();
    await expect(dayMark(page, friday)).toHaveText('休');
    expect(await axeFindings(page, '/settings/work-calendar')).toEqual([]);
  } finally {
    await clearAll();
  }
});

test('a reader without workCalendar:edit reads the month and the list, and has nothing to pick', async ({ page }, info) => {
  const year = info.project.name === 'phone' ? 2093 : 2094;
  const holiday = `${year}-10-01`;
  const token = await signInAs(page, 'admin');
  await call(token, '/workCalendar/save', { start_date: holiday, end_date: `${year}-10-03`, kind: 1, name: '国庆节' });
  try {
    // The administrator's session less the code that edits: what a role holding the menu alone is given.
    await page.route('**/api/user/info', async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { data: { permissions: string[] } };
      body.data.permissions = body.data.permissions.filter((code) => code !== 'workCalendar:edit');
      await route.fulfill({ response, json: body });
    });
    await page.goto('/settings/work-calendar');
    await page.getByLabel('年份').selectOption(String(year));
    await page.getByLabel('月份').selectOption('10');
    const month = page.getByRole('table', { name: `${year}年10月` });
    await expect(month.locator(`[data-day="${holiday}"]`)).toContainText(dayName(holiday, '节假日 国庆节'));
    await expect(month.locator(`[data-day="${holiday}"] .wc-badge`)).toHaveText('休');
    await expect(page.getByRole('grid')).toHaveCount(0);
    await expect(month.getByRole('button')).toHaveCount(0);
    await expect(page.getByTestId('work-calendar-panel')).toHaveCount(0);
    await expect(page.getByText('修改需要“编辑工作日历”权限')).toBeVisible();
    await expect(page.getByTestId('work-calendar-list').getByText('国庆节')).toHaveCount(3);
    await shot(page, 'work-calendar-readonly');
    expect(await axeFindings(page, '/settings/work-calendar 只读')).toEqual([]);
  } finally {
    await call(token, '/workCalendar/clear', { start_date: holiday, end_date: `${year}-10-31` });
  }
});
