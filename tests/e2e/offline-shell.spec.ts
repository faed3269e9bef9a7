import { expect, test, type Page } from '@playwright/test';
import { base, isPhone, listScreen, shot, signInAs } from './support';

// This spec exercises the service worker, which the config blocks elsewhere.
test.use({ serviceWorkers: 'allow' });

/**
 * Issue 4 item 3 at both sizes: the precached shell opens offline; a list and
 * a detail read online are shown offline from the service worker's copy, with
 * the time of that copy; a list never read offline shows the network error; a
 * sign-out removes the copies so the next person is never served them; and a
 * Background Sync of the 'outbox' tag asks the open window to drain.
 */

/** Vehicle application numbers (CA + date + id) in the rows on screen. */
const NUMBER = /CA\d{14}/g;
async function numbersOnScreen(page: Page): Promise<string[]> {
  const rows = listScreen(page).rows();
  await expect(rows.first()).toContainText(/CA\d{14}/);
  return (await rows.allInnerTexts()).flatMap((t) => t.match(NUMBER) ?? []);
}

/** Once the worker controls the page, its reads go through the worker's cache from then on. */
async function underServiceWorker(page: Page) {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  await expect.poll(() => page.evaluate(() => !!navigator.serviceWorker.controller), { timeout: 15_000 }).toBe(true);
}

/** HH:mm in the browser's zone (the projects run in Asia/Shanghai), for now and the minute before. */
function recentClockTimes(): string[] {
  const fmt = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Shanghai', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  return [fmt.format(new Date()), fmt.format(new Date(Date.now() - 60_000))];
}

/** The detail of the row numbered `number` (GET …/detail?id=) with its approval process (POST /v2/…/check/process/info). */
async function openFirstDetail(page: Page, number: string) {
  const list = listScreen(page);
  await list.openDetail(list.rows().filter({ hasText: number }).first(), 'button');
  const detail = page.locator('.ad-process');
  await expect(detail.locator('.pt-title').first()).toBeVisible();
  await expect(page.getByText(number).last()).toBeVisible();
  return detail;
}

async function signOut(page: Page) {
  if (isPhone(page)) {
    await page.goto('/profile');
    await page.locator('.profile-logout').click();
  } else {
    await page.locator('.d-logout').click();
  }
  await page.getByRole('button', { name: '退出', exact: true }).click();
  await expect(page).toHaveURL(/\/login/);
}

test('the signed-in shell opens offline after a reload', async ({ page, context }) => {
  await signInAs(page, 'reviewer');
  await page.goto('/');
  await expect(page.getByText(/，李强/)).toBeVisible();
  await underServiceWorker(page);
  // This first visit read /user/info before the worker took control, so the person comes from the
  // persisted queries (written a moment after they change), not from the worker's copy.
  await expect.poll(() => page.evaluate(() => localStorage.getItem('park.queries'))).toContain('"me"');

  await context.setOffline(true);
  await page.reload();
  await expect(page.getByText(/，李强/)).toBeVisible();
  await expect(page.getByText('中海壳牌').first()).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: '当前离线' })).toBeVisible();
  await context.setOffline(false);
});

test('a list read online is shown offline with the time of its copy; an unread one fails honestly', async ({ page, context }) => {
  await signInAs(page, 'contact');
  await page.goto('/');
  await underServiceWorker(page);
  const list = listScreen(page);
  await list.open('/appointments/car');
  const online = await numbersOnScreen(page);
  expect(online.length).toBeGreaterThan(0);
  // A submitted visit, which has a process to show (other specs on this worker's server may have left drafts on top).
  const submitted = (await listScreen(page).rows().filter({ hasNotText: '草稿' }).first().innerText()).match(NUMBER)![0];
  const steps = await (await openFirstDetail(page, submitted)).locator('.pt-title').allInnerTexts();

  await context.setOffline(true);
  await page.reload();
  const banner = page.getByRole('status').filter({ hasText: '缓存的数据' });
  await expect(banner).toBeVisible();
  const text = await banner.innerText();
  expect(text).toMatch(/^当前离线，显示的是 \d{2}:\d{2} 缓存的数据$/);
  expect(recentClockTimes()).toContain(/\d{2}:\d{2}/.exec(text)![0]);
  expect(await numbersOnScreen(page)).toEqual(online);
  await shot(page, 'offline-banner');
  // The detail read online opens offline too, its process included.
  const detail = await openFirstDetail(page, submitted);
  expect(await detail.locator('.pt-title').allInnerTexts()).toEqual(steps);
  await expect(page.getByText('审批流程加载失败')).toHaveCount(0);

  // A list this person never opened online has no copy: the usual network error, not an empty list.
  await page.goto('/appointments/person');
  await expect(page.getByText('网络连接失败，请检查网络后重试')).toBeVisible();
  await expect(page.getByText('加载失败')).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: '缓存的数据' })).toHaveCount(0);
  await expect(page.getByRole('status').filter({ hasText: '当前离线' })).toBeVisible();
  await shot(page, 'offline-no-copy');

  // Back online, the list is fresh again and the banner goes.
  await context.setOffline(false);
  await list.open('/appointments/car');
  await expect(page.getByText(/当前离线|缓存的数据/)).toHaveCount(0);
});

test('signing out removes the offline copies; the next person is not served them', async ({ page, context }) => {
  await signInAs(page, 'contact');
  await page.goto('/');
  await underServiceWorker(page);
  await listScreen(page).open('/appointments/car');
  const kept = () =>
    page.evaluate(async () => {
      const keys = (await caches.has('api-reads')) ? await (await caches.open('api-reads')).keys() : [];
      return keys.map((r) => new URL(r.url).pathname);
    });
  await expect.poll(kept).toContain('/__offline-reads__/POST/api/carApplications/list');
  // The persisted queries are written a moment after they change (throttled).
  await expect.poll(() => page.evaluate(() => localStorage.getItem('park.queries'))).toContain('"me"');

  await signOut(page);
  await expect.poll(kept).toEqual([]);
  expect(await page.evaluate(() => localStorage.getItem('park.queries'))).toBeNull();

  // Another enterprise contact on the same device, offline: the car list is not the previous person's.
  await signInAs(page, 'portcontact');
  await page.goto('/');
  await expect(page.getByText(/，黄磊/)).toBeVisible();
  await context.setOffline(true);
  await page.goto('/appointments/car');
  await expect(page.getByText('网络连接失败，请检查网络后重试')).toBeVisible();
  await expect(page.getByText(/CA\d{14}/)).toHaveCount(0);
  await context.setOffline(false);
});

test('a Background Sync of the outbox tells the open window to drain', async ({ page, context }) => {
  await signInAs(page, 'contact');
  await page.goto('/');
  await underServiceWorker(page);
  await page.evaluate(() => {
    const w = window as unknown as { drains: string[] };
    w.drains = [];
    navigator.serviceWorker.addEventListener('message', (e: MessageEvent<{ type?: string }>) => w.drains.push(String(e.data?.type)));
  });
  const drains = () => page.evaluate(() => (window as unknown as { drains: string[] }).drains.filter((t) => t === 'OUTBOX_DRAIN').length);

  const cdp = await context.newCDPSession(page);
  const registrations: string[] = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => registrations.push(...e.registrations.filter((r) => !r.isDeleted).map((r) => r.registrationId)));
  await cdp.send('ServiceWorker.enable');
  await expect.poll(() => registrations.length).toBeGreaterThan(0);
  const sync = (tag: string) => cdp.send('ServiceWorker.dispatchSyncEvent', { origin: base, registrationId: registrations[0], tag, lastChance: false });

  await sync('another-tag');
  await sync('outbox');
  await expect.poll(drains).toBe(1);
  await page.waitForTimeout(300);
  expect(await drains()).toBe(1);
});
