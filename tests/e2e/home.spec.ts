import { expect, test, type Page } from '@playwright/test';
import { isPhone, shot, signInAs } from './support';

/**
 * 首页 and 工作台 (issue 24 item 8): the home shows what needs the person now
 * and a few shortcuts, the screens they open most; the workbench holds the
 * whole menu by group. A tile's name takes at most two lines and never leaves
 * one character alone on a line.
 */

/** The characters on each line of every tile name, read from where the browser laid each character out. */
function tileLines(page: Page) {
  return page.locator('.menu-tile-name').evaluateAll((els) =>
    els.map((el) => {
      const lines = new Map<number, string>();
      const range = document.createRange();
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let text = walker.nextNode(); text; text = walker.nextNode()) {
        const chars = text.textContent ?? '';
        for (let i = 0; i < chars.length; i++) {
          range.setStart(text, i);
          range.setEnd(text, i + 1);
          const top = Math.round(range.getBoundingClientRect().top);
          lines.set(top, (lines.get(top) ?? '') + chars[i]);
        }
      }
      return [...lines.values()];
    }),
  );
}

test('the home offers the screens opened most, the workbench the whole menu by group', async ({ page }) => {
  await signInAs(page, 'admin');
  await page.goto('/');
  const shortcuts = page.getByRole('region', { name: '常用功能' });
  await expect(shortcuts.locator('.menu-tile')).toHaveCount(8);
  // The home no longer repeats the menu's groups.
  await expect(page.locator('.section-title', { hasText: '系统管理' })).toHaveCount(0);
  await expect(shortcuts.getByRole('link', { name: '操作日志' })).toHaveCount(0);

  // A screen opened joins the shortcuts.
  await page.goto('/system/operation-logs');
  const counted = () =>
    page.evaluate(() =>
      Object.keys(localStorage)
        .filter((k) => k.startsWith('park.visits.'))
        .map((k) => localStorage.getItem(k))
        .join(),
    );
  await expect.poll(counted).toContain('"/system/operation-logs":1');
  await page.goto('/');
  await expect(shortcuts.locator('.menu-tile')).toHaveCount(8);
  await expect(shortcuts.getByRole('link', { name: '操作日志' })).toBeVisible();
  await shot(page, 'home');

  await shortcuts.getByRole('link', { name: '全部功能' }).click();
  await expect(page).toHaveURL(/\/workbench$/);
  for (const group of ['预约管理', '审批中心', '系统管理']) await expect(page.locator('.workbench-group-title', { hasText: group })).toBeVisible();
  for (const name of ['人员预约总记录', '危化品车辆审核', '操作日志']) await expect(page.locator('.menu-tile', { hasText: name })).toHaveAttribute('title', name);
  const lines = await tileLines(page);
  expect(lines.length).toBeGreaterThan(20);
  for (const l of lines) {
    expect(l.length, l.join('/')).toBeLessThanOrEqual(2);
    for (const line of l) expect(line.length, l.join('/')).toBeGreaterThan(1);
  }
  // On a phone a long name breaks between its words.
  if (isPhone(page)) expect(lines).toContainEqual(['人员预约', '总记录']);
  await page.locator('.menu-tile', { hasText: '人员预约总记录' }).scrollIntoViewIfNeeded();
  await shot(page, 'workbench');
});
