import { expect, test } from '@playwright/test';
import { maskIdNumber } from '../../domain/personal-data';
import { formatInZone } from '../../domain/time';
import { addDays } from '../../domain/visit-rules';
import { E2E_DATA_DIR } from '../../playwright.config';
import { signInViaApi } from '../../scripts/demo-login';
import { base, DEMO_PASSWORD, fileVisitor, idNumber, isPhone, shot, signInAs } from './support';

/**
 * 系统设置 → 个人信息保护 at both sizes: a person's request about their own
 * data. The administrator is told under each field what is missing, exports
 * everything held under one ID number as an xlsx named for it, then
 * anonymises it after a warning and reads what changed and what the law
 * keeps. A reader without the menu's code has no such screen.
 */

test('an administrator exports one person’s data and anonymises it, each with a reason', async ({ page }) => {
  await signInAs(page, 'admin');
  const contact = await signInViaApi(base, E2E_DATA_DIR, 'contact', DEMO_PASSWORD);
  // Born on a day no other spec uses, so no other spec's visitor shares the number.
  const idcard = idNumber(Math.floor(Math.random() * 900), isPhone(page) ? '19850505' : '19860606');
  const today = formatInZone(new Date()).slice(0, 10);
  await fileVisitor(contact, { name: '隐私测试', seq: 0, day: addDays(today, 1), idcard });

  await page.goto('/settings/privacy');
  const exportButton = page.getByRole('button', { name: '导出个人信息', exact: true });
  await exportButton.click();
  await expect(page.getByRole('alert').filter({ hasText: '请输入证件号码' })).toBeVisible();
  await expect(page.getByRole('alert').filter({ hasText: '请填写原因' })).toBeVisible();

  await page.getByRole('textbox', { name: /^证件号码：?$/ }).fill(idcard);
  await page.getByRole('textbox', { name: /^原因：?$/ }).fill('本人来电申请查阅');
  const [download] = await Promise.all([page.waitForEvent('download'), exportButton.click()]);
  expect(download.suggestedFilename()).toBe(`个人信息_尾号${idcard.slice(-4)}_${today.replace(/-/g, '')}.xlsx`);
  await shot(page, 'privacy');

  await page.getByRole('button', { name: '匿名化', exact: true }).click();
  const dialog = page.getByRole('dialog').filter({ hasText: '此操作无法恢复' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: '匿名化', exact: true }).click();
  const result = page.getByTestId('privacy-result');
  await expect(result.getByRole('heading', { name: `已匿名化 ${maskIdNumber(idcard)}` })).toBeVisible();
  await expect(result.getByText('人员预约：1 条')).toBeVisible();
  await result.scrollIntoViewIfNeeded();
  await shot(page, 'privacy-done');
});

test('the security lead has no 个人信息保护 screen and its calls are refused', async ({ page }) => {
  const token = await signInAs(page, 'lead');
  await page.goto('/settings/privacy');
  await expect(page.getByText('没有访问权限')).toBeVisible();
  await expect(page.getByRole('button', { name: '匿名化' })).toHaveCount(0);
  for (const path of ['/api/pii/subject/export', '/api/pii/subject/anonymise']) {
    const r = await fetch(new URL(path, page.url()), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ idcard: idNumber(1), reason: '试一试' }),
    });
    expect(r.status, path).toBe(403);
  }
});
