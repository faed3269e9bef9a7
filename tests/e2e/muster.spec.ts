import { expect, test, type Page } from '@playwright/test';
import { formatInZone } from '../../domain/time';
import { maskIdNumber } from '../../domain/personal-data';
import { base, call, idNumber, isPhone, randomPlate, shot, signInAs, storedOutbox } from './support';

/**
 * 应急清点 (docs/muster.md): the lead starts a drill; the people inside come
 * only from crossings sent through the device API. A patrol's phone marks
 * one person from the list online and one by ID number while offline (kept
 * in the outbox, sent once the network returns); the lead's board counts
 * both within seconds, and the report lists the timeline and who was left.
 */

interface Board {
  muster: { id: number; total: number; accounted: number } | null;
}

/** A gate of this test's own, with its key: no other spec's gate key is replaced. */
async function ownGate(admin: string, name: string): Promise<{ number: string; key: string }> {
  const number = `MUSTER-${name}-${Date.now() % 100000}`;
  await call(admin, '/equipment/gate/save', { name: `应急测试闸${name}`, number, type: 1, entrances_type: 1, is_security_check: 0, temporary_reservation: 0, longitude: 114.6, latitude: 22.7 });
  const page = await call<{ list: Array<{ id: number; number: string }> }>(admin, '/equipment/gate/list', { pn: 1, size: 10, number });
  const { key } = await call<{ key: string }>(admin, '/equipment/gate/issueKey', { id: page.list[0]!.id });
  return { number, key };
}

async function enter(gate: { number: string; key: string }, events: Array<Record<string, unknown>>) {
  const res = await fetch(`${base}/api/device/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Device ${gate.number}:${gate.key}` },
    body: JSON.stringify({ events }),
  });
  expect(res.status).toBe(200);
}

async function endAny(lead: string) {
  const board = await call<Board>(lead, '/muster/current', undefined, 'GET');
  if (board.muster) await call(lead, '/muster/end', { muster_id: board.muster.id });
}

const listRow = (page: Page, text: string) => page.getByTestId('muster-list').locator('li', { hasText: text });

test('a drill: the lead starts it, a patrol phone marks two people (one offline), the board counts them, the report lists the rest', async ({ page, browser }, info) => {
  test.setTimeout(120_000);
  const size = isPhone(page) ? 'P' : 'D';
  const admin = await signInAs(page, 'admin');
  const lead = await signInAs(page, 'lead');
  await endAny(lead);

  // Four people and a vehicle come in through the gate with no visit on record (the gate opened for them).
  const born = size === 'P' ? '19850301' : '19850302';
  const [first, second, left] = [1, 2, 3].map((n) => idNumber(n, born)) as [string, string, string];
  const gate = await ownGate(admin, size);
  const plate = randomPlate();
  const at = formatInZone(new Date(Date.now() - 60_000));
  const stamp = Date.now();
  await enter(gate, [
    ...[first, second, left].map((idcard, i) => ({ event_id: `muster-${size}-${stamp}-${i}`, type: 'person', capture_time: at, idcard, direction: 1, open_result: 1 })),
    { event_id: `muster-${size}-${stamp}-c`, type: 'vehicle', capture_time: at, license_plate: plate, direction: 1, open_result: 1 },
  ]);

  // The lead starts a drill from the screen.
  await page.goto('/security/muster');
  await page.getByRole('radio', { name: '化工区和港区' }).click();
  await page.getByRole('switch', { name: '演练' }).click();
  await page.locator('#mu-message').fill('东区泄漏演练，请前往2号集合点');
  await page.getByRole('button', { name: '发起演练' }).click();
  await page.getByRole('dialog').getByRole('button', { name: '发起' }).click();
  const board = page.getByTestId('muster-board');
  await expect(board).toContainText('应急演练进行中');
  const started = await call<Board>(lead, '/muster/current', undefined, 'GET');
  const total = started.muster!.total;
  expect(total).toBeGreaterThanOrEqual(4);
  await expect(page.getByTestId('muster-total')).toHaveText(String(total));
  await shot(page, 'muster-lead-started');

  // A patrol's phone (phone size in the field whatever this project's size): the list, one mark online.
  const patrolContext = await browser.newContext({ viewport: { width: 390, height: 844 }, baseURL: base, serviceWorkers: 'block' });
  const phone = await patrolContext.newPage();
  await signInAs(phone, 'patrol');
  await phone.goto('/security/muster');
  await phone.locator('#mu-place').fill('2号集合点');
  await listRow(phone, maskIdNumber(first)).getByRole('button', { name: '标记到达' }).click();
  await expect(listRow(phone, maskIdNumber(first))).toHaveCount(0);

  // The lead's board counts it within seconds, over the notification stream.
  await expect(page.getByTestId('muster-accounted')).toHaveText(String(started.muster!.accounted + 1), { timeout: 5_000 });

  // Offline: typed ID number, kept in the outbox, the list shows it marked at once.
  await patrolContext.setOffline(true);
  await phone.getByRole('tab', { name: '证件号码' }).click();
  await phone.getByRole('textbox', { name: '证件号码' }).fill(second);
  await phone.getByRole('button', { name: '标记到达' }).click();
  await expect(phone.getByText('当前无网络，标记已保存，联网后自动发送')).toBeVisible();
  const waiting = await storedOutbox<{ kind: string; state: string }>(phone);
  expect(waiting.filter((i) => i.kind === 'musterMark' && i.state !== 'done')).toHaveLength(1);
  await phone.screenshot({ path: `.tmp/shots/muster-patrol-offline-${info.project.name}.png` });
  await expect(page.getByTestId('muster-accounted')).toHaveText(String(started.muster!.accounted + 1));

  // Back online: sent once, counted once.
  await patrolContext.setOffline(false);
  await expect(page.getByTestId('muster-accounted')).toHaveText(String(started.muster!.accounted + 2), { timeout: 15_000 });
  await expect.poll(async () => (await storedOutbox<{ kind: string; state: string }>(phone)).filter((i) => i.kind === 'musterMark' && i.state !== 'done').length).toBe(0);
  await patrolContext.close();
  await shot(page, 'muster-lead-board');

  // The end, and the report: the timeline with both marks, the rest unaccounted.
  await page.getByRole('button', { name: '结束清点' }).click();
  await page.getByRole('dialog').getByRole('button', { name: '结束清点' }).click();
  const report = page.getByTestId('muster-report');
  await expect(report).toContainText('应急演练报告');
  await expect(page.getByTestId('report-result')).toContainText(`已清点 ${started.muster!.accounted + 2}`);
  await expect(report.locator('tbody tr', { hasText: '2号集合点' })).toHaveCount(2);
  await expect(page.getByTestId('report-unaccounted')).toContainText(maskIdNumber(left));
  await expect(page.getByTestId('report-unaccounted')).toContainText(plate);
  await shot(page, 'muster-report');
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: '导出' }).click();
  expect((await download).suggestedFilename()).toMatch(/^应急演练报告.*\.xlsx$/);
  await endAny(lead);
});
