import { createECDH, randomBytes } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { formatInZone } from '../../domain/time';
import { addDays } from '../../domain/visit-rules';
import { E2E_DATA_DIR } from '../../playwright.config';
import { signInViaApi } from '../../scripts/demo-login';
import { base, call, DEMO_PASSWORD, fileVisitor, isPhone, shot, signInAs } from './support';

// This spec exercises the service worker, which the config blocks elsewhere.
test.use({ serviceWorkers: 'allow' });

/**
 * Notifications in the browser: the service worker's push handler (a push
 * delivered through the DevTools protocol shows a notification), the bell
 * kept live over the notification stream while a task is assigned, the
 * notification centre and the per-device opt-in screen.
 */

let seq = 0;

/** The enterprise contact files and submits a person appointment visiting 中海壳牌: the reviewer gets a task. */
async function submitPersonAppointment(page: Page): Promise<string> {
  const contact = await signInViaApi(base, E2E_DATA_DIR, 'contact', DEMO_PASSWORD);
  const day = addDays(formatInZone(new Date()), 2);
  const n = (isPhone(page) ? 600 : 700) + ++seq;
  const name = `通知${'甲乙丙丁戊己庚辛'[seq % 8]}${'一二三四五六七八九'[n % 9]}`;
  await fileVisitor(contact, { name, seq: n, day, phonePrefix: '1390002' });
  return name;
}

/** One non-waiting read: a count() then textContent() pair would wait forever if the badge went between the two. */
/** The exact unread count, from the bell's tooltip: the badge itself stops at 99+. */
const bellCount = async (page: Page) => {
  const title = (await page.getByTestId('notification-bell').getAttribute('title')) ?? '';
  return Number(/(\d+) 条未读/.exec(title)?.[1] ?? 0);
};

test('the service worker shows a pushed notification (CDP ServiceWorker.deliverPushMessage)', async ({ page, context }) => {
  await context.grantPermissions(['notifications'], { origin: base });
  await signInAs(page, 'reviewer');
  await page.goto('/notifications');
  await expect(page.getByTestId('notification-bell')).toBeVisible();
  // The production build registers the worker after load; wait until it controls nothing less than this origin.
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));

  const cdp = await context.newCDPSession(page);
  // The latest state of every registration the browser reports; a browser shared by both projects may also list
  // the earlier context's, so the push goes to each live one of this origin.
  const registrations = new Map<string, { scopeURL: string; isDeleted: boolean }>();
  cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => e.registrations.forEach((r) => registrations.set(r.registrationId, r)));
  await cdp.send('ServiceWorker.enable');
  const live = () => [...registrations.entries()].filter(([, r]) => r.scopeURL === `${base}/` && !r.isDeleted).map(([id]) => id);
  await expect.poll(() => live().length).toBeGreaterThan(0);
  const deliver = async (data: unknown) => {
    for (const registrationId of live()) await cdp.send('ServiceWorker.deliverPushMessage', { origin: base, registrationId, data: JSON.stringify(data) }).catch(() => undefined);
  };

  const payload = { title: '新的审批任务', body: '人员预约审核：访客张三（PA20260101000001）待您审核', url: '/approval/person', tag: `task-e2e-${isPhone(page) ? 'p' : 'd'}` };
  const shown = () =>
    page.evaluate(async () => {
      const reg = await navigator.serviceWorker.ready;
      return (await reg.getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, url: (n.data as { url?: string } | null)?.url }));
    });
  // Delivered again on each look until it shows: a push that reaches a worker still starting can be dropped by the browser.
  await expect
    .poll(
      async () => {
        const now = await shown();
        if (!now.some((n) => n.tag === payload.tag)) await deliver(payload);
        return now;
      },
      { timeout: 15_000 },
    )
    .toContainEqual({ title: payload.title, body: payload.body, tag: payload.tag, url: payload.url });

  // The same tag replaces the notification rather than stacking a second one.
  const updated = { ...payload, body: '更新后的内容' };
  await deliver(updated);
  await expect
    .poll(
      async () => {
        const bodies = (await shown()).filter((n) => n.tag === payload.tag).map((n) => n.body);
        if (!bodies.includes(updated.body)) await deliver(updated);
        return bodies;
      },
      { timeout: 15_000 },
    )
    .toEqual(['更新后的内容']);
  await cdp.detach();
});

test('the bell counts a task assigned while the app is open, and the centre opens it', async ({ page }) => {
  await signInAs(page, 'reviewer');
  // The count on open comes from the server.
  const counted = page.waitForResponse((r) => r.url().endsWith('/api/notifications/unreadCount'));
  // The live stream opens once the first screen has settled (afterFirstScreen); the task is assigned after that.
  const streaming = page.waitForResponse((r) => r.url().endsWith('/api/notifications/stream'), { timeout: 30_000 });
  await page.goto('/');
  const bell = page.getByTestId('notification-bell');
  await expect(bell).toBeVisible();
  const server = ((await (await counted).json()) as { data: { count: number } }).data.count;
  await expect.poll(() => bellCount(page)).toBe(server);
  const before = server;

  await streaming;
  const name = await submitPersonAppointment(page);
  // No reload, no navigation: the stream brings it.
  await expect.poll(() => bellCount(page), { timeout: 15_000 }).toBe(before + 1);

  await bell.click();
  await expect(page).toHaveURL(/\/notifications$/);
  const first = page.getByTestId('notification-item').first();
  await expect(first).toContainText('新的审批任务');
  await expect(first).toContainText(`访客${name}`);
  await expect(first).toHaveClass(/is-unread/);
  await shot(page, 'notifications-centre');

  // A tap opens the task itself in its queue (the link's ?open= is dropped once used) and marks it read.
  const beforeTap = await bellCount(page);
  await first.click();
  await expect(page).toHaveURL(/\/approval\/person$/);
  await expect(page.getByRole('dialog').last()).toContainText(name);
  await shot(page, 'notification-opens-task');
  await expect.poll(() => bellCount(page), { timeout: 15_000 }).toBe(beforeTap - 1);

  // The count on the next open is the server's, not a leftover.
  await page.reload();
  await expect.poll(() => bellCount(page), { timeout: 15_000 }).toBe(beforeTap - 1);

  // 全部已读 with something unread (the other screen size's run may have read the older ones already).
  await submitPersonAppointment(page);
  await expect.poll(() => bellCount(page), { timeout: 10_000 }).toBe(before + 1);
  await page.goto('/notifications');
  await expect(page.locator('.nitem.is-unread').first()).toBeVisible();
  await page.getByRole('button', { name: '全部已读' }).click();
  await expect(page.getByText('已全部标为已读')).toBeVisible();
  await expect(page.getByTestId('notification-count')).toHaveCount(0);
  await expect(page.locator('.nitem.is-unread')).toHaveCount(0);
  await page.getByRole('tab', { name: /未读/ }).click();
  await expect(page.getByText('没有未读消息')).toBeVisible();
});

test('the opt-in screen says when the browser refuses notifications', async ({ page, context }) => {
  await context.clearPermissions();
  const token = await signInAs(page, 'squad');
  // Another device of the same person (subscribed through the API with keys a browser would make).
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const other = `办公电脑 ${isPhone(page) ? 'P' : 'D'}`;
  await call(token, '/push/subscribe', {
    endpoint: `https://push.example.invalid/e2e/${Date.now()}`,
    keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') },
    device_label: other,
  });
  await page.goto('/notifications/push');
  await expect(page.getByTestId('push-status')).toContainText('本机推送未开启');
  await expect(page.getByRole('button', { name: '开启本机推送' })).toBeEnabled();
  const row = page.locator('.npush-device').filter({ hasText: other });
  await expect(row).toBeVisible();
  await shot(page, 'notifications-push');
  await row.getByRole('button', { name: '移除' }).click();
  await page.getByRole('dialog').getByRole('button', { name: '确定' }).click();
  await expect(page.getByText('已移除该设备')).toBeVisible();
  await expect(row).toHaveCount(0);

  // As if the person had pressed 禁止 on the browser's prompt earlier.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Browser.setPermission', { permission: { name: 'notifications' }, setting: 'denied', origin: base });
  await cdp.detach();
  await page.getByRole('button', { name: '开启本机推送' }).click();
  await expect(page.getByTestId('push-problem')).toContainText('浏览器已禁止本站发送通知');
  await expect(page.getByTestId('push-status')).toContainText('浏览器已禁止通知');
  await shot(page, 'notifications-push-denied');
  await expect(page.getByText('接收推送的设备')).toBeVisible();
});

test('the opt-in screen turns this device on, or says in words that the push service cannot be reached', async ({ page, context }) => {
  await context.grantPermissions(['notifications'], { origin: base });
  await signInAs(page, 'hazard');
  await page.goto('/notifications/push');
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
  await page.getByRole('button', { name: '开启本机推送' }).click();
  // This machine has no route to the browser vendor's push service: the screen must say so in words.
  const problem = page.getByTestId('push-problem');
  const status = page.getByTestId('push-status');
  await expect(problem.or(status.filter({ hasText: '本机推送已开启' }))).toBeVisible({ timeout: 20_000 });
  if (await problem.isVisible()) {
    await expect(problem).toContainText(/推送服务|推送订阅/);
    await shot(page, 'notifications-push-unreachable');
  } else {
    await expect(page.getByText('本机', { exact: true })).toBeVisible();
    await page.getByRole('button', { name: '关闭本机推送' }).click();
    await expect(status).toContainText('本机推送未开启');
  }
});
