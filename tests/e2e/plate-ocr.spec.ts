import { expect, test, type Page } from '@playwright/test';
import { E2E_DATA_DIR } from '../../playwright.config';
import { signInViaApi } from '../../scripts/demo-login';
import { platePhoto, type PlateSpec } from '../../scripts/plate-read';
import { DEMO_PASSWORD, base, shot } from './support';

// 拍车牌 (docs/plate-reading.md): a generated plate photo is read on the device, the reading only fills the
// field, and the lookup runs once the patrol confirms it. Headless Chromium has no camera: the photo fallback is used.

/** Approved and extended in the demo seed (scan.spec.ts types the same plate). */
const PLATE = '粤LS6623';

const photoOf: PlateSpec = { text: PLATE, kind: 'blue', font: 'Noto Sans CJK SC', weight: 700, angle: 6, shear: 0.08, blur: 0.6, glare: 0.3, night: 0, width: 300, seed: 11 };

let token: string | undefined;

async function openPlateMode(page: Page) {
  token ??= await signInViaApi(base, E2E_DATA_DIR, 'patrol', DEMO_PASSWORD);
  await page.goto('/login');
  await page.evaluate((t) => localStorage.setItem('park.token', t), token);
  // A model that fails to load says why in the console (a server policy that forbids WebAssembly, a missing file).
  page.on('console', (m) => m.type() === 'error' && console.log(`[console] ${m.text()}`));
  const scan = await page.goto('/scan');
  // The reader runs WebAssembly: the server's script policy must allow it, or the models never load (docs/plate-reading.md).
  expect(scan?.headers()['content-security-policy'] ?? '', "server/app.ts's script-src must allow 'wasm-unsafe-eval'").toMatch(/script-src[^;]*'wasm-unsafe-eval'/);
  const modes = page.getByRole('tablist', { name: '识别方式' });
  await modes.getByRole('tab', { name: '拍车牌' }).click();
  await expect(modes.getByRole('tab', { name: '拍车牌' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('heading', { name: '拍摄车牌或身份证号码' })).toBeVisible();
  // The models load when the mode opens; without a camera the screen offers the photo instead.
  await expect(page.getByRole('status').filter({ hasText: '未能打开摄像头' })).toBeVisible({ timeout: 60_000 });
}

test('a plate photo read in 拍车牌 mode fills the plate, and the lookup runs once it is confirmed', async ({ page }) => {
  test.setTimeout(150_000);
  // Drawn by Chromium on a blank page of its own, with the Noto CJK fonts.
  const scratch = await page.context().newPage();
  await scratch.goto('about:blank');
  const png = await platePhoto(scratch, photoOf);
  await scratch.close();

  await openPlateMode(page);
  await page.locator('input[type=file][aria-label="选择车牌或身份证照片"]').setInputFiles({ name: 'plate.png', mimeType: 'image/png', buffer: png });

  const reading = page.getByRole('group', { name: '识别结果' });
  await expect(reading.getByRole('button', { name: PLATE })).toBeVisible({ timeout: 60_000 });
  // Read, not yet looked up: nothing is asked before the patrol confirms.
  await expect(page.getByText(`查询车牌 ${PLATE}`)).toHaveCount(0);
  await shot(page, 'plate-ocr-reading');

  // The plate keyboard opens on the reading, for a correction.
  await reading.getByRole('button', { name: PLATE }).click();
  const sheet = page.getByRole('dialog', { name: '核对车牌号' });
  await expect(sheet.getByRole('textbox', { name: '车牌号' })).toHaveAttribute('data-value', PLATE);
  await sheet.getByRole('button', { name: '收起' }).click();
  await expect(sheet).toBeHidden();

  await reading.getByRole('button', { name: '确认查询' }).click();
  await expect(page.getByText(`查询车牌 ${PLATE}`)).toBeVisible();
  const vehicle = page.getByRole('region', { name: '车辆信息' });
  await expect(vehicle.locator('.sr-subject')).toContainText(PLATE);
  await expect(vehicle).toContainText('审核通过');
  await shot(page, 'plate-ocr-result');
});
