import { expect, test, type Page, type Route } from '@playwright/test';
import type { DeviceAlarmCounts, GateTraffic, OpenAlarms } from '../../domain/schemas/big-screen';
import { formatInZone } from '../../domain/time';
import { E2E_DATA_DIR } from '../../playwright.config';
import { signInViaApi } from '../../scripts/demo-login';
import { BLACK_PLATE } from '../../server/seed/seed-appointments';
import { base, call, DEMO_PASSWORD, isPhone, PNG, shot } from './support';

/**
 * 大屏 and 地图看板 (spec 002 §2; issue 26 items 5–6), at phone and desktop
 * sizes: the clock ticks in the spec's format, the canvas fits whole at
 * 16:9 and on a 32:9 wall with nothing to scroll, the alarm panel follows a
 * device alarm without a reload, an open alarm stays pinned through a run of
 * refusals until it is handled, and the map shows one marker per surveyed
 * gate of the register, with no tiles to reach (this machine has no network).
 */

const tokens = new Map<string, Promise<string>>();
const tokenOf = (account: string) => {
  let t = tokens.get(account);
  if (!t) tokens.set(account, (t = signInViaApi(base, E2E_DATA_DIR, account, DEMO_PASSWORD)));
  return t;
};

async function open(page: Page, path: string, account = 'lead') {
  const token = await tokenOf(account);
  await page.goto('/login');
  await page.evaluate((t) => localStorage.setItem('park.token', t), token);
  await page.goto(path);
}

/** The canvas lies whole inside the window, fills it in one direction, and the page has nothing to scroll. */
async function expectFitted(page: Page) {
  const canvas = page.getByTestId('big-screen-canvas');
  await expect(canvas).toBeVisible();
  const { w, h, box, scroll } = await page.evaluate(() => {
    const r = document.querySelector('[data-testid="big-screen-canvas"]')!.getBoundingClientRect();
    const el = document.scrollingElement!;
    return {
      w: innerWidth,
      h: innerHeight,
      box: { left: r.left, top: r.top, right: r.right, bottom: r.bottom },
      scroll: { sw: el.scrollWidth, sh: el.scrollHeight, cw: el.clientWidth, ch: el.clientHeight },
    };
  });
  expect(scroll.sw).toBeLessThanOrEqual(scroll.cw);
  expect(scroll.sh).toBeLessThanOrEqual(scroll.ch);
  expect(box.left).toBeGreaterThanOrEqual(-0.5);
  expect(box.top).toBeGreaterThanOrEqual(-0.5);
  expect(box.right).toBeLessThanOrEqual(w + 0.5);
  expect(box.bottom).toBeLessThanOrEqual(h + 0.5);
  const fillsWidth = Math.abs(box.right - box.left - w) < 1;
  const fillsHeight = Math.abs(box.bottom - box.top - h) < 1;
  expect(fillsWidth || fillsHeight, JSON.stringify({ w, h, box })).toBe(true);
  return box;
}

test('the big screen’s clock ticks every second in the spec’s format beside the title, the user and the ways out', async ({ page }) => {
  await open(page, '/big-screen');
  const clock = page.getByTestId('big-screen-clock');
  await expect(clock).toHaveText(/^\d{4}\/\d{2}\/\d{2} 星期[日一二三四五六] \d{2}:\d{2}:\d{2}$/);
  const first = await clock.textContent();
  await expect.poll(() => clock.textContent(), { timeout: 2500, intervals: [200] }).not.toBe(first);
  await expect(page.getByRole('heading', { name: '园区出入管理系统' })).toBeVisible();
  await expect(page.getByTestId('big-screen-user')).toHaveText('赵敏');
  await expect(page.getByRole('link', { name: '返回后台' })).toHaveAttribute('href', '/');
  await expect(page.getByRole('button', { name: '退出登录' })).toBeVisible();
  await expectFitted(page);
  await shot(page, 'big-screen');
});

test('the big screen fits whole at 1920×1080 and on a 3840×1080 wall, with no scrollbars', async ({ page }) => {
  await open(page, '/big-screen');
  await page.setViewportSize({ width: 1920, height: 1080 });
  const single = await expectFitted(page);
  expect(single.right - single.left).toBeCloseTo(1920, 0);
  await page.setViewportSize({ width: 3840, height: 1080 });
  // The wall layout, not a 16:9 canvas letterboxed in the middle.
  await expect.poll(async () => (await expectFitted(page)).right).toBeCloseTo(3840, 0);
  const wall = await expectFitted(page);
  expect(wall.left).toBeCloseTo(0, 0);
});

test('the device-alarm panel counts a device’s alarm without a reload', async ({ page }) => {
  const admin = await tokenOf('admin');
  const [device] = await call<{ list: { id: number; number: string }[] }>(admin, '/equipment/tireCrushing/list', { size: 10, pn: 1 }).then((p) => p.list);
  const { key } = await call<{ key: string }>(admin, '/equipment/tireCrushing/issueKey', { id: device!.id });
  await open(page, '/big-screen');
  const total = page.getByTestId('alarm-total');
  const before = await call<DeviceAlarmCounts>(await tokenOf('lead'), '/board/deviceAlarmCounts', undefined, 'GET');
  await expect(total).toContainText(String(before.total));
  const res = await fetch(`${base}/api/device/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Device ${device!.number}:${key}` },
    body: JSON.stringify({ events: [{ event_id: `e2e-big-${Date.now()}-${Math.random()}`, type: 'alarm', alarm_type: '破胎器故障', capture_time: formatInZone(new Date()) }] }),
  });
  expect(res.status).toBe(200);
  // Through the notification stream's figures event, well before the 60 s poll.
  await expect(total).toContainText(String(before.total + 1), { timeout: 10_000 });
  await expect(page.locator('[data-kind="tireCrushing"] .bs-bar-num')).toHaveText(String(before.tireCrushing + 1));
});

test('an open alarm stays pinned, by kind, after a run of refusals, until someone handles it', async ({ page }) => {
  const admin = await tokenOf('admin');
  const lead = await tokenOf('lead');
  // A gate of its own, so no other test's key replaces this one's.
  const tag = `${Date.now().toString(36)}${isPhone(page) ? 'p' : 'd'}`;
  const number = `E2E-BS-${tag}`;
  const { id } = await call<{ id: number }>(admin, '/equipment/gate/save', { name: `大屏道闸${tag}`, number, type: 1, entrances_type: 1, is_security_check: 0, temporary_reservation: 0 });
  const { key } = await call<{ key: string }>(admin, '/equipment/gate/issueKey', { id });
  let seq = 0;
  const send = async (events: Record<string, unknown>[]) => {
    const res = await fetch(`${base}/api/device/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Device ${number}:${key}` },
      body: JSON.stringify({ events: events.map((e) => ({ event_id: `bs-${tag}-${++seq}`, capture_time: formatInZone(new Date()), type: 'vehicle', direction: 1, ...e })) }),
    });
    expect(res.status).toBe(200);
  };

  await open(page, '/big-screen');
  await expect(page.getByTestId('open-alarm-total')).toHaveText(/^\d+$/);
  // A guard lets the black-listed plate in: the alarm 黑名单入园 is raised at once.
  await send([{ license_plate: BLACK_PLATE, open_result: 1 }]);
  const opened = await call<OpenAlarms>(lead, '/board/openAlarms', undefined, 'GET');
  const alarm = opened.kinds.find((k) => k.kind === 'car')!.list[0]!;
  expect(alarm.subject).toBe(BLACK_PLATE);
  // Then thirty routine refusals, in three bursts as gates send them.
  const refused = (burst: number, i: number) => `粤LR${isPhone(page) ? 'P' : 'D'}${burst}${String(i).padStart(2, '0')}`;
  for (let burst = 0; burst < 3; burst++) await send(Array.from({ length: 10 }, (_, i) => ({ license_plate: refused(burst, i), open_result: 0 })));

  const feed = page.getByTestId('live-feed');
  await expect(feed.locator('li').first()).toContainText(refused(2, 9), { timeout: 10_000 });
  await expect(feed).not.toContainText(BLACK_PLATE);
  const panel = page.getByTestId('open-alarms');
  const pinned = panel.locator(`[data-kind="car"] [data-alarm-id="${alarm.id}"]`);
  await expect(pinned).toContainText(BLACK_PLATE);
  await expect(pinned).toContainText('黑名单入园');
  const total = page.getByTestId('open-alarm-total');
  await expect(total).toHaveText(String(opened.total));
  await expect(total).toHaveClass(/is-alert/);
  // The device-alarm figure counts device alarms, not these.
  const devices = await call<DeviceAlarmCounts>(lead, '/board/deviceAlarmCounts', undefined, 'GET');
  await expect(page.getByTestId('alarm-total')).toContainText(String(devices.total));
  await shot(page, 'big-screen-open-alarms');

  // Handled, it leaves the panel without a reload, and the figure drops by one.
  await call(lead, '/car/stranded/alarmDeal', { id: alarm.id, false_alarm: 0, handled_remark: '判断准确！' });
  await expect(pinned).toHaveCount(0, { timeout: 10_000 });
  await expect(total).toHaveText(String(opened.total - 1));
});

test('the map board shows one marker per surveyed gate of the register, with its figures in a popup, on a plain ground', async ({ page }) => {
  const gates = await call<GateTraffic[]>(await tokenOf('lead'), '/board/gateTraffic', undefined, 'GET');
  const placed = gates.filter((g) => g.latitude !== null && g.longitude !== null);
  expect(placed.length).toBeGreaterThan(0);
  await open(page, '/map-board');
  const markers = page.locator('.leaflet-marker-icon');
  await expect(markers).toHaveCount(placed.length);
  for (const g of placed) await expect(page.locator('.leaflet-marker-icon', { hasText: g.name })).toHaveCount(1);
  // No tiles configured: no tile images at all, and the ground says why.
  await expect(page.locator('img.leaflet-tile')).toHaveCount(0);
  await expect(page.getByText('未配置地图底图，仅显示设备位置')).toBeVisible();
  // Nothing to scroll at this size either.
  const overflow = await page.evaluate(() => document.scrollingElement!.scrollHeight - innerHeight);
  expect(overflow).toBeLessThanOrEqual(0);

  const first = placed[0]!;
  // Dispatched: a gate's car lane and footway stand metres apart, so one dot may lie under the other's name.
  await page.locator('.leaflet-marker-icon', { hasText: first.name }).dispatchEvent('click');
  const popup = page.getByTestId('gate-popup');
  await expect(popup).toContainText(first.name);
  await expect(popup.locator('tbody tr').first()).toContainText(`车辆${first.carIn}${first.carOut}`);
  await shot(page, 'map-board');
});

test.describe('tiles', () => {
  test('the map board drops tiles it cannot reach and keeps tiles that load', async ({ page }) => {
    const gates = await call<GateTraffic[]>(await tokenOf('lead'), '/board/gateTraffic', undefined, 'GET');
    const placed = gates.filter((g) => g.latitude !== null && g.longitude !== null).length;
    const tiles = (url: string) => (route: Route) => route.fulfill({ json: { success: true, code: 1000, msg: '操作成功', message: '操作成功', data: { url, crs: 'gcj02' } } });

    // A provider nobody answers for (the port is closed): the first failure drops the layer, no broken images stay.
    await page.route('**/api/board/mapTiles', tiles('http://127.0.0.1:9/{z}/{x}/{y}.png'));
    await open(page, '/map-board');
    await expect(page.locator('.leaflet-marker-icon')).toHaveCount(placed);
    await expect(page.getByText('地图底图无法访问，仅显示设备位置')).toBeVisible();
    await expect(page.locator('img.leaflet-tile')).toHaveCount(0);

    // A provider that answers: its tiles are drawn under the markers.
    await page.unroute('**/api/board/mapTiles');
    await page.route('**/api/board/mapTiles', tiles(`${base}/e2e-tiles/{z}/{x}/{y}.png`));
    await page.route('**/e2e-tiles/**', (route) => route.fulfill({ contentType: 'image/png', body: PNG }));
    await page.reload();
    await expect(page.locator('.leaflet-marker-icon')).toHaveCount(placed);
    await expect(page.locator('img.leaflet-tile-loaded').first()).toBeVisible();
    await expect(page.getByText(/仅显示设备位置/)).toHaveCount(0);
  });
});
