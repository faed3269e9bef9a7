import { expect, test, type Browser, type Page } from '@playwright/test';
import { PNG, base, call, isPhone, listScreen, shot, signInAs, storedOutbox } from './support';

// This spec exercises the service worker, which the config blocks elsewhere.
test.use({ serviceWorkers: 'allow' });

/**
 * Issue 4's patrol: no signal, a vehicle flagged with three camera photos; the
 * flag waits in the outbox with its photos as Blobs and is sent exactly once
 * when the signal returns. Phone size for the offline run; the desktop run
 * flags online through the same outbox, with the upload throttled to show progress.
 */

interface CarRow {
  car_application_id: number;
  application_number: string;
  license_plate: string;
  label_status: number;
}
interface Mark {
  id: number;
  car_application_id: number;
  remark: string;
  photo: string | null;
}

const modal = (page: Page) => page.locator('.sm').last();

/** Photos as a phone camera makes them: JPEGs larger than the compression target, each drawn differently. */
async function cameraPhotos(browser: Browser, count: number, width = 2400, height = 1800): Promise<Array<{ name: string; mimeType: string; buffer: Buffer }>> {
  const page = await browser.newPage();
  try {
    const encoded = await page.evaluate(
      ({ count, width, height }) =>
        Promise.all(
          Array.from({ length: count }, (_, n) => {
            const c = document.createElement('canvas');
            c.width = width;
            c.height = height;
            const g = c.getContext('2d')!;
            const grad = g.createLinearGradient(0, 0, width, height);
            grad.addColorStop(0, ['#2f6fdd', '#d9480f', '#2b8a3e'][n % 3]!);
            grad.addColorStop(1, '#f8f9fa');
            g.fillStyle = grad;
            g.fillRect(0, 0, width, height);
            // Fine detail so the JPEG is camera-sized, not a few KB.
            const img = g.getImageData(0, 0, width, height);
            let seed = 7 + n;
            for (let i = 0; i < img.data.length; i += 4) {
              seed = (seed * 1103515245 + 12345) & 0x7fffffff;
              const d = (seed % 64) - 32;
              img.data[i] += d;
              img.data[i + 1] += d;
              img.data[i + 2] += d;
            }
            g.putImageData(img, 0, 0);
            g.fillStyle = '#fff';
            g.font = 'bold 160px sans-serif';
            g.fillText(`现场照片 ${n + 1}`, 120, 300);
            return new Promise<string>((resolve) =>
              c.toBlob((b) => void b!.arrayBuffer().then((a) => resolve(Array.from(new Uint8Array(a), (x) => x.toString(16).padStart(2, '0')).join(''))), 'image/jpeg', 0.95),
            );
          }),
        ),
      { count, width, height },
    );
    return encoded.map((hex, i) => ({ name: `IMG_20260301_${String(i + 1).padStart(4, '0')}.jpg`, mimeType: 'image/jpeg', buffer: Buffer.from(hex, 'hex') }));
  } finally {
    await page.close();
  }
}

/** Width and height from a JPEG's start-of-frame marker. */
function jpegSize(buf: Buffer): { width: number; height: number } {
  let i = 2;
  while (i < buf.length) {
    if (buf[i] !== 0xff) throw new Error('not a JPEG marker');
    const marker = buf[i + 1]!;
    const len = buf.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return { height: buf.readUInt16BE(i + 5), width: buf.readUInt16BE(i + 7) };
    i += 2 + len;
  }
  throw new Error('no frame header');
}

async function unflaggedVehicles(token: string): Promise<CarRow[]> {
  const { list } = await call<{ list: CarRow[] }>(token, '/carApplications/all/history/list', { size: 100, pn: 1 });
  return list.filter((r) => r.label_status !== 1);
}

const marksOf = (token: string, id: number) => call<Mark[]>(token, '/label/vehicle/queryRemark', { car_application_ids: String(id) });

async function openFlag(page: Page) {
  const screen = listScreen(page);
  await screen.action(screen.rows().first(), '标记');
  await expect(modal(page).getByText('现场照片')).toBeVisible();
}

/** The stored file's bytes, read as the app reads them (with a file access token). */
async function storedFile(token: string, name: string): Promise<Buffer> {
  const { access } = await call<{ access: string }>(token, '/file/accessToken', {});
  const res = await fetch(`${base}/api/file/${encodeURIComponent(name)}?access=${encodeURIComponent(access)}`);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

async function serviceWorkerInCharge(page: Page) {
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  // The first visit installs the worker; the shell must come from it before the network goes.
  if (!(await page.evaluate(() => !!navigator.serviceWorker.controller))) {
    await page.reload();
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  }
  await expect.poll(() => page.evaluate(() => !!navigator.serviceWorker.controller)).toBe(true);
}

test('a patrol with no signal flags a vehicle with three photos; it is sent once when the signal returns', async ({ page, context, browser }) => {
  // Skipped on desktop on purpose: the issue asks for the offline flag at phone size (a patrol in the field), and the
  // desktop run covers the same modal online in the next test.
  // Skipped at desktop size on purpose: going offline is the phone's case; the desktop flags online in the next test.
  test.skip(!isPhone(page), 'the offline run is the phone one; the desktop run flags online below');
  // Drawing camera-sized photos and compressing them takes a while on two shared cores.
  test.setTimeout(120_000);
  const token = await signInAs(page, 'squad');
  const target = (await unflaggedVehicles(token))[0];
  expect(target, 'the demo seed has an unflagged vehicle').toBeTruthy();
  const remark = `e2e离线标记 ${Date.now()}`;
  const photos = await cameraPhotos(browser, 3);
  for (const p of photos) expect(p.buffer.length).toBeGreaterThan(600 * 1024);

  const screen = listScreen(page);
  await screen.open('/appointments/car-all-history');
  await serviceWorkerInCharge(page);
  await screen.showOnly('预约单号', target!.application_number);

  await context.setOffline(true);
  await openFlag(page);
  await expect(modal(page).getByText(target!.license_plate)).toBeVisible();
  await modal(page).getByLabel('标记原因').fill(remark);
  await modal(page).locator('input[type=file][multiple]').setInputFiles(photos);

  // Thumbnails at once from the device, each marked as waiting for the network.
  const tiles = modal(page).locator('.iu-tile');
  await expect(tiles).toHaveCount(3);
  await expect(modal(page).locator('.iu-wait')).toHaveCount(3);
  await expect(modal(page).getByText('3张照片待上传，联网后自动上传')).toBeVisible();
  for (const img of await tiles.locator('img').all()) await expect(img).toHaveJSProperty('complete', true);
  await shot(page, 'flag-offline-photos');

  await modal(page).getByRole('button', { name: '标记', exact: true }).click();
  await expect(page.getByText('当前无网络，标记已保存，联网后自动发送')).toBeVisible();
  await expect(page.getByText('标记成功')).toHaveCount(0);
  await expect(page.locator('.sm')).toHaveCount(0);

  // Waiting, not done: the app says one action waits, the outbox lists it, and the server has nothing yet.
  const badge = page.getByTestId('outbox-badge').first();
  await expect(badge).toHaveAttribute('aria-label', /待发送 1 项/);
  await badge.click();
  await expect(page.getByText(`标记 ${target!.license_plate}`)).toBeVisible();
  expect((await marksOf(token, target!.car_application_id)).filter((m) => m.remark === remark)).toHaveLength(0);
  await shot(page, 'flag-offline-outbox');

  // A reload with no signal: the shell opens from the worker and the flag is still queued, its three photos kept as Blobs.
  await page.reload();
  await expect(page.getByText(`标记 ${target!.license_plate}`)).toBeVisible();
  await expect(badge).toHaveAttribute('aria-label', /待发送 1 项/);
  const kept = (await storedOutbox<{ kind: string; state: string; photos?: Record<string, number[]> }>(page))
    .filter((i) => i.kind === 'flag' && i.state !== 'done')
    .map((i) => {
      const sizes = Object.values(i.photos ?? {}).flat();
      return { state: i.state, blobs: sizes.length, bytes: sizes.reduce((n, b) => n + b, 0) };
    });
  expect(kept).toHaveLength(1);
  expect(kept[0]).toMatchObject({ state: 'pending', blobs: 3 });
  expect(kept[0]!.bytes).toBeGreaterThan(0);

  // Back on the list, still offline (the worker's copy of the filtered read): when the signal returns and the flag
  // lands, the open list shows the vehicle red without a reload or waiting for its 60 s refresh.
  await page.goBack();
  await screen.showOnly('预约单号', target!.application_number);
  const row = screen.rows().first();
  await expect(row).toContainText(target!.license_plate);
  await expect(row).not.toHaveClass(/ah-flagged/);

  await context.setOffline(false);
  await expect(badge).toHaveAttribute('aria-label', '待发送：无', { timeout: 30_000 });
  await expect(row).toHaveClass(/ah-flagged/, { timeout: 15_000 });
  await expect.poll(async () => (await marksOf(token, target!.car_application_id)).filter((m) => m.remark === remark).length, { timeout: 30_000 }).toBe(1);
  // Give a duplicate every chance to show up: there is none.
  await page.waitForTimeout(1500);
  const marks = (await marksOf(token, target!.car_application_id)).filter((m) => m.remark === remark);
  expect(marks).toHaveLength(1);
  const names = (marks[0]!.photo ?? '').split(';').filter(Boolean);
  expect(names).toHaveLength(3);
  expect(new Set(names).size).toBe(3);

  // Compressed on the phone before it was kept: at most 1600 px and well under the photo as taken.
  for (const name of names) {
    const bytes = await storedFile(token, name);
    const { width, height } = jpegSize(bytes);
    expect(Math.max(width, height)).toBeLessThanOrEqual(1600);
    expect(bytes.length).toBeLessThan(Math.min(...photos.map((p) => p.buffer.length)));
  }
  const { list } = await call<{ list: CarRow[] }>(token, '/carApplications/all/history/list', { size: 10, pn: 1, application_number: target!.application_number });
  expect(list[0]?.label_status).toBe(1);
});

test('online, the flag goes through the outbox at once, with upload progress and previews', async ({ page, browser }) => {
  test.setTimeout(120_000);
  const token = await signInAs(page, 'squad');
  const target = (await unflaggedVehicles(token))[0];
  expect(target, 'the demo seed has an unflagged vehicle').toBeTruthy();
  const remark = `e2e在线标记 ${Date.now()}`;
  const photos = await cameraPhotos(browser, 2, 2000, 1500);

  const screen = listScreen(page);
  await screen.open('/appointments/car-all-history');
  await screen.showOnly('预约单号', target!.application_number);
  await openFlag(page);
  await modal(page).getByLabel('标记原因').fill(remark);
  await shot(page, 'flag-modal');

  // Compression runs in our own module worker, a chunk of this server's build (no CDN, no library from elsewhere).
  const workers: string[] = [];
  const libraryFiles = new Set<string>();
  page.on('worker', (w) => workers.push(w.url()));
  page.context().on('request', (r) => {
    const m = /\/assets\/(browser-image-compression-[\w-]+\.js)$/.exec(new URL(r.url()).pathname);
    if (m) libraryFiles.add(m[1]!);
  });

  // A slow uplink, so the progress shows.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 50, downloadThroughput: -1, uploadThroughput: 40 * 1024 });
  await modal(page).locator('input[type=file][multiple]').setInputFiles(photos);
  const bar = modal(page).getByRole('progressbar').first();
  await expect(bar).toBeVisible();
  await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 20_000 }).toBeGreaterThan(0);
  await shot(page, 'flag-photos-progress');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await expect(modal(page).getByRole('progressbar')).toHaveCount(0, { timeout: 30_000 });
  await expect(modal(page).locator('.iu-wait')).toHaveCount(0);
  await expect(modal(page).locator('.iu-tile img')).toHaveCount(2);
  await shot(page, 'flag-photos-uploaded');
  expect(
    workers.some((u) => new URL(u).origin === new URL(page.url()).origin && /^\/assets\/compress\.worker-[\w-]+\.js$/.test(new URL(u).pathname)),
    workers.join(', '),
  ).toBe(true);
  // The general library it replaced (issue 24 item 2: 11 s a photo on a loaded phone) is no longer loaded.
  expect(libraryFiles.size).toBe(0);

  // The flag takes 9 photos: of 8 more, the first 7 are added and the person is told so.
  const small = Array.from({ length: 8 }, (_, i) => ({ name: `small-${i + 1}.png`, mimeType: 'image/png', buffer: PNG }));
  await modal(page).locator('input[type=file][multiple]').setInputFiles(small);
  await expect(page.getByText('最多上传9张图片，已添加前7张')).toBeVisible();
  await expect(modal(page).locator('.iu-tile')).toHaveCount(9);
  await expect(modal(page).locator('input[type=file]')).toHaveCount(0);
  await expect(modal(page).getByText('最多上传9张图片，已达上限')).toBeVisible();
  await expect(modal(page).getByRole('progressbar')).toHaveCount(0, { timeout: 30_000 });
  await expect(modal(page).locator('.iu-mask--failed, .iu-wait')).toHaveCount(0);

  await modal(page).getByRole('button', { name: '标记', exact: true }).click();
  await expect(page.getByText('标记成功')).toBeVisible();
  const marks = (await marksOf(token, target!.car_application_id)).filter((m) => m.remark === remark);
  expect(marks).toHaveLength(1);
  expect((marks[0]!.photo ?? '').split(';').filter(Boolean)).toHaveLength(9);
});

test('an application form keeps an offline photo waiting, refuses to save it, and uploads it when the signal returns', async ({ page, context, browser }) => {
  await signInAs(page, 'contact');
  const [photo] = await cameraPhotos(browser, 1, 1200, 900);
  await listScreen(page).open('/appointments/car');
  await page.getByRole('button', { name: /新增预约/ }).click();
  const form = page.getByRole('dialog').last();
  const item = form.locator('.ef-item', { has: page.locator('.ef-label', { hasText: /^\*?\s*车辆照片\s*[:：]?$/ }) });
  await expect(item).toBeVisible();

  await context.setOffline(true);
  await item.locator('input[type=file][multiple]').setInputFiles([photo!]);
  await expect(item.locator('.iu-wait')).toHaveCount(1);
  await form.getByRole('button', { name: '保存草稿', exact: true }).click();
  // The photo is not sent as a device address: the field says what to do.
  await expect(item.getByText('有照片尚未上传，请联网后重试')).toBeVisible();
  await item.scrollIntoViewIfNeeded();
  await shot(page, 'application-photo-waiting');

  await context.setOffline(false);
  await expect(item.locator('.iu-wait')).toHaveCount(0, { timeout: 20_000 });
  await expect(item.getByRole('progressbar')).toHaveCount(0, { timeout: 20_000 });
  await expect(item.getByText('有照片尚未上传，请联网后重试')).toHaveCount(0);
  await expect(item.locator('.iu-tile')).toHaveCount(1);

  // A photo the server refuses leaves the value, says why, and can be sent again.
  await page.route(
    '**/api/file/upload',
    (route) => route.fulfill({ status: 500, json: { success: false, code: 1500, msg: '服务器繁忙，请稍后重试', message: '服务器繁忙，请稍后重试', data: null } }),
    { times: 1 },
  );
  await item.locator('input[type=file][multiple]').setInputFiles([{ name: 'again.png', mimeType: 'image/png', buffer: PNG }]);
  await expect(page.getByText('服务器繁忙，请稍后重试')).toBeVisible();
  const retry = item.getByRole('button', { name: '重新上传' });
  await expect(retry).toBeVisible();
  await retry.click();
  await expect(retry).toHaveCount(0);
  await expect(item.getByRole('progressbar')).toHaveCount(0, { timeout: 20_000 });
  await expect(item.locator('.iu-tile')).toHaveCount(2);
  await expect(item.locator('.iu-mask--failed, .iu-wait')).toHaveCount(0);
});
