import { expect, test } from '@playwright/test';
import { formatInZone } from '../../domain/time';
import { base, call, isPhone, randomPlate, shot, signInAs } from './support';

/**
 * 数据看板 (spec 002 §2 Dashboard, issue 26 item 4) at both sizes: dark,
 * its charts drawn, three columns on a desktop and one on a phone, and a
 * figure that moves without a reload once a gate reports a crossing through
 * the device API (the notification stream's `figures` event; the 60 s poll
 * is far too slow to pass this).
 */
test('the dashboard is dark, draws its charts and follows a crossing live', async ({ page }) => {
  const admin = await signInAs(page, 'admin');
  await page.goto('/dashboard');
  const board = page.getByTestId('dashboard');
  await expect(board).toBeVisible({ timeout: 30_000 });

  // Dark: the board's own background, and its text light on it.
  const colours = await board.evaluate((el) => ({ bg: getComputedStyle(el).backgroundColor, fg: getComputedStyle(el).color }));
  const rgb = (c: string) => c.match(/\d+/g)!.slice(0, 3).map(Number);
  const luminance = (c: string) => rgb(c).reduce((a, b) => a + b, 0) / 3;
  expect(luminance(colours.bg)).toBeLessThan(50);
  expect(luminance(colours.fg)).toBeGreaterThan(180);

  // The charts: recharts' svg with its axes in each panel, and the week's submissions (the seed files some every day) as bars.
  for (const panel of ['panel-in-out', 'panel-trend', 'panel-overtime']) await expect(page.getByTestId(panel).locator('svg.recharts-surface .recharts-cartesian-axis-tick').first()).toBeAttached();
  await expect(page.getByTestId('panel-trend').locator('svg.recharts-surface .recharts-bar-rectangle path').first()).toBeAttached();
  await expect(page.getByTestId('dashboard-updated')).toHaveText(/^更新于 \d{2}:\d{2}:\d{2}$/);
  // Every device kind's offline count is coloured: red when non-zero, green at zero.
  const offline = page.getByTestId('panel-devices').locator('tbody td:last-child');
  expect(await offline.count()).toBeGreaterThan(0);
  for (const cell of await offline.all()) await expect(cell).toHaveClass(Number(await cell.textContent()) > 0 ? 'db-offline' : 'db-online');

  // Columns: three side by side on a desktop, stacked on a phone.
  const left = await page.locator('.db-left').boundingBox();
  const right = await page.locator('.db-right').boundingBox();
  if (isPhone(page)) expect(right!.y).toBeGreaterThan(left!.y + left!.height - 1);
  else expect(right!.x).toBeGreaterThan(left!.x + left!.width);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);

  // The toggles switch their charts without blanking them.
  await page.getByTestId('panel-in-out').getByRole('button', { name: '出园' }).click();
  await expect(page.getByTestId('panel-in-out').getByRole('button', { name: '出园' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('panel-in-out').locator('svg.recharts-surface').first()).toBeAttached();
  await page.getByTestId('panel-overtime').getByRole('button', { name: '人员' }).click();
  await expect(page.getByTestId('panel-overtime').locator('svg.recharts-surface').first()).toBeAttached();
  await shot(page, 'dashboard');

  // A gate of its own reports a vehicle in; the top bar's 车辆入园 moves by one, with no reload.
  const figure = page.getByTestId('today-car-in');
  await expect(figure).toHaveText(/^[\d,]+$/);
  const before = Number((await figure.textContent())!.replace(/,/g, ''));
  const tag = `${Date.now().toString(36)}${isPhone(page) ? 'p' : 'd'}`;
  const number = `E2E-DASH-${tag}`;
  const { id } = await call<{ id: number }>(admin, '/equipment/gate/save', { name: `看板道闸${tag}`, number, type: 1, entrances_type: 1, is_security_check: 0, temporary_reservation: 0 });
  const { key } = await call<{ key: string }>(admin, '/equipment/gate/issueKey', { id });
  await page.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true));
  const res = await fetch(`${base}/api/device/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Device ${number}:${key}` },
    body: JSON.stringify({
      events: [{ event_id: `dash-${tag}`, type: 'vehicle', capture_time: formatInZone(Date.now()), license_plate: randomPlate(), license_plate_color: 2, direction: 1, open_result: 1 }],
    }),
  });
  expect(res.status).toBe(200);
  await expect(figure).toHaveText((before + 1).toLocaleString('zh-CN'), { timeout: 5_000 });
  expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
});
