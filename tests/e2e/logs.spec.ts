import { expect, test, type Page } from '@playwright/test';
import { addMinutes, formatInZone } from '../../domain/time';
import { dateOf } from '../../domain/visit-rules';
import { E2E_DATA_DIR } from '../../playwright.config';
import { signInViaApi } from '../../scripts/demo-login';
import { DEMO_PASSWORD, base, isPhone, listScreen, shot, signInAs } from './support';

/**
 * 登录日志 and 操作日志 (spec 002 §2 Logs): the admin opens both lists at
 * phone and desktop size, finds the last 24 hours with their defaults
 * (登录状态 全部, 操作结果 全部: a failed sign-in is not hidden), filters, and opens a row; an operation's
 * parameters read as indented JSON with the password masked.
 */

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const filterItem = (page: Page, label: string) => page.locator('.ff-item', { has: page.locator('.ff-label', { hasText: new RegExp(`^${escape(label)}$`) }) });

/** Sets filters (opening the 筛选 sheet on a phone) and runs the search. */
async function search(page: Page, text: Record<string, string>, choice?: { label: string; option: string }) {
  if (isPhone(page)) await page.getByRole('button', { name: /筛选/ }).click();
  for (const [label, value] of Object.entries(text)) await filterItem(page, label).locator('input').fill(value);
  if (choice) {
    // A native select on a desktop; chips in the phone's sheet.
    if (isPhone(page)) await filterItem(page, choice.label).getByText(choice.option, { exact: true }).click();
    else await page.getByLabel(choice.label, { exact: true }).selectOption({ label: choice.option });
  }
  await page.locator('.ff').getByRole('button', { name: '查询' }).click();
  if (isPhone(page)) await expect(page.locator('.ls-sheet')).toBeHidden();
}

/** The filters' defaults: the last 24 hours in park time (from the whole hour they start in to the end of today), and the state filter's choice. */
async function expectDefaults(page: Page, range: string, state: { label: string; option: string; value: string }) {
  if (isPhone(page)) await page.getByRole('button', { name: /筛选/ }).click();
  const now = formatInZone(Date.now());
  const start = addMinutes(now, -24 * 60);
  await expect(page.getByLabel(`${range}开始`)).toHaveValue(`${dateOf(start)} ${start.slice(11, 13)}:00:00`);
  await expect(page.getByLabel(`${range}结束`)).toHaveValue(`${dateOf(now)} 23:59:59`);
  if (isPhone(page)) {
    await expect(filterItem(page, state.label).locator('.adm-selector-item-active')).toHaveText(state.option);
    // 查询 with the defaults closes the sheet, and no filter counts as changed.
    await page.locator('.ff').getByRole('button', { name: '查询' }).click();
    await expect(page.locator('.ls-sheet')).toBeHidden();
    await expect(page.getByText(/已按 \d+ 个条件筛选/)).toHaveCount(0);
  } else await expect(page.getByLabel(state.label, { exact: true })).toHaveValue(state.value);
}

test('the login log lists the last 24 hours of sign-ins, failed ones too, filters by name and opens a row', async ({ page }) => {
  // The auditor fails once, then signs in through the API: both are sign-ins of now.
  await expect(signInViaApi(base, E2E_DATA_DIR, 'auditor', `${DEMO_PASSWORD}x`)).rejects.toThrow();
  await signInViaApi(base, E2E_DATA_DIR, 'auditor', DEMO_PASSWORD);
  await signInAs(page, 'admin');
  const list = listScreen(page);
  await list.open('/system/login-logs');
  if (!isPhone(page)) {
    for (const label of ['登录时间', '用户名', '登录状态']) await expect(page.locator('.ff-label', { hasText: new RegExp(`^${label}$`) })).toBeVisible();
    for (const label of ['用户名', '账号', '部门', 'IP地址', '登录状态', '登录时间', '备注']) await expect(page.locator('.dtb thead').getByText(label, { exact: true })).toBeVisible();
  }
  await expect(list.rows().first()).toContainText('成功');
  await expect(list.rows().filter({ hasText: '失败' }).first()).toBeVisible();
  await expectDefaults(page, '登录时间', { label: '登录状态', option: '全部', value: '-1' });
  await shot(page, 'login-logs');

  await search(page, { 用户名: '孙丽' });
  await expect(list.rows().first()).toContainText('auditor');
  const rows = await list.rows().allTextContents();
  for (const text of rows) expect(text).toContain('auditor');
  await list.openDetail(list.rows().first());
  const detail = page.locator('.sm').last();
  for (const label of ['用户名', '账号', '用户ID', '部门', 'IP地址', '登录状态', '登录时间', '备注']) await expect(detail.locator('.dv-label', { hasText: new RegExp(`^${label}$`) })).toBeVisible();
  for (const text of ['孙丽', 'auditor', '大亚湾石化区园区管理委员会', '成功', '登录成功']) await expect(detail).toContainText(text);
  await shot(page, 'login-log-detail');
});

test('the operation log lists the last day, filters by account and result, and shows a row’s parameters without the password', async ({ page }) => {
  // A refused call of the admin's carrying a password and a marker: logged as 失败 with the password masked.
  const admin = await signInViaApi(base, E2E_DATA_DIR, 'admin', DEMO_PASSWORD);
  const marker = `e2e-${Math.random().toString(36).slice(2, 8)}`;
  const secret = `E2e${marker}Secret9`;
  const res = await fetch(`${base}/api/user/bindRole`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
    body: JSON.stringify({ userId: 'x', note: marker, password: secret }),
  });
  expect(res.status).toBe(400);
  // One of the longest operation names, also refused: its cell must show it whole.
  const amend = await fetch(`${base}/api/vehicleRegistration/amend`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` }, body: '{}' });
  expect(amend.status).toBe(400);

  await signInAs(page, 'admin');
  const list = listScreen(page);
  await list.open('/system/operation-logs');
  if (!isPhone(page)) {
    for (const label of ['账号', '操作结果', '操作时间']) await expect(page.locator('.ff-label', { hasText: new RegExp(`^${label}$`) })).toBeVisible();
    for (const label of ['操作人', '部门', '操作名称', '操作结果', '操作时间', '接口', '请求方式', '请求参数', '操作'])
      await expect(page.locator('.dtb thead').getByText(label, { exact: true })).toBeVisible();
  }
  await expectDefaults(page, '操作时间', { label: '操作结果', option: '全部', value: '-1' });
  await shot(page, 'operation-logs');

  await search(page, { 账号: 'admin' }, { label: '操作结果', option: '失败' });
  const row = list.row('绑定角色').first();
  await expect(row).toContainText('失败');
  await expect(row).toContainText('系统管理员（admin）');
  await shot(page, 'operation-logs-filtered');
  if (!isPhone(page)) {
    // The operation's name is never cut: its column widens to the page's longest.
    const name = list
      .row('修改车辆备案有效期')
      .first()
      .locator('td.dtb-cell', { hasText: /^修改车辆备案有效期$/ });
    await expect(name).toBeVisible();
    expect(await name.evaluate((td) => td.scrollWidth <= td.clientWidth)).toBe(true);
  }
  // A desktop row opens by its 详情 button; a phone card by a tap.
  await list.openDetail(row, isPhone(page) ? 'tap' : 'button');
  const detail = page.locator('.sm').last();
  const params = detail.locator('.lg-params');
  await expect(params).toContainText(`"note": "${marker}"`);
  await expect(params).toContainText('"password": "***"');
  await expect(detail).not.toContainText(secret);
  for (const label of ['日志ID', '操作人', '账号', '用户ID', '部门', '操作名称', '操作结果', '操作时间', '接口', '请求方式', '请求参数'])
    await expect(detail.locator('.dv-label', { hasText: new RegExp(`^${label}$`) })).toBeVisible();
  for (const text of ['/api/user/bindRole', 'POST', '失败', '系统管理员（admin）', '绑定角色']) await expect(detail).toContainText(text);
  await shot(page, 'operation-log-detail');
});
