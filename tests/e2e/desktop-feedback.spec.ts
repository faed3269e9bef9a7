import { expect, test, type Locator, type Page } from '@playwright/test';
import { call, isDesktop, listScreen, shot, signInAs } from './support';

/**
 * The confirms and toasts of src/lib/feedback (issue 24 item 8): a desktop
 * modal with a ×, one row of right-aligned buttons, Esc and Enter, and a
 * message bar at the top from 768 px; antd-mobile's phone look below.
 */

const box = async (l: Locator) => (await l.boundingBox())!;

/** A fresh vehicle model filtered to the only row, so 删除 has something to confirm. */
async function modelRow(page: Page, token: string): Promise<Locator> {
  const name = `提示车型${test.info().project.name === 'phone' ? 'P' : 'D'}${Date.now() % 100000}`;
  await call(token, '/vehicleType/save', { name, speed: 40, needRecord: 0, showCargoType: 0, checkOverweight: 0, needBlindVideo: 0 });
  const list = listScreen(page);
  await list.open('/system/vehicle-types');
  await list.showOnly('车型名', name);
  return list.row(name);
}

/** 删除 on the row, and the confirm it opens once it has stopped growing in. */
async function askToDelete(page: Page, row: Locator): Promise<Locator> {
  await listScreen(page).action(row, '删除');
  const dialog = page.locator('.adm-dialog-body');
  await expect(dialog).toContainText('确认删除');
  // The answer takes the focus when the opening animation ends; a phone has no settled signal but its width.
  if (isDesktop(page)) await expect(dialog.getByRole('button', { name: '确定' })).toBeFocused();
  else await expect.poll(async () => (await box(dialog)).width).toBeGreaterThanOrEqual(280);
  return dialog;
}

test('a confirm and a toast look like a desktop from 768 px and like a phone below', async ({ page }) => {
  const token = await signInAs(page, 'admin');
  const row = await modelRow(page, token);
  const viewport = page.viewportSize()!;

  let dialog = await askToDelete(page, row);
  const d = await box(dialog);
  const cancel = await box(dialog.getByRole('button', { name: '取消' }));
  const ok = await box(dialog.getByRole('button', { name: '确定' }));
  await shot(page, 'feedback-confirm');
  // Both layouts: the two buttons share one row, 取消 first.
  expect(Math.abs(cancel.y - ok.y)).toBeLessThan(2);
  expect(cancel.x).toBeLessThan(ok.x);
  if (isDesktop(page)) {
    expect(d.width).toBeGreaterThanOrEqual(400);
    expect(d.width).toBeLessThanOrEqual(480);
    // Compact buttons at the right, not two halves of the width.
    expect(d.x + d.width - (ok.x + ok.width)).toBeLessThan(40);
    expect(cancel.x).toBeGreaterThan(d.x + d.width / 2);
    expect(ok.width).toBeLessThan(120);
    // Left-aligned text, a ×, and the delete's answer filled red.
    const text = await box(dialog.getByText('确认删除'));
    expect(text.x - d.x).toBeLessThan(40);
    await expect(dialog.getByRole('button', { name: '关闭' })).toBeVisible();
    const [red = 0, green = 255] = (await dialog.getByRole('button', { name: '确定' }).evaluate((b) => getComputedStyle(b).backgroundColor)).match(/\d+/g)!.map(Number);
    expect(red).toBeGreaterThan(200);
    expect(green).toBeLessThan(100);

    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await expect(row).toBeVisible();
    // The focus went back to the button that asked, as the keyboard expects.
    await expect(row.getByRole('button', { name: '删除' })).toBeFocused();

    dialog = await askToDelete(page, row);
    await dialog.getByRole('button', { name: '关闭' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(row).toBeVisible();

    // Enter answers with the focus off the dialog's buttons too (a click on its text takes it away).
    dialog = await askToDelete(page, row);
    await dialog.getByText('确认删除').click();
    await expect(dialog.getByRole('button', { name: '确定' })).not.toBeFocused();
    await page.keyboard.press('Enter');
  } else {
    // antd-mobile's phone dialog: 75 % of the width, each button half of it.
    expect(d.width).toBeLessThanOrEqual(viewport.width * 0.76);
    expect(ok.width).toBeGreaterThan(d.width / 2 - 4);
    await dialog.getByRole('button', { name: '确定' }).click();
  }

  const toast = page.locator('.adm-toast-main', { hasText: '删除成功！' });
  await expect(toast).toBeVisible();
  await expect(row).toHaveCount(0);
  // Measured before the screenshot: the toast goes after 2 s, and a screenshot on a loaded machine can take that long.
  const [t, icon, words] = await Promise.all([box(toast), box(toast.locator('.adm-toast-icon')), box(toast.getByText('删除成功！'))]);
  await shot(page, 'feedback-toast');
  expect(Math.abs(t.x + t.width / 2 - viewport.width / 2)).toBeLessThan(4);
  if (isDesktop(page)) {
    // A bar near the top, its icon beside the text on one line.
    expect(t.y).toBeLessThan(120);
    expect(t.height).toBeLessThan(48);
    expect(icon.x + icon.width).toBeLessThanOrEqual(words.x);
    expect(Math.abs(icon.y + icon.height / 2 - (words.y + words.height / 2))).toBeLessThan(4);
  } else {
    // The phone's square in the middle, its icon above the text.
    expect(Math.abs(t.y + t.height / 2 - viewport.height / 2)).toBeLessThan(40);
    expect(t.height).toBeGreaterThan(100);
  }
});

test('退出登录 asks first; on a desktop its title sits left beside the ×, which cancels', async ({ page }) => {
  await signInAs(page, 'admin');
  await page.goto('/profile');
  await page.getByRole('button', { name: '退出登录' }).last().click();
  const dialog = page.locator('.adm-dialog-body');
  await expect(dialog).toContainText('确定要退出当前账号吗？');
  if (isDesktop(page)) {
    await expect(dialog.getByRole('button', { name: '退出' })).toBeFocused();
    const d = await box(dialog);
    const title = await box(dialog.getByText('退出登录', { exact: true }));
    expect(title.x - d.x).toBeLessThan(40);
    await shot(page, 'feedback-logout');
    await dialog.getByRole('button', { name: '关闭' }).click();
  } else {
    await dialog.getByRole('button', { name: '取消' }).click();
  }
  await expect(dialog).toHaveCount(0);
  await expect(page).toHaveURL(/\/profile$/);
});
