import { expect, test, type Page } from '@playwright/test';
import { isPhone, listScreen, shot, signInAs } from './support';

/**
 * Issue 24 item 7: a reload of a signed-in screen shows one loader, the HTML splash, until the screen has its data
 * or its skeleton; no bare spinner, no 加载中 between them. Item 8: the phone's count line says nothing while the
 * first page loads, rather than 共 0 条 over skeleton cards.
 */

interface BootRecord {
  /** Each kind of loader in the order it first appeared, up to the first row or skeleton. */
  loaders: string[];
  /** Whether 共 0 条 was on screen beside a skeleton. */
  zeroOverSkeleton: boolean;
  skeletonSeen: boolean;
  contentSeen: boolean;
}

/** Watches the DOM from the first byte of every document the page loads; read back with `bootRecord`. */
async function recordBoot(page: Page) {
  await page.addInitScript(() => {
    const rec: BootRecord = { loaders: [], zeroOverSkeleton: false, skeletonSeen: false, contentSeen: false };
    (window as unknown as { __boot: BootRecord }).__boot = rec;
    const kinds: [string, string][] = [
      ['splash', '.boot'],
      ['spinner', '.boot-spinner, .boot-state[aria-busy], .page-loading, .adm-dot-loading, .adm-spin-loading'],
    ];
    const skeleton = '.ls-skeleton, .cl-card--skeleton';
    const check = () => {
      if (!rec.contentSeen) {
        for (const [kind, selector] of kinds) if (document.querySelector(selector) && !rec.loaders.includes(kind)) rec.loaders.push(kind);
        if (document.body && /加载中/.test(document.body.innerText) && !rec.loaders.includes('加载中')) rec.loaders.push('加载中');
        if (document.querySelector(`${skeleton}, .dtb tbody tr, .cl-card`)) rec.contentSeen = true;
      }
      if (document.querySelector(skeleton)) rec.skeletonSeen = true;
      if (document.querySelector(skeleton) && [...document.querySelectorAll('.ls-phonebar__total, .pg-total')].some((e) => /共 0 条/.test(e.textContent ?? ''))) rec.zeroOverSkeleton = true;
    };
    new MutationObserver(check).observe(document, { childList: true, subtree: true, characterData: true });
    check();
  });
}

// page.route does not see what a service worker fetches; the HTTP cache still holds the chunks.
test.use({ serviceWorkers: 'block' });

const bootRecord = (page: Page) => page.evaluate(() => (window as unknown as { __boot: BootRecord }).__boot);

test('a reload of a signed-in list shows the splash alone until the list has its skeleton or rows', async ({ page }) => {
  await signInAs(page, 'admin');
  const list = listScreen(page);
  // Once, so the service worker and the HTTP cache hold the chunks, as for a returning user.
  await list.open('/system/login-logs');
  await expect(list.rows().first()).toBeVisible();

  await recordBoot(page);
  // A slow answer from the server keeps every waiting step on screen long enough to be seen.
  await page.route('**/api/**', async (route) => {
    await new Promise((r) => setTimeout(r, 400));
    await route.continue();
  });
  await page.reload();
  await expect(list.rows().first()).toBeVisible();
  const rec = await bootRecord(page);
  expect(rec.contentSeen).toBe(true);
  expect(rec.loaders).toEqual(['splash']);
  expect(rec.zeroOverSkeleton).toBe(false);
  await expect(list.total()).toBeVisible();
  await expect(page.locator('.boot')).toHaveCount(0);
  await shot(page, 'boot-reloaded');
});

test('the phone list says nothing of a count until the first page is in, then 共 N 条', async ({ page }) => {
  // Skipped on the desktop on purpose: the desktop hides its pager until a count arrives, so only the phone has a count line to check (reason below).
  test.skip(!isPhone(page), 'the count line over skeleton cards is the phone’s');
  await signInAs(page, 'admin');
  await recordBoot(page);
  await page.route('**/api/**', async (route) => {
    await new Promise((r) => setTimeout(r, 400));
    await route.continue();
  });
  const list = listScreen(page);
  await page.goto('/system/login-logs');
  await expect(list.rows().first()).toBeVisible();
  await expect(list.total()).toBeVisible();
  const rec = await bootRecord(page);
  expect(rec.skeletonSeen).toBe(true);
  expect(rec.zeroOverSkeleton).toBe(false);
});
