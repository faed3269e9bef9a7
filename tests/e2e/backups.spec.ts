import { expect, test } from '@playwright/test';
import { call, listScreen, shot, signInAs } from './support';

/**
 * 系统设置 → 备份 at both sizes: the administrator takes a backup now, is told its size and time, and finds it
 * at the top of the list, verified; a reader without 备份 codes has no such menu.
 */

test('an administrator takes a backup now and finds it at the top of the list, verified', async ({ page }) => {
  const token = await signInAs(page, 'admin');
  const list = listScreen(page);
  await list.open('/settings/backups');
  const before = (await call<{ total: number }>(token, '/backup/list?size=1&pn=1', undefined, 'GET')).total;
  await page.getByRole('button', { name: '立即备份' }).click();
  await expect(page.getByText(/备份完成：[\d.]+ (KB|MB|GB)，用时/)).toBeVisible({ timeout: 60_000 });
  await expect(list.total(before + 1)).toBeVisible();
  const newest = list.rows().first();
  await expect(newest).toContainText('已校验');
  await expect(newest).toContainText('立即备份');
  await shot(page, 'backups');

  // Its detail names the archive and who took it.
  await list.openDetail(newest);
  await expect(page.getByText(/park-backup-\d{8}-\d{6}(-\d+)?\.tar/).first()).toBeVisible();
});

test('the security lead has no 备份 menu and the list is refused', async ({ page }) => {
  const token = await signInAs(page, 'lead');
  await page.goto('/settings/backups');
  await expect(page.getByRole('button', { name: '立即备份' })).toHaveCount(0);
  const r = await fetch(new URL('/api/backup/list?size=1&pn=1', page.url()), { headers: { authorization: `Bearer ${token}` } });
  expect(r.status).toBe(403);
});
