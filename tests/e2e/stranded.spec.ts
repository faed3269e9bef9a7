import { expect, test, type Page } from '@playwright/test';
import { maskIdNumber } from '../../domain/personal-data';
import { formatInZone } from '../../domain/time';
import { addDays, dateOf } from '../../domain/visit-rules';
import { E2E_DATA_DIR } from '../../playwright.config';
import { signInViaApi } from '../../scripts/demo-login';
import { base, call, DEMO_PASSWORD, isDesktop, isPhone, listScreen, randomPlate, shellDepartment, shot, signInAs, storedOutbox } from './support';

// This spec exercises the service worker, which the config blocks elsewhere.
test.use({ serviceWorkers: 'allow' });

/**
 * 滞留告警 (spec 001 §2; DESIGN.md §5, §8): an alarm raised through the real
 * device API reaches the security lead live in the notification centre; a tap
 * opens it, and the lead handles it with no signal, through the outbox, sent
 * exactly once when the signal returns (phone size, as in the field). At
 * desktop size the person and vehicle lists, the sectioned detail, the online
 * handling and the daily statistics with their exports. A visit off its route:
 * one 偏离路线告警, the banner with two kinds, handling from the banner, and
 * 全部标为已查看.
 */

interface Alarm {
  id: number;
  license_plate: string;
  person_name: string;
  level_type: number;
  is_black: number;
  handle_time: string | null;
  handle_user_name: string | null;
  false_alarm: number | null;
  handled_remark: string | null;
}

const modal = (page: Page) => page.locator('.sm').last();
const today = () => dateOf(formatInZone(new Date()));
const now = () => formatInZone(new Date());
const tokens = new Map<string, Promise<string>>();
/** One API session per demo account for the whole file (signing in costs an SMS code each time). */
const tokenOf = (account: string) => {
  let t = tokens.get(account);
  if (!t) tokens.set(account, (t = signInViaApi(base, E2E_DATA_DIR, account, DEMO_PASSWORD)));
  return t;
};

/** A resident ID number no other spec files (born 1985-05-05, a random sequence), with its GB 11643 check character. */
function freshIdNumber(): string {
  const body = `44130219850505${String(Math.floor(Math.random() * 1000)).padStart(3, '0')}`;
  const w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = w.reduce((s, x, i) => s + x * Number(body[i]), 0);
  return body + '10X98765432'[sum % 11];
}

/** The security lead files a black-list entry and the squad approves it: in force from today (DESIGN.md §7). */
async function blackList(kind: 'car' | 'person', subject: Record<string, unknown>, match: Record<string, string>): Promise<void> {
  const path = kind === 'car' ? '/carBlackWhiteList' : '/personBlackWhiteList';
  const lead = await tokenOf('lead');
  const { id } = await call<{ id: number }>(lead, `${path}/save`, { ...subject, type: 1, start_time: today(), end_time: addDays(today(), 30), in_reason: '多次闯卡，拒不配合安保检查' });
  await call(lead, `${path}/push`, { id });
  const squad = await tokenOf('squad');
  const { list } = await call<{ list: Array<{ process_task_id: number; ref_id: number }> }>(squad, `${path}/task/page`, { size: 100, pn: 1, ...match });
  const task = list.find((t) => t.ref_id === id);
  if (!task) throw new Error(`no list task for ${JSON.stringify(match)}`);
  await call(squad, `${path}/task/check`, { taskIds: [task.process_task_id], result: 1, remark: '审批通过。' });
}

/** A gate of this test's own, with a key issued by the admin (DESIGN.md §8), so no other test's key is voided. */
async function gate(): Promise<{ number: string; key: string; name: string }> {
  const admin = await tokenOf('admin');
  const number = `E2E-STR-${test.info().project.name.toUpperCase()}-${Date.now() % 1_000_000}`;
  const name = `滞留测试道闸${Date.now() % 10_000}`;
  const { id } = await call<{ id: number }>(admin, '/equipment/gate/save', {
    name,
    number,
    type: 1,
    entrances_type: 1,
    is_security_check: 1,
    temporary_reservation: 0,
    longitude: 114.52,
    latitude: 22.74,
  });
  const { key } = await call<{ key: string }>(admin, '/equipment/gate/issueKey', { id });
  return { number, key, name };
}

/** The gate reports crossings that opened it, direction 1 (in): a black-listed subject is alarmed as soon as the batch is stored. */
async function enter(device: { number: string; key: string }, events: Array<Record<string, unknown>>): Promise<void> {
  const res = await fetch(`${base}/api/device/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Device ${device.number}:${device.key}` },
    body: JSON.stringify({ events: events.map((e, i) => ({ event_id: `${device.number}-${Date.now()}-${i}`, capture_time: now(), direction: 1, open_result: 1, ...e })) }),
  });
  const body = (await res.json()) as { data: { accepted: number; rejected: unknown[] } };
  expect(body.data, JSON.stringify(body)).toMatchObject({ accepted: events.length, rejected: [] });
}

async function alarmOf(kind: 'car' | 'person', filter: Record<string, string>): Promise<Alarm> {
  const lead = await tokenOf('lead');
  const { list } = await call<{ list: Alarm[] }>(lead, `/${kind}/stranded/list`, { size: 10, pn: 1, ...filter });
  expect(list, `one alarm for ${JSON.stringify(filter)}`).toHaveLength(1);
  return list[0]!;
}

async function serviceWorkerInCharge(page: Page) {
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  if (!(await page.evaluate(() => !!navigator.serviceWorker.controller))) {
    await page.reload();
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  }
  await expect.poll(() => page.evaluate(() => !!navigator.serviceWorker.controller)).toBe(true);
}

test('a black-listed plate at the gate reaches the lead live; handled with no signal, it is sent once when the signal returns', async ({ page, context }) => {
  // Skipped at desktop size on purpose: handling an alarm offline is the lead's case in the field (a phone); the
  // desktop run handles one online below.
  test.skip(!isPhone(page), 'the offline handling is the phone run; the desktop run handles online below');
  test.setTimeout(90_000);
  const plate = randomPlate();
  const [device] = await Promise.all([gate(), blackList('car', { license_plate: plate }, { license_plate: plate })]);

  await signInAs(page, 'lead');
  // The live stream opens once the first screen has settled; the alarm is raised after that.
  const streaming = page.waitForResponse((r) => r.url().endsWith('/api/notifications/stream'), { timeout: 30_000 });
  await page.goto('/notifications');
  await serviceWorkerInCharge(page);
  await streaming;

  await enter(device, [{ type: 'vehicle', license_plate: plate, license_plate_color: 2 }]);
  const alarm = await alarmOf('car', { license_plate: plate });
  expect(alarm).toMatchObject({ level_type: 3, is_black: 1, handle_time: null });

  // No reload: the stream brings it to the open centre.
  // (The lead also hears that the list entry was approved: the alarm is the other one about this plate.)
  // It names what happened, the gate and the time (issue 24 item 4), not an overstay.
  const note = page.getByTestId('notification-item').filter({ hasText: plate }).filter({ hasText: '黑名单车辆入园' });
  await expect(note).toBeVisible({ timeout: 15_000 });
  await expect(note).toContainText(`经${device.name}入园`);
  await expect(note).not.toContainText('滞留超时');
  await shot(page, 'stranded-notification');

  // A tap opens that alarm's detail on the vehicle screen (the link's ?open= is dropped once used).
  await note.click();
  await expect(page).toHaveURL(/\/security\/stranded-car$/);
  const detail = modal(page);
  await expect(detail.getByText('车辆滞留告警详情')).toBeVisible();
  await expect(detail.locator('.sd-section', { hasText: '告警信息' })).toContainText(plate);
  await expect(detail).toContainText('黑名单入园');
  await expect(detail).toContainText('未处理');
  await expect(detail.locator('.sd-item', { hasText: '入园闸口' })).toContainText(device.name);
  // Let in without a visit: no empty applicant, vehicle or visit sections.
  await expect(detail.getByRole('heading', { name: '告警信息' })).toBeVisible();
  for (const title of ['申请人信息', '车辆信息', '来访信息']) await expect(detail.getByRole('heading', { name: title })).toHaveCount(0);
  await shot(page, 'stranded-detail');

  // No signal now: the lead handles it all the same. Every handling call the page makes is counted from here on.
  const dealCalls: number[] = [];
  page.on('response', (r) => {
    if (r.url().endsWith('/api/car/stranded/alarmDeal')) dealCalls.push(r.status());
  });
  await context.setOffline(true);
  await detail.getByRole('button', { name: '处理告警' }).click();
  const form = modal(page);
  await expect(form.getByText('是否误判')).toBeVisible();
  await form.getByText('否', { exact: true }).click();
  await expect(form.locator('#sd-remark')).toHaveValue('判断准确！');
  await form.getByText('是', { exact: true }).click();
  await expect(form.locator('#sd-remark')).toHaveValue('出现误判！');
  await form.getByText('否', { exact: true }).click();
  await form.locator('#sd-remark').fill('判断准确！已通知当班保安劝离');
  await shot(page, 'stranded-deal');
  await form.getByRole('button', { name: '确定', exact: true }).click();
  await expect(page.getByText('当前无网络，处理结果已保存，联网后自动发送')).toBeVisible();
  await expect(page.getByText('处理告警成功！')).toHaveCount(0);
  await expect(page.locator('.sm')).toHaveCount(0);

  // Waiting, not done: the card says so, the badge counts it, and the server has nothing yet.
  const screen = listScreen(page);
  const card = screen.row(plate);
  await expect(card.locator('.cl-extra')).toContainText('待发送');
  await expect(card.getByRole('button', { name: '处理告警' })).toHaveCount(0);
  const badge = page.getByTestId('outbox-badge').first();
  await expect(badge).toHaveAttribute('aria-label', /待发送 1 项/);
  expect((await alarmOf('car', { license_plate: plate })).handle_time).toBeNull();
  await shot(page, 'stranded-queued');

  // The signal returns: the outbox sends it and the open list shows it handled, without a reload.
  await context.setOffline(false);
  await expect(badge).toHaveAttribute('aria-label', '待发送：无', { timeout: 30_000 });
  await expect(card.locator('.cl-extra')).toContainText('已处理', { timeout: 15_000 });
  await shot(page, 'stranded-handled');
  const handled = await alarmOf('car', { license_plate: plate });
  expect(handled).toMatchObject({ false_alarm: 0, handled_remark: '判断准确！已通知当班保安劝离', handle_user_name: '赵敏' });
  expect(handled.handle_time).not.toBeNull();

  // Exactly once: one call reached the server and was accepted (a second handling would be answered 409 and leave a
  // conflict in the outbox), and the outbox keeps no conflict or failure.
  await page.waitForTimeout(1500);
  expect(dealCalls).toEqual([200]);
  const items = (await storedOutbox<{ kind: string; state: string; meta?: { alarmId?: number } }>(page)).filter((i) => i.kind === 'alarmDeal' && i.meta?.alarmId === alarm.id);
  expect(items.map((i) => i.state)).toEqual(['done']);
  expect((await storedOutbox<{ state: string }>(page)).filter((i) => i.state === 'conflict' || i.state === 'failed')).toHaveLength(0);
});

test('the lists, the sectioned detail, online handling and the daily statistics with their exports', async ({ page }) => {
  // Skipped at phone size on purpose: the phone run is the offline handling above; the desktop run shows the tables.
  test.skip(!isDesktop(page), 'the desktop run covers the tables; the phone run handles offline above');
  test.setTimeout(90_000);
  const plate = randomPlate();
  const idcard = freshIdNumber();
  const name = `滞留${'甲乙丙丁戊己庚辛'[Date.now() % 8]}${'一二三四五六七八九'[Date.now() % 9]}`;
  const [device] = await Promise.all([gate(), blackList('car', { license_plate: plate }, { license_plate: plate }), blackList('person', { name, gender: 0, idcard_type: 1, idcard }, { idcard })]);
  await enter(device, [
    { type: 'vehicle', license_plate: plate, license_plate_color: 2 },
    { type: 'person', idcard, person_name: name },
  ]);
  const carAlarm = await alarmOf('car', { license_plate: plate });
  const personAlarm = await alarmOf('person', { person_name: name });

  await signInAs(page, 'lead');
  const screen = listScreen(page);

  // 车辆滞留告警: the spec's filters (park, plate, time range from 7 days ago to tomorrow) and the columns.
  await screen.open('/security/stranded-car');
  await expect(page.getByRole('tab', { name: '滞留告警' })).toHaveAttribute('aria-selected', 'true');
  for (const head of ['来访园区', '车牌号', '告警类型', '入园时间', '告警时间', '出园时间', '处理状态', '处理人', '是否误判']) {
    await expect(page.locator('.dtb thead th', { hasText: new RegExp(`^${head}$`) })).toHaveCount(1);
  }
  const range = page.locator('.ff-item', { has: page.locator('.ff-label', { hasText: /^告警时间$/ }) }).locator('input');
  await expect(range.nth(0)).toHaveValue(addDays(today(), -7));
  await expect(range.nth(1)).toHaveValue(addDays(today(), 1));
  await screen.showOnly('车牌号', plate);
  const row = screen.row(plate);
  await expect(row).toContainText('黑名单入园');
  await expect(row).toContainText('未处理');
  await shot(page, 'stranded-car-list');

  // The read-only detail: a black-listed plate let in has no visit, so no empty applicant, vehicle or visit sections;
  // the gate it came in by; and 处理告警 at hand on the desktop as on the phone.
  await screen.openDetail(row, 'button');
  const detail = modal(page);
  await expect(detail.getByRole('heading', { name: '告警信息' })).toBeVisible();
  for (const title of ['申请人信息', '车辆信息', '来访信息']) await expect(detail.getByRole('heading', { name: title })).toHaveCount(0);
  await expect(detail.locator('.sd-item', { hasText: '入园闸口' })).toContainText(device.name);
  // Phones are personal data, masked by the server unless revealed (docs/personal-data.md).
  await expect(detail.locator('.sd-item', { hasText: '短信接收号码' })).toContainText('138****0007');
  await expect(detail.locator('.sd-item', { hasText: '短信内容' })).toContainText(`黑名单车辆入园：${plate}`);
  await expect(detail.getByRole('button', { name: '处理告警' })).toBeVisible();
  await shot(page, 'stranded-car-detail');
  await detail.getByRole('button', { name: '关闭' }).last().click();
  await expect(page.locator('.sm')).toHaveCount(0);

  // Handled online: 是 pre-fills '出现误判！', kept as it is.
  await screen.action(row, '处理告警');
  const form = modal(page);
  await form.getByRole('button', { name: '确定', exact: true }).click();
  await expect(form.getByText('请选择是否误判')).toBeVisible();
  await form.getByText('是', { exact: true }).click();
  await expect(form.locator('#sd-remark')).toHaveValue('出现误判！');
  await shot(page, 'stranded-car-deal');
  await form.getByRole('button', { name: '确定', exact: true }).click();
  await expect(page.getByText('处理告警成功！')).toBeVisible();
  await expect(row).toContainText('已处理');
  await expect(row).toContainText('赵敏');
  await expect(row.getByRole('button', { name: '处理告警' })).toHaveCount(0);
  expect(await alarmOf('car', { license_plate: plate })).toMatchObject({ id: carAlarm.id, false_alarm: 1, handled_remark: '出现误判！' });

  // The alarm list's export: '车辆滞留导出.xlsx' with the filters on screen.
  const exported = page.waitForEvent('download');
  await page.getByRole('button', { name: '导出' }).click();
  expect((await exported).suggestedFilename()).toBe('车辆滞留导出.xlsx');

  // 滞留统计: the second tab, counts per state, kind and gate and the daily chart (issue 24 item 6), and the full export.
  await page.getByRole('tab', { name: '滞留统计' }).click();
  await expect(page).toHaveURL(/\?tab=stat$/);
  const stats = page.getByTestId('stranded-stats');
  const total = stats.getByTestId('stat-total').locator('b');
  await expect(total).toHaveText(/^\d+$/);
  expect(Number(await total.textContent())).toBeGreaterThanOrEqual(2);
  for (const state of ['未处理', '误判', '判断准确']) await expect(stats.locator('.ss-tile', { hasText: state })).toBeVisible();
  await expect(stats.getByTestId('stat-state-1').locator('b')).not.toHaveText('0');
  await expect(stats.getByRole('region', { name: '按告警类型' })).toContainText('车辆·黑名单入园');
  await expect(stats.getByRole('region', { name: '按入园闸口' })).toContainText(device.name);
  await expect(stats.getByTestId('stranded-chart').locator('.recharts-bar-rectangle').first()).toBeVisible();
  await shot(page, 'stranded-car-stat');
  const statExport = page.waitForEvent('download');
  await stats.getByRole('button', { name: '导出' }).click();
  expect((await statExport).suggestedFilename()).toBe('车辆滞留导出.xlsx');

  // 人员滞留告警: name and time range, name and ID number in the rows; the detail opens with a double click and offers handling.
  await screen.open('/security/stranded-person');
  for (const head of ['姓名', '证件号码', '来访园区', '告警类型', '告警时间', '处理状态']) await expect(page.locator('.dtb thead th', { hasText: new RegExp(`^${head}$`) })).toHaveCount(1);
  await screen.showOnly('姓名', name);
  const person = screen.row(name);
  // ID numbers, like phones, are masked by the server unless revealed (docs/personal-data.md).
  await expect(person).toContainText(maskIdNumber(idcard));
  await expect(person).toContainText('黑名单入园');
  await shot(page, 'stranded-person-list');
  await screen.openDetail(person);
  const personDetail = modal(page);
  await expect(personDetail.getByText('人员滞留告警详情')).toBeVisible();
  await expect(personDetail.locator('.sd-section', { hasText: '告警信息' })).toContainText(maskIdNumber(idcard));
  await expect(personDetail.getByRole('heading', { name: '车辆信息' })).toHaveCount(0);
  await expect(personDetail.getByRole('heading', { name: '申请人信息' })).toHaveCount(0);
  await expect(personDetail.locator('.sd-item', { hasText: '入园闸口' })).toContainText(device.name);
  await expect(personDetail.getByRole('button', { name: '处理告警' })).toBeVisible();
  await shot(page, 'stranded-person-detail');
  expect(personAlarm).toMatchObject({ level_type: 3, handle_time: null });
});

test('an alarm shows a banner on whatever screen the lead is on; 查看 opens it and the banner goes; the home counts open alarms', async ({ page }) => {
  test.setTimeout(90_000);
  const plate = randomPlate();
  const [device] = await Promise.all([gate(), blackList('car', { license_plate: plate }, { license_plate: plate })]);
  const lead = await tokenOf('lead');
  // Earlier alarms' notifications are read, so the banner below is this alarm's.
  await call(lead, '/notifications/readAll', {});

  await signInAs(page, 'lead');
  const streaming = page.waitForResponse((r) => r.url().endsWith('/api/notifications/stream'), { timeout: 30_000 });
  await page.goto('/vehicles/marks');
  await streaming;
  await expect(page.getByTestId('alarm-banner')).toHaveCount(0);

  await enter(device, [{ type: 'vehicle', license_plate: plate, license_plate_color: 2 }]);
  const alarm = await alarmOf('car', { license_plate: plate });
  const banner = page.getByTestId('alarm-banner');
  await expect(banner).toBeVisible({ timeout: 15_000 });
  await expect(banner).toContainText('黑名单车辆入园');
  await expect(banner).toContainText(plate);
  await expect(banner).toContainText(device.name);
  // In the page's flow: below the title bar, above the screen, covering none of its controls.
  const bannerBox = (await banner.boundingBox())!;
  const mainBox = (await page.locator('main').first().boundingBox())!;
  expect(bannerBox.y + bannerBox.height).toBeLessThanOrEqual(mainBox.y + 1);
  await shot(page, 'alarm-banner');

  await banner.getByRole('button', { name: '查看', exact: true }).click();
  await expect(page).toHaveURL(/\/security\/stranded-car/);
  const detail = modal(page);
  await expect(detail.getByText('车辆滞留告警详情')).toBeVisible();
  await expect(detail.locator('.sd-section', { hasText: '告警信息' })).toContainText(plate);
  await expect(detail.getByRole('button', { name: '处理告警' })).toBeVisible();
  await expect(page.getByTestId('alarm-banner')).toHaveCount(0);
  await detail.getByRole('button', { name: '关闭' }).last().click();

  // The home lists the open alarms, counted, before the shortcuts.
  const open = await call<{ total: number }>(lead, '/stranded/open', undefined, 'GET');
  await page.goto('/');
  const alarms = page.getByTestId('open-alarms');
  await expect(page.getByTestId('open-alarms-total')).toHaveText(`共 ${open.total} 条`);
  await expect(alarms.locator('.oa-row').first()).toContainText(plate);
  await expect(alarms.locator('.oa-row').first()).toContainText(device.name);
  const menusTop = (await page.locator('.section-title', { hasText: '常用功能' }).boundingBox())?.y ?? Infinity;
  expect((await alarms.boundingBox())!.y).toBeLessThan(menusTop);
  await shot(page, 'home-open-alarms');
  await alarms.locator('.oa-row').first().click();
  await expect(modal(page).locator('.sd-section', { hasText: '告警信息' })).toContainText(plate);
  expect(alarm.handle_time).toBeNull();

  // The centre's kind filter, alarms first: the list entry's approval is not among the alarms.
  await page.goto('/notifications');
  const kinds = page.getByRole('radiogroup', { name: '消息类型' }).getByRole('radio');
  await expect(kinds).toHaveText(['全部类型', '告警', '偏离路线', '应急清点', '审批任务', '审批结果', '通知公告']);
  await kinds.filter({ hasText: '告警' }).click();
  const items = page.getByTestId('notification-item');
  await expect(items.filter({ hasText: plate }).first()).toContainText('黑名单车辆入园');
  for (const text of await items.allInnerTexts()) expect(text).toMatch(/告警|入园/);
  await shot(page, 'notifications-alarms');
  await kinds.filter({ hasText: '审批结果' }).click();
  await expect(items.first()).toBeVisible();
  expect((await items.allInnerTexts()).some((t) => t.includes('黑名单车辆入园'))).toBe(false);
});

test('滞留统计 at either size: counts per handling state, the daily chart and the breakdowns, for the chosen range', async ({ page }) => {
  await signInAs(page, 'lead');
  await page.goto('/security/stranded-car?tab=stat');
  const stats = page.getByTestId('stranded-stats');
  const total = stats.getByTestId('stat-total').locator('b');
  await expect(total).toHaveText(/^\d+$/);
  const states = await Promise.all([0, 1, 2].map(async (v) => Number(await stats.getByTestId(`stat-state-${v}`).locator('b').textContent())));
  expect(states.reduce((a, b) => a + b, 0)).toBe(Number(await total.textContent()));
  // The chart (loaded with this screen only): vehicles and persons per day of the default range.
  const chart = stats.getByTestId('stranded-chart');
  await expect(chart.locator('svg.recharts-surface').first()).toBeVisible();
  for (const kind of ['车辆', '人员']) await expect(chart.locator('.recharts-legend-item-text', { hasText: kind })).toBeVisible();
  for (const title of ['每日告警', '按告警类型', '按处理状态', '按入园闸口']) await expect(stats.getByRole('heading', { name: title })).toBeVisible();
  await shot(page, 'stranded-stat');
  // A range with no alarms counts none.
  await stats.getByLabel('告警时间开始').fill('2001-01-01');
  await stats.getByLabel('告警时间结束').fill('2001-01-02');
  await expect(total).toHaveText('0');
  await expect(stats.getByRole('region', { name: '按入园闸口' })).toContainText('暂无告警');
});

/** The demo's published route (西门—北门), which 中海壳牌's vehicle visitors follow during the route-deviation test. */
const SEEDED_ROUTE = '西门—北门危化品车辆路线';

test('a visit off its route raises one 偏离路线告警; the banner stays one line with two kinds counted, 查看 leads to handling it, 全部标为已查看 empties it', async ({ page }) => {
  test.setTimeout(120_000);
  // A demo visit under way for each size: a visit deviates once, and both sizes' runs share the server.
  const plate = isPhone(page) ? '粤LD5519' : '粤LF3362';
  const [admin, lead] = await Promise.all([tokenOf('admin'), tokenOf('lead')]);
  const bindings = await call<Array<{ depart_id: number; route_id: number; route_name: string }>>(admin, '/drivingRoute/depart/find', {});
  const route = bindings.find((b) => b.route_name === SEEDED_ROUTE)!;
  const bound = bindings.filter((b) => b.route_id === route.route_id).map((b) => b.depart_id);
  await call(admin, '/drivingRoute/depart/bind', { id: route.route_id, departIds: [...bound, await shellDepartment(admin)] });
  try {
    const black = randomPlate();
    // The test's own gate is not a point of the route.
    const [device] = await Promise.all([gate(), blackList('car', { license_plate: black }, { license_plate: black })]);
    await call(lead, '/notifications/readAll', {});
    await signInAs(page, 'lead');
    const streaming = page.waitForResponse((r) => r.url().endsWith('/api/notifications/stream'), { timeout: 30_000 });
    await page.goto('/vehicles/marks');
    await streaming;
    const banner = page.getByTestId('alarm-banner');
    await expect(banner).toHaveCount(0);

    // A stranded alarm, then the visit's vehicle comes in and leaves by the gate off its route: one alarm holding both crossings.
    await enter(device, [{ type: 'vehicle', license_plate: black, license_plate_color: 2 }]);
    await expect(banner).toContainText('黑名单车辆入园', { timeout: 15_000 });
    await enter(device, [{ type: 'vehicle', license_plate: plate, license_plate_color: 2, capture_time: formatInZone(Date.now() - 60_000) }]);
    await enter(device, [{ type: 'vehicle', license_plate: plate, license_plate_color: 2, direction: 2 }]);
    const { list } = await call<{ list: Array<{ id: number; crossings: unknown[]; handle_time: string | null }> }>(lead, '/car/routeDeviation/list', { size: 10, pn: 1, license_plate: plate });
    expect(list).toHaveLength(1);
    expect(list[0]!.crossings).toHaveLength(2);

    // Two kinds unread: each counted, the newest alarm's title after them, all on one line (on a phone no taller than 56 px).
    const counts = banner.getByTestId('alarm-banner-counts');
    await expect(counts).toContainText('滞留告警 1', { timeout: 15_000 });
    await expect(counts).toContainText('偏离路线 1');
    await expect(banner).toContainText('车辆偏离路线');
    const box = (await banner.boundingBox())!;
    if (isPhone(page)) expect(box.height).toBeLessThanOrEqual(56);
    const text = (await banner.locator('.alarm-banner-text').boundingBox())!;
    expect(text.height).toBeLessThanOrEqual(24);
    for (const name of ['查看', '全部标为已查看']) {
      const button = (await banner.getByRole('button', { name, exact: true }).boundingBox())!;
      expect(button.y).toBeGreaterThanOrEqual(box.y);
      expect(button.y + button.height).toBeLessThanOrEqual(box.y + box.height);
    }
    await shot(page, 'alarm-banner-two-kinds');

    // The home's 待处理告警 lists it, with the gate off the route and both crossings.
    await page.goto('/');
    const open = page.getByTestId('open-alarms').locator('.oa-row', { hasText: plate });
    // The home's calls may answer slower than the default wait on a loaded test machine.
    await expect(open).toContainText('车辆偏离路线', { timeout: 30_000 });
    await expect(open).toContainText(device.name);
    await expect(open).toContainText('共 2 次');

    // 查看 opens the newest alarm, the deviation, with 处理告警 at hand; the banner keeps the stranded alarm alone.
    await banner.getByRole('button', { name: '查看', exact: true }).click();
    await expect(page).toHaveURL(/\/security\/route-deviation/);
    const detail = modal(page);
    await expect(detail.getByText('偏离路线告警详情')).toBeVisible();
    await expect(detail.locator('.sd-item', { hasText: '行车路线' })).toContainText(SEEDED_ROUTE);
    await expect(detail.locator('.sd-item', { hasText: '偏离次数' })).toContainText('2 次');
    const crossings = detail.locator('.sd-section', { hasText: '偏离记录' }).locator('.sd-crossing');
    await expect(crossings).toHaveCount(2);
    await expect(crossings.nth(0)).toContainText(device.name);
    await expect(crossings.nth(0)).toContainText('入场');
    await expect(crossings.nth(1)).toContainText('出场');
    await expect(banner.getByTestId('alarm-banner-counts')).toHaveCount(0);
    await expect(banner).toContainText('黑名单车辆入园');
    await shot(page, 'route-deviation-detail');

    await detail.getByRole('button', { name: '处理告警' }).click();
    const form = modal(page);
    await expect(form).toContainText('共偏离 2 次');
    // The option as a finger taps it: the whole label (on a phone its tap margin covers the word).
    await form.locator('label.adm-radio', { hasText: /^否$/ }).click();
    await expect(form.locator('#sd-remark')).toHaveValue('判断准确！');
    await form.locator('#sd-remark').fill('判断准确！司机走错闸口，已引导按路线行驶');
    await form.getByRole('button', { name: '确定', exact: true }).click();
    // The list behind says so (the toast may have gone by the time a loaded machine looks).
    await expect(listScreen(page).row(plate)).toContainText('已处理');
    await shot(page, 'route-deviation-handled');
    const [handled] = (await call<{ list: Array<Record<string, unknown>> }>(lead, '/car/routeDeviation/list', { size: 10, pn: 1, license_plate: plate })).list;
    expect(handled).toMatchObject({ false_alarm: 0, handled_remark: '判断准确！司机走错闸口，已引导按路线行驶', handle_user_name: '赵敏' });

    // 全部标为已查看: the banner goes, on this screen and the next, and the server holds no unread alarm of either kind.
    await banner.getByRole('button', { name: '全部标为已查看' }).click();
    await expect(banner).toHaveCount(0);
    for (const kind of ['stranded_alarm', 'route_deviation']) {
      expect((await call<{ total: number }>(lead, '/notifications/page', { size: 1, pn: 1, unread: true, kind })).total, kind).toBe(0);
    }
    await page.goto('/notifications');
    await expect(page.getByTestId('notification-item').first()).toBeVisible({ timeout: 30_000 });
    await expect(banner).toHaveCount(0);
  } finally {
    await call(admin, '/drivingRoute/depart/bind', { id: route.route_id, departIds: bound });
  }
});
