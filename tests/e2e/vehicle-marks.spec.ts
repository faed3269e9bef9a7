import { expect, test, type Page } from '@playwright/test';
import { cameraJpeg } from '../../scripts/photo-fixture';
import { COMPRESS_MAX_BYTES, COMPRESS_MAX_SIDE, imageSize } from '../../src/lib/compress-core';
import { PNG, base, call, formField as field, isPhone, listScreen, randomPlate, shot, signInAs, storedOutbox, submitForm } from './support';

// This spec exercises the service worker, which the config blocks elsewhere.
test.use({ serviceWorkers: 'allow' });

/**
 * 车辆标记 (spec 001): the patrol, on a phone, adds a mark with a site photo
 * and cancels it with a reason and a rectification photo, once online and
 * once with no signal through the outbox; on a desktop the table renders with
 * its filters and the detail shows both kinds of photos.
 */

interface Mark {
  id: number;
  license_plate: string;
  status: number;
  photo: string;
  cancel_reason: string;
  cancel_photo: string;
}

const modal = (page: Page) => page.locator('.sm').last();
const png = (name: string) => ({ name, mimeType: 'image/png', buffer: PNG });
/** Tiles of a photo field whose upload is over (no compressing, uploading, waiting or failed stage). */
const uploaded = (scope: ReturnType<Page['locator']>) => scope.locator('.iu-tile:not([class*="iu-tile--"])');
const markOf = async (token: string, plate: string) => (await call<{ list: Mark[] }>(token, '/label/vehicle/list', { size: 10, pn: 1, license_plate: plate })).list[0]!;

test('a patrol adds a mark with a photo and cancels it with a reason and a rectification photo, online and offline', async ({ page, context }) => {
  // Skipped at one of the two sizes on purpose: each size checks its own half (reason below).
  test.skip(!isPhone(page), 'the patrol works on a phone; the desktop run checks the table below');
  test.setTimeout(120_000);
  const token = await signInAs(page, 'patrol');
  const plate = randomPlate();

  // From the workbench, as a patrol finds it.
  await page.goto('/workbench');
  await page.getByText('车辆标记', { exact: true }).click();
  await expect(page).toHaveURL(/\/vehicles\/marks$/);
  const list = listScreen(page);
  await expect(list.total()).toBeVisible();

  await page.getByRole('button', { name: /新增标记/ }).click();
  await field(page, '车牌号').locator('input').fill(plate);
  await field(page, '来访单位').locator('input').fill('惠州巡查测试物流有限公司');
  await field(page, '标记颜色').getByText('红色').click();
  await field(page, '标记类型').getByText('违规行为').click();
  await field(page, '报警方式').getByText('入园报警').click();
  await field(page, '标记原因').locator('textarea').first().fill('未按规定路线行驶');
  await field(page, '现场照片').locator('input[aria-label="拍照"]').setInputFiles(png('site.png'));
  await expect(uploaded(field(page, '现场照片'))).toHaveCount(1);
  await shot(page, 'vehicle-mark-form');
  await submitForm(page);
  await expect(page.getByText('创建成功！')).toBeVisible();
  await expect(list.row(plate)).toContainText('标记中');
  const made = await markOf(token, plate);
  expect(made.photo).toMatch(/\S/);

  await list.action(plate, '取消标记');
  await expect(modal(page).getByText(plate)).toBeVisible();
  // Issue 24 item 8: the way back says 返回, the action says what it does.
  await expect(modal(page).locator('.sm-btn')).toHaveText(['返回', '确认取消标记']);
  // Both rules of spec 001 §5 before anything is sent.
  await modal(page).getByRole('button', { name: '确认取消标记' }).click();
  await expect(modal(page).getByText('请输入取消理由')).toBeVisible();
  await expect(modal(page).getByText('请上传整改照片')).toBeVisible();
  await modal(page).getByLabel('取消理由').fill('已按规定整改');
  await modal(page).locator('input[aria-label="拍照"]').setInputFiles(png('fixed.png'));
  await expect(uploaded(modal(page))).toHaveCount(1);
  await shot(page, 'vehicle-mark-cancel');
  await modal(page).getByRole('button', { name: '确认取消标记' }).click();
  await expect(page.getByText('取消成功！')).toBeVisible();
  await expect(list.row(plate)).toContainText('已取消');
  await expect(page.getByText('取消成功！')).toHaveCount(0);
  // Cancelled: no edit or cancel left on the row.
  const cancelled = await markOf(token, plate);
  expect(cancelled).toMatchObject({ status: 2, cancel_reason: '已按规定整改' });
  expect(cancelled.cancel_photo).toMatch(/\S/);

  await list.openDetail(plate);
  const detail = modal(page);
  await expect(detail.getByText('已按规定整改')).toBeVisible();
  await expect(detail.locator('.dv-row', { hasText: '现场照片' }).locator('.iu-tile')).toHaveCount(1);
  await expect(detail.locator('.dv-row', { hasText: '整改照片' }).locator('.iu-tile')).toHaveCount(1);
  await shot(page, 'vehicle-mark-detail');
  await detail.getByRole('button', { name: '关闭' }).click();
  await expect(page.locator('.sm')).toHaveCount(0);
  await shot(page, 'vehicle-marks');

  // No signal: the cancel waits in the outbox with its photo and is sent once when the signal returns.
  const offlinePlate = randomPlate();
  await call(token, '/label/vehicle/save', { license_plate: offlinePlate, color_id: 2, label_type_id: 1, alarm_id: 3, remark: '车辆滞留' });
  await page.reload();
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  if (!(await page.evaluate(() => !!navigator.serviceWorker.controller))) await page.reload();
  await expect.poll(() => page.evaluate(() => !!navigator.serviceWorker.controller)).toBe(true);
  await expect(list.row(offlinePlate)).toContainText('标记中');

  await context.setOffline(true);
  await list.action(offlinePlate, '取消标记');
  await modal(page).getByLabel('取消理由').fill('现场已整改（离线）');
  await modal(page).locator('input[aria-label="拍照"]').setInputFiles(png('offline.png'));
  await expect(modal(page).locator('.iu-wait')).toHaveCount(1);
  await modal(page).getByRole('button', { name: '确认取消标记' }).click();
  await expect(page.getByText('当前无网络，取消已保存，联网后自动发送')).toBeVisible();
  const queued = await storedOutbox<{ kind: string; url: string; state: string; body: Record<string, unknown>; photos?: Record<string, number[]> }>(page);
  // The online cancel went the same way and is kept as sent; this one waits.
  const item = queued.find((i) => i.kind === 'markCancel' && i.state !== 'done');
  expect(item).toMatchObject({ url: '/label/vehicle/cancel', state: 'pending', body: { cancel_reason: '现场已整改（离线）', cancel_photo: '' } });
  expect(item!.photos?.cancel_photo).toHaveLength(1);
  expect((await markOf(token, offlinePlate)).status).toBe(1);

  await context.setOffline(false);
  await expect.poll(async () => (await markOf(token, offlinePlate)).status, { timeout: 30_000 }).toBe(2);
  const sent = await markOf(token, offlinePlate);
  expect(sent.cancel_reason).toBe('现场已整改（离线）');
  expect(sent.cancel_photo.split(';')).toHaveLength(1);
  await expect(list.row(offlinePlate)).toContainText('已取消');
});

test('the marks table renders its filters and columns, and the detail shows the photos', async ({ page }) => {
  // Skipped at one of the two sizes on purpose: each size checks its own half (reason below).
  test.skip(isPhone(page), 'the phone run is the patrol above');
  const token = await signInAs(page, 'lead');
  const list = listScreen(page);
  await list.open('/vehicles/marks');
  for (const label of ['车牌号', '来访单位', '状态', '标记颜色', '标记类型', '报警方式']) await expect(page.locator('.ff-label', { hasText: new RegExp(`^${label}$`) })).toBeVisible();
  for (const head of ['车牌号', '来访单位', '标记颜色', '标记类型', '报警方式', '状态', '标记原因', '现场照片', '标记人', '创建时间']) {
    await expect(page.locator('.dtb thead').getByText(head, { exact: true })).toBeVisible();
  }
  // The demo seed's flags from the all-history screen are listed here.
  await expect(list.rows().first()).toBeVisible();
  const seeded = (await call<{ list: Array<Mark & { application_number: string | null }> }>(token, '/label/vehicle/list', { size: 10, pn: 1 })).list.find((m) => m.application_number);
  expect(seeded, 'a seeded flag of an appointment').toBeTruthy();
  await shot(page, 'vehicle-marks');

  await page
    .locator('.ff-item', { has: page.locator('.ff-label', { hasText: /^车牌号$/ }) })
    .locator('input')
    .fill(seeded!.license_plate);
  await page.locator('.ff').getByRole('button', { name: '查询' }).click();
  await list.openDetail(list.row(String(seeded!.license_plate)).first());
  const detail = modal(page);
  await expect(detail.getByText(seeded!.application_number!)).toBeVisible();
  await expect(detail.locator('.dv-row', { hasText: '现场照片' }).locator('.iu-tile')).toHaveCount(seeded!.photo.split(';').filter(Boolean).length);
  await shot(page, 'vehicle-mark-detail');
});

test('确定 pressed while a camera photo is still compressing waits for it, with progress on the tile, and saves it', async ({ page }) => {
  test.setTimeout(90_000);
  const token = await signInAs(page, 'patrol');
  const plate = randomPlate();
  const list = listScreen(page);
  await list.open('/vehicles/marks');
  const photo = await cameraJpeg(page, 4000, 3000);

  await page.getByRole('button', { name: /新增标记/ }).click();
  await field(page, '车牌号').locator('input').fill(plate);
  await field(page, '来访单位').locator('input').fill('惠州照片测试物流有限公司');
  await field(page, '标记颜色').getByText('红色').click();
  await field(page, '标记类型').getByText('违规行为').click();
  await field(page, '报警方式').getByText('入园报警').click();
  await field(page, '标记原因').locator('textarea').first().fill('照片压缩中提交');

  // The upload is held until the form has been seen waiting, so the wait is certain, not a race.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route('**/api/file/upload', async (route) => {
    await held;
    await route.continue();
  });
  // Every text the tile shows, however briefly (compression of one photo takes well under a second here).
  await page.evaluate(() => {
    const seen: string[] = ((window as unknown as { tileTexts: string[] }).tileTexts = []);
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('.iu-percent')) if (seen.at(-1) !== el.textContent) seen.push(el.textContent ?? '');
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  // A file that is not an image is named, not taken.
  await field(page, '现场照片')
    .locator('input[type="file"]')
    .last()
    .setInputFiles({ name: '整改说明.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4') });
  await expect(page.getByText('「整改说明.pdf」不是图片，请选择图片文件')).toBeVisible();
  await expect(field(page, '现场照片').locator('.iu-tile')).toHaveCount(0);
  await field(page, '现场照片').locator('input[type="file"]').last().setInputFiles({ name: 'IMG_4000.jpg', mimeType: 'image/jpeg', buffer: photo });
  await submitForm(page);
  await expect(page.getByRole('button', { name: /照片处理中/ })).toBeVisible();
  await expect(field(page, '现场照片').getByRole('progressbar')).toBeVisible();
  await shot(page, 'vehicle-mark-photo-waiting');
  release();
  await expect(page.getByText('创建成功！')).toBeVisible();
  await expect(page.getByText('有照片尚未上传，请联网后重试')).toHaveCount(0);
  const texts = await page.evaluate(() => (window as unknown as { tileTexts: string[] }).tileTexts);
  expect(
    texts.some((t) => /^压缩中 \d+%$/.test(t)),
    texts.join(' | '),
  ).toBe(true);
  expect(
    texts.some((t) => /^上传 \d+%$/.test(t)),
    texts.join(' | '),
  ).toBe(true);
  const made = await markOf(token, plate);
  expect(made.photo.split(';').filter(Boolean)).toHaveLength(1);
  // Compressed before it was sent: a 12-megapixel photo arrives at most 1600 px wide and about half a megabyte.
  const res = await fetch(`${base}/api/file/${made.photo}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  const bytes = new Uint8Array(await res.arrayBuffer());
  expect(bytes.length).toBeLessThanOrEqual(COMPRESS_MAX_BYTES);
  expect(imageSize(bytes)).toEqual({ width: COMPRESS_MAX_SIDE, height: 1200 });
});
