import { expect, test } from '@playwright/test';
import { formatInZone } from '../../domain/time';
import { BLACK_PLATE } from '../../server/seed/seed-appointments';
import { base, call, isPhone, randomPlate, shot, signInAs } from './support';

/**
 * 数据看板 (spec 002 §2 Dashboard, issue 26 item 4) at both sizes: dark,
 * its charts drawn, three columns on a desktop and one on a phone, each
 * figure once, the whole board in a 1440×900 window under the alarm banner,
 * and a figure that moves without a reload once a gate reports a crossing
 * through the device API (the notification stream's `figures` event; the
 * 60 s poll is far too slow to pass this).
 */
test('the dashboard is dark, draws its charts and follows a crossing live', async ({ page }) => {
  const admin = await signInAs(page, 'admin');
  // A gate of its own; first it lets the black-listed plate in, which raises an alarm whose banner shows on every screen.
  const tag = `${Date.now().toString(36)}${isPhone(page) ? 'p' : 'd'}`;
  const number = `E2E-DASH-${tag}`;
  const { id } = await call<{ id: number }>(admin, '/equipment/gate/save', { name: `看板道闸${tag}`, number, type: 1, entrances_type: 1, is_security_check: 0, temporary_reservation: 0 });
  const { key } = await call<{ key: string }>(admin, '/equipment/gate/issueKey', { id });
  const enter = async (eventId: string, plate: string) => {
    const res = await fetch(`${base}/api/device/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Device ${number}:${key}` },
      body: JSON.stringify({ events: [{ event_id: eventId, type: 'vehicle', capture_time: formatInZone(Date.now()), license_plate: plate, license_plate_color: 2, direction: 1, open_result: 1 }] }),
    });
    expect(res.status).toBe(200);
  };
  await enter(`dash-black-${tag}`, BLACK_PLATE);

  await page.goto('/dashboard');
  const board = page.getByTestId('dashboard');
  await expect(board).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('.alarm-banner')).toBeVisible();

  // Dark: the board's own background, and its text light on it.
  const colours = await board.evaluate((el) => ({ bg: getComputedStyle(el).backgroundColor, fg: getComputedStyle(el).color }));
  const rgb = (c: string) => c.match(/\d+/g)!.slice(0, 3).map(Number);
  const luminance = (c: string) => rgb(c).reduce((a, b) => a + b, 0) / 3;
  expect(luminance(colours.bg)).toBeLessThan(50);
  expect(luminance(colours.fg)).toBeGreaterThan(180);

  // The charts: recharts' svg with its axes in each panel, bars (never a smoothed curve), and the week's submissions (the seed files some every day).
  for (const panel of ['panel-in-out', 'panel-trend', 'panel-overtime']) await expect(page.getByTestId(panel).locator('svg.recharts-surface .recharts-cartesian-axis-tick').first()).toBeAttached();
  await expect(page.getByTestId('panel-trend').locator('svg.recharts-surface .recharts-bar-rectangle path').first()).toBeAttached();
  await expect(page.getByTestId('panel-in-out').locator('.recharts-bar')).toHaveCount(2);
  await expect(board.locator('.recharts-area, .recharts-line')).toHaveCount(0);
  // The hours are labelled at an even step, 00:00 to 21:00 every three hours.
  const ticks = page.getByTestId('panel-in-out').locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value');
  await expect(ticks).toHaveText(['00:00', '03:00', '06:00', '09:00', '12:00', '15:00', '18:00', '21:00']);
  const xs = await ticks.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().x + e.getBoundingClientRect().width / 2));
  const steps = xs.slice(1).map((x, i) => x - xs[i]!);
  for (const step of steps) expect(Math.abs(step - steps[0]!)).toBeLessThan(1.5);
  await expect(page.getByTestId('dashboard-updated')).toHaveText(/^更新于 \d{2}:\d{2}:\d{2}$/);
  // Every device kind's offline count is coloured: red when non-zero, green at zero.
  const offline = page.getByTestId('panel-devices').locator('tbody td:last-child');
  expect(await offline.count()).toBeGreaterThan(0);
  for (const cell of await offline.all()) await expect(cell).toHaveClass(Number(await cell.textContent()) > 0 ? 'db-offline' : 'db-online');
  // Each figure once: today's entries, exits and who is inside in the strip, and no label twice on the board.
  await expect(page.getByTestId('panel-today').locator('.db-stat-label')).toHaveText(['车辆入园', '车辆出园', '在园车辆', '人员入园', '人员出园', '在园人员']);
  const labels = await board.locator('.db-stat-label').allTextContents();
  expect(labels.length).toBeGreaterThan(6);
  expect(new Set(labels).size, labels.join(' ')).toBe(labels.length);

  // Columns: three side by side on a desktop, stacked on a phone.
  const left = await page.locator('.db-left').boundingBox();
  const right = await page.locator('.db-right').boundingBox();
  if (isPhone(page)) expect(right!.y).toBeGreaterThan(left!.y + left!.height - 1);
  else expect(right!.x).toBeGreaterThan(left!.x + left!.width);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  // At 1440×900, under the header and the alarm banner, the whole board is in the window: nothing scrolls.
  if (!isPhone(page)) {
    const fit = await page.evaluate(() => ({
      scroll: document.scrollingElement!.scrollHeight,
      window: innerHeight,
      bottom: document.querySelector('[data-testid="dashboard"]')!.getBoundingClientRect().bottom,
    }));
    expect(fit.scroll, JSON.stringify(fit)).toBeLessThanOrEqual(fit.window);
    expect(fit.bottom, JSON.stringify(fit)).toBeLessThanOrEqual(fit.window);
  }

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
  await page.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true));
  await enter(`dash-${tag}`, randomPlate());
  await expect(figure).toHaveText((before + 1).toLocaleString('zh-CN'), { timeout: 5_000 });
  expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
});
