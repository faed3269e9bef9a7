import { expect, test, type Page } from '@playwright/test';
import { formatInZone } from '../../domain/time';
import { dateOf } from '../../domain/visit-rules';
import { E2E_DATA_DIR } from '../../playwright.config';
import { signInViaApi } from '../../scripts/demo-login';
import { DEMO_PASSWORD, PNG, base, call, idNumber, isPhone, listScreen, randomPlate, shot, signInAs } from './support';
import { maskIdNumber } from '../../domain/personal-data';

/**
 * 车辆过闸记录 and 人员过闸记录 (spec 001 §2): a crossing fed through the
 * device API (DESIGN.md §8) by a gate the test adds and keys with the
 * admin's token shows in both lists: desktop tables with every filter and
 * column, and the vehicle list's cards on a phone.
 */

interface Fed {
  gate: string;
  plate: string;
  person: string;
  idcard: string;
}

/** A gate of the test's own with a fresh key, one vehicle and one person crossing of now, with a plate image and a snapshot. */
async function feedCrossings(): Promise<Fed> {
  const admin = await signInViaApi(base, E2E_DATA_DIR, 'admin', DEMO_PASSWORD);
  const tag = Math.random().toString(36).slice(2, 7).toUpperCase();
  const gate = { name: `过闸测试道闸${tag}`, number: `E2E-GR-${tag}` };
  const { id } = await call<{ id: number }>(admin, '/equipment/gate/save', { ...gate, type: 1, entrances_type: 1, is_security_check: 0, temporary_reservation: 0, longitude: 114.5, latitude: 22.7 });
  const { key } = await call<{ key: string }>(admin, '/equipment/gate/issueKey', { id });
  const authorization = `Device ${gate.number}:${key}`;
  const image = async () => {
    const form = new FormData();
    form.append('file', new Blob([PNG], { type: 'image/png' }), 'shot.png');
    const res = await fetch(`${base}/api/device/files`, { method: 'POST', body: form, headers: { authorization } });
    return ((await res.json()) as { data: { name: string } }).data.name;
  };
  const fed: Fed = { gate: gate.name, plate: randomPlate(), person: `过闸测试${tag}`, idcard: idNumber(Math.floor(Math.random() * 900)) };
  const now = formatInZone(Date.now());
  const res = await fetch(`${base}/api/device/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: JSON.stringify({
      events: [
        {
          event_id: `v-${tag}`,
          type: 'vehicle',
          capture_time: now,
          license_plate: fed.plate,
          license_plate_color: 2,
          direction: 1,
          open_result: 1,
          plate_image: await image(),
          vehicle_image: await image(),
          vehicle_brand: '比亚迪',
          vehicle_type: '小型轿车',
          vehicle_color: 8,
          vehicle_compare_result: 1,
          face_compare_result: 1,
        },
        {
          event_id: `p-${tag}`,
          type: 'person',
          capture_time: now,
          idcard: fed.idcard,
          person_name: fed.person,
          card_number: `C${tag}`,
          card_status: 1,
          image_type: 1,
          direction: 2,
          open_result: 0,
          snapshot: await image(),
        },
      ],
    }),
  });
  expect(((await res.json()) as { data: { accepted: number } }).data.accepted).toBe(2);
  return fed;
}

const filterLabel = (page: Page, label: string) => page.locator('.ff-label', { hasText: new RegExp(`^${label}$`) });
const head = (page: Page, label: string) => page.locator('.dtb thead').getByText(label, { exact: true });

test('both records tables render with a crossing fed through the device API', async ({ page }) => {
  // Skipped at one of the two sizes on purpose: each size checks its own layout (reason below).
  test.skip(isPhone(page), 'the phone run checks the vehicle cards below');
  const fed = await feedCrossings();
  await signInAs(page, 'auditor');
  const list = listScreen(page);
  const today = dateOf(formatInZone(Date.now()));

  await list.open('/security/vehicle-gate-records');
  for (const label of ['车牌号', '车身颜色', '进出方向', '闸机', '开闸结果', '日期']) await expect(filterLabel(page, label)).toBeVisible();
  for (const label of ['车牌号', '车牌图片', '车辆品牌', '车辆类型', '车身颜色', '进出方向', '设备名称', '开闸结果', '车辆比对结果', '人脸比对结果', '抓拍时间'])
    await expect(head(page, label)).toBeVisible();
  // The date starts at today in park time.
  await expect(page.getByLabel('日期', { exact: true })).toHaveValue(today);
  // The gate filter offers the park's vehicle barriers, never a pedestrian gate (seeded 西门人行闸机1); choosing the test's gate leaves its one crossing.
  const gateFilter = page.getByLabel('闸机', { exact: true });
  await expect(gateFilter.locator('option', { hasText: '西门车辆道闸1' })).toHaveCount(1);
  await expect(gateFilter.locator('option', { hasText: '人行闸机' })).toHaveCount(0);
  await gateFilter.selectOption({ label: fed.gate });
  await page.locator('.ff').getByRole('button', { name: '查询' }).click();
  await expect(list.total(1)).toBeVisible();
  const row = list.row(fed.plate);
  for (const text of [fed.gate, '比亚迪', '小型轿车', '蓝色', '入场', '开闸', '一致', '1张']) await expect(row).toContainText(text);
  await shot(page, 'vehicle-gate-records');
  // A desktop row's detail opens by its 详情 button.
  await list.openDetail(row, 'button');
  const detail = page.locator('.sm').last();
  await expect(detail.locator('.dv-row', { hasText: '车牌图片' }).locator('.iu-tile')).toHaveCount(1);
  await expect(detail.locator('.dv-row', { hasText: '车辆图片' }).locator('.iu-tile')).toHaveCount(1);
  // The device's image loads for the records' reader (access.ts: the list's code reads the records' files).
  const thumb = detail.locator('.dv-row', { hasText: '车牌图片' }).locator('.iu-tile img');
  await expect.poll(() => thumb.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0))).toBeGreaterThan(0);
  await shot(page, 'vehicle-gate-record-detail');
  // The image viewer closes by its × (关闭), a desktop user's only visible way out.
  await detail.locator('.dv-row', { hasText: '车牌图片' }).locator('.iu-thumb').click();
  const viewer = page.locator('.adm-image-viewer-content');
  await expect(viewer).toBeVisible();
  await shot(page, 'vehicle-gate-record-image');
  await page.locator('.iu-viewer-close').click();
  await expect(viewer).toBeHidden();
  await detail.locator('footer').getByRole('button', { name: '关闭' }).click();

  await list.open('/security/person-gate-records');
  for (const label of ['证件号码', '姓名', '开闸结果', '日期']) await expect(filterLabel(page, label)).toBeVisible();
  for (const label of ['日期', '姓名', '证件号码', '图片类型', '卡状态', '卡号', '进出方向', '设备名称', '开闸结果', '抓拍图片', '抓拍时间']) await expect(head(page, label)).toBeVisible();
  await expect(page.getByLabel('日期开始')).toHaveValue(today);
  await expect(page.getByLabel('日期结束')).toHaveValue(today);
  // The auditor filters by the whole number and reads it masked (decided on the server).
  const masked = maskIdNumber(fed.idcard);
  await list.showOnly('证件号码', fed.idcard);
  for (const text of [today, fed.person, masked, '人脸抓拍', '正常', '出场', fed.gate, '未开闸', '1张']) await expect(list.row(fed.person)).toContainText(text);
  await expect(page.locator('.dtb tbody')).not.toContainText(fed.idcard);
  await list.openDetail(list.row(fed.person), 'button');
  const personDetail = page.locator('.sm').last();
  await expect(personDetail.locator('.dv-row', { hasText: '证件号码' })).toContainText(masked);
  await shot(page, 'person-gate-records');
  await personDetail.locator('footer').getByRole('button', { name: '关闭' }).click();
});

test('the vehicle records list shows cards on a phone', async ({ page }) => {
  // Skipped at one of the two sizes on purpose: each size checks its own layout (reason below).
  test.skip(!isPhone(page), 'the desktop run checks the tables above');
  const fed = await feedCrossings();
  await signInAs(page, 'patrol');
  const list = listScreen(page);
  await list.open('/security/vehicle-gate-records');
  await expect(list.rows().first()).toBeVisible();
  await expect(page.locator('.cl-card').first()).toBeVisible();
  await shot(page, 'vehicle-gate-records');
  await list.showOnly('车牌号', fed.plate);
  const card = list.row(fed.plate);
  await expect(card).toHaveCount(1);
  for (const text of ['入场', fed.gate, '开闸']) await expect(card).toContainText(text);
  await shot(page, 'vehicle-gate-record-card');
  // The card's detail, and its image viewer's × (关闭).
  await list.openDetail(card);
  const detail = page.locator('.sm').last();
  await detail.locator('.dv-row', { hasText: '车牌图片' }).locator('.iu-thumb').click();
  const viewer = page.locator('.adm-image-viewer-content');
  await expect(viewer).toBeVisible();
  await expect(page.locator('.iu-viewer-close')).toBeVisible();
  await shot(page, 'vehicle-gate-record-image');
  await page.locator('.iu-viewer-close').click();
  await expect(viewer).toBeHidden();
});

test('the patrol reads person crossings with the ID number masked', async ({ page }) => {
  const fed = await feedCrossings();
  await signInAs(page, 'patrol');
  const list = listScreen(page);
  await list.open('/security/person-gate-records');
  await list.showOnly('证件号码', fed.idcard);
  const row = list.row(fed.person);
  await expect(row).toContainText(maskIdNumber(fed.idcard));
  await expect(row).not.toContainText(fed.idcard);
  await list.openDetail(row);
  const detail = page.locator('.sm').last();
  await expect(detail.locator('.dv-row', { hasText: '证件号码' })).toContainText(maskIdNumber(fed.idcard));
  // Without pii:view there is nothing to reveal.
  await expect(detail.getByRole('button', { name: /^查看完整的/ })).toHaveCount(0);
  await shot(page, 'person-gate-record-masked');
});

test('an administrator reveals a masked ID number with a reason; the patrol has no such button', async ({ page }) => {
  const fed = await feedCrossings();
  await signInAs(page, 'admin');
  const list = listScreen(page);
  await list.open('/security/person-gate-records');
  await list.showOnly('证件号码', fed.idcard);
  await list.openDetail(list.row(fed.person), isPhone(page) ? undefined : 'button');
  const detail = page.locator('.sm').last();
  const line = detail.locator('.dv-row', { hasText: '证件号码' });
  await expect(line).toContainText(maskIdNumber(fed.idcard));
  await line.getByRole('button', { name: '查看完整的证件号码' }).click();
  const ask = page.locator('.sm').last();
  await expect(ask).toContainText('查看将记入操作日志');
  // No reason: refused in the form, naming the field.
  await page.getByRole('button', { name: '确定' }).last().click();
  await expect(ask).toContainText('请填写查看原因');
  await ask.getByLabel('查看原因').fill('核对过闸人员身份');
  await shot(page, 'reveal-reason');
  await page.getByRole('button', { name: '确定' }).last().click();
  await expect(line).toContainText(fed.idcard);
  await shot(page, 'reveal-done');
});
