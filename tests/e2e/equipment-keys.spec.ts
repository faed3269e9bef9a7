import { expect, test, type Page } from '@playwright/test';
import { formatInZone } from '../../domain/time';
import { base, call, formField, isDesktop, isPhone, listScreen, shot, signInAs } from './support';

/**
 * 接入密钥 (DESIGN.md §8) from the equipment screens: the admin issues a gate
 * its key, sees it once with the copy buttons and the header line, and the
 * device's heartbeat with that key shows the gate 在线; cards on a phone,
 * the table on a desktop, the same declaration for all seven kinds.
 */

const modal = (page: Page) => page.locator('.sm').last();
/** The confirm dialog the list shows before an action (antd-mobile Dialog). */
const dialog = (page: Page) => page.locator('.adm-dialog');

async function heartbeat(number: string, key: string): Promise<number> {
  const r = await fetch(`${base}/api/device/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Device ${number}:${key}` },
    body: JSON.stringify({ events: [{ event_id: `e2e-${number}-${Date.now()}`, type: 'heartbeat', capture_time: formatInZone(Date.now(), 'Asia/Shanghai') }] }),
  });
  return r.status;
}

test('the admin issues a gate its key once, copies it, and the gate shows online after the device calls with it', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const token = await signInAs(page, 'admin');
  const number = `E2E-GATE-${test.info().project.name.toUpperCase()}-${Date.now() % 1_000_000}`;
  const name = `测试道闸${Date.now() % 10_000}`;
  const { id } = await call<{ id: number }>(token, '/equipment/gate/save', {
    name,
    number,
    type: 1,
    entrances_type: 2,
    is_security_check: 1,
    temporary_reservation: 0,
    longitude: 114.52,
    latitude: 22.74,
  });

  const list = listScreen(page);
  await list.open('/devices/gate');
  await expect(page.getByText('道闸设备').first()).toBeVisible();
  await list.showOnly('设备编号', number);
  const row = list.row(number);
  await expect(row).toContainText('离线');
  await expect(row).toContainText('未签发');
  if (isPhone(page)) await expect(row.locator('.cl-extra')).toHaveText('离线');

  // State and its time are the device API's: the edit form has neither.
  await list.action(row, '编辑');
  await expect(formField(page, '设备名称').locator('input')).toHaveValue(name);
  for (const label of ['在线状态', '最后状态时间', '密钥签发时间']) await expect(formField(page, label)).toHaveCount(0);
  await page
    .getByRole('button', { name: isPhone(page) ? '返回' : '取消', exact: true })
    .last()
    .click();
  await expect(page.locator('.sm')).toHaveCount(0);

  await list.action(row, '接入密钥');
  await expect(dialog(page)).toContainText(`为「${name}」签发接入密钥`);
  await expect(dialog(page)).toContainText('再次签发会使旧密钥立即作废');
  await dialog(page).getByRole('button', { name: '确定' }).click();

  const shown = modal(page);
  await expect(shown.getByText('密钥只显示这一次，关闭后无法再次查看')).toBeVisible();
  const values = shown.locator('.cf-value');
  await expect(values.first()).toHaveText(/^[A-Za-z0-9_-]{43}$/);
  const key = (await values.first().textContent())!;
  await expect(values.nth(1)).toHaveText(`Authorization: Device ${number}:${key}`);
  await shot(page, 'equipment-key');
  await shown.getByRole('button', { name: '复制接入密钥' }).click();
  await expect(page.getByText('已复制')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

  // Without the Clipboard API (plain http off localhost) the button selects the text for Ctrl+C or a long press.
  await page.evaluate(() => Object.defineProperty(navigator, 'clipboard', { value: undefined, configurable: true }));
  await shown.getByRole('button', { name: '复制设备请求头' }).click();
  await expect(page.getByText('无法访问剪贴板，已选中文本')).toBeVisible();
  expect(await page.evaluate(() => window.getSelection()?.toString())).toBe(`Authorization: Device ${number}:${key}`);

  await shown.locator('.sm-foot').getByRole('button', { name: '关闭' }).click();
  await expect(page.locator('.sm')).toHaveCount(0);
  // Never shown again: the row says when it was issued, not what.
  await expect(row).not.toContainText('未签发');
  await expect(row).not.toContainText(key);

  // The device calls with it; after a reload the row is online.
  expect(await heartbeat(number, key)).toBe(200);
  await page.reload();
  await expect(list.total(1)).toBeVisible();
  await expect(row).toContainText('在线');
  if (isPhone(page)) await expect(row.locator('.cl-extra .adm-tag')).toHaveText('在线');
  // The device columns sit after the location, as the spec lists them: the wide table scrolls to them.
  else await page.locator('.dtb-scroll').evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
  await expect(row.locator('.adm-tag', { hasText: '在线' })).toBeVisible();
  await shot(page, 'equipment-gate');

  // Issuing again says the old key dies; cancelled, the old key still works.
  await list.action(row, '接入密钥');
  await expect(dialog(page)).toContainText('再次签发后旧密钥立即作废');
  await dialog(page).getByRole('button', { name: '取消' }).click();
  expect(await heartbeat(number, key)).toBe(200);
  // Gone again: the specs after this one on the worker's server draw the park's gates (routes.spec.ts).
  await call(token, '/equipment/gate/delete', { id });
});

test('the equipment lists render their layout with the online state', async ({ page }) => {
  await signInAs(page, 'admin');
  const list = listScreen(page);
  await list.open('/devices/gate');
  // Other suites add gates of their own, which can push the seeded ones to a later page: this one is found by its number.
  await list.showOnly('设备编号', 'GATE-W-01');
  const seeded = list.rows().first();
  if (isDesktop(page)) {
    for (const label of ['设备名称', '设备编号', '在线状态', '最后状态时间', '密钥签发时间']) await expect(page.locator('.dtb thead th', { hasText: new RegExp(`^${label}$`) })).toHaveCount(1);
    await expect(seeded).toContainText(/在线|离线/);
  } else {
    // Cards: the name as the title, the state as its tag.
    await expect(seeded.locator('.cl-extra .adm-tag')).toHaveText(/^(在线|离线)$/);
    await expect(seeded.locator('.cl-title')).toHaveText('西门车辆道闸1');
  }
  // Every kind is the same screen: a bumping post's list has the key action too.
  await list.open('/devices/bumping-post');
  const first = list.rows().first();
  await expect(first).toBeVisible();
  if (isDesktop(page)) await expect(first.getByRole('button', { name: '接入密钥' })).toBeVisible();
  await shot(page, 'equipment-bumping-post');
});
