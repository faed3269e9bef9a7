// The app's registry (src/app/routes.tsx) types its screens' modules, which read the build's constants (a global script, so no import).
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="../../src/vite-env.d.ts" />
import { expect, test, type Page } from '@playwright/test';
import { appRoutes, fullScreenPaths } from '../../src/app/routes';
import { axeFindings, openApprovalSheet, settle, smallTargets, trackApiRequests, visitInApp } from './a11y-checks';
import { isPhone, listScreen, signInAs } from './support';

/**
 * Screens everyone can read (issue 14; WCAG 2.1 AA, GB/T 37668): axe-core finds nothing serious or critical on any
 * screen, at both sizes, signed in as admin (who reaches every one), and on a phone every control is a 44 px target.
 * The screens are the app's own registry (src/app/routes.tsx: the open routes, every built menu screen, the
 * full-screen boards), so a screen added later is checked without a line here; they are visited in one page per
 * test, through the app's own navigation, in a few tests that spread over the workers.
 */

const SCREENS = [...appRoutes.map((r) => r.path), ...Object.values(fullScreenPaths)];
const GROUPS = 4;
/** The big screen is a 1920×1080 wall display scaled whole into the window: on a phone its controls are drawn small on purpose. */
const TARGETS_EXEMPT = new Set<string>([fullScreenPaths.bigScreen]);
const PHONE_TARGET = 44;

test.describe.configure({ mode: 'parallel' });

/** The findings of one view: axe's, and on a phone the controls too small for a finger (within `scope`). */
async function check(page: Page, screen: string, scope = 'body'): Promise<string[]> {
  const found = await axeFindings(page, screen);
  if (isPhone(page) && !TARGETS_EXEMPT.has(screen)) found.push(...(await smallTargets(page, screen, PHONE_TARGET, scope)));
  return found;
}

for (let group = 0; group < GROUPS; group++) {
  const screens = SCREENS.filter((_, i) => i % GROUPS === group);
  test(`every screen reads for everyone, part ${group + 1} of ${GROUPS}`, async ({ page }) => {
    test.setTimeout(240_000);
    const open = trackApiRequests(page);
    await signInAs(page, 'admin');
    await page.goto('/');
    await settle(page, open);
    const findings: string[] = [];
    for (const screen of screens) {
      await visitInApp(page, screen, open);
      findings.push(...(await check(page, screen)));
    }
    expect(findings, findings.join('\n')).toEqual([]);
  });
}

test('sign-in, a form, a detail, the sheets and the approval sheet read for everyone', async ({ page }) => {
  test.setTimeout(180_000);
  const open = trackApiRequests(page);
  const findings: string[] = [];
  const dialog = () => page.getByRole('dialog').last();
  const list = listScreen(page);
  /** Opens a list screen in the app and waits for its first page (the '共 N 条' counter). */
  const openList = async (path: string) => {
    await visitInApp(page, path, open);
    await expect(list.total()).toBeVisible();
  };

  // Signed out: the sign-in screen.
  await page.goto('/login');
  await expect(page.getByRole('button', { name: '登录', exact: true })).toBeVisible({ timeout: 30_000 });
  findings.push(...(await check(page, '/login')));

  await signInAs(page, 'admin');
  await page.goto('/');
  await settle(page, open);
  await visitInApp(page, '/no-such-screen', open);
  findings.push(...(await check(page, '/no-such-screen')));

  // A list's 新增 form; on a phone also its 筛选 sheet.
  await openList('/system/users');
  if (isPhone(page)) {
    await page.getByRole('button', { name: /筛选/ }).click();
    await expect(page.locator('.ls-sheet')).toBeVisible();
    // Measured once the sheet has slid into place (a trial click waits for its close button to stand still).
    await page.locator('.ls-sheet__close').click({ trial: true });
    findings.push(...(await check(page, '/system/users 筛选', '.ls-sheet')));
    await page.locator('.ls-sheet__close').click();
    await expect(page.locator('.ls-sheet')).toBeHidden();
  }
  await page.getByRole('button', { name: '新增用户' }).click();
  await expect(dialog().getByText('用户名').first()).toBeVisible();
  await settle(page, open);
  findings.push(...(await check(page, '/system/users 新增用户', '[role=dialog]')));

  // A record's detail; on a phone the sheet of its actions under 更多 (a desktop row shows them inline).
  await openList('/appointments/car-all-history');
  await list.openDetail(list.rows().first());
  await expect(dialog()).toBeVisible();
  await settle(page, open);
  findings.push(...(await check(page, '/appointments/car-all-history 详情', '[role=dialog]')));
  if (isPhone(page)) {
    await openList('/system/users');
    await openList('/appointments/car-all-history');
    await list.rows().first().getByRole('button', { name: /更多/ }).click();
    await expect(page.locator('.adm-action-sheet')).toBeVisible();
    findings.push(...(await check(page, '/appointments/car-all-history 更多', '.adm-action-sheet')));
  }

  // The approval sheet, as the reviewer of a visit just filed.
  await openApprovalSheet(page, open, { name: `测读屏${isPhone(page) ? '甲' : '乙'}`, seq: 700 + (Date.now() % 97) + (isPhone(page) ? 0 : 100), days: 3, phonePrefix: '1390007' });
  findings.push(...(await check(page, '/approval/person 审核', '[role=dialog]')));

  expect(findings, findings.join('\n')).toEqual([]);
});
