import { createRequire } from 'node:module';
import { expect, test, type Page } from '@playwright/test';
import jsQR from 'jsqr';
import QRCode from 'qrcode';
import { importPassPublicKey, verifyPass, type IssuedPass, type PassPublicKey } from '../../domain/pass';
import { maskIdNumber } from '../../domain/personal-data';
import { formatInZone } from '../../domain/time';
import { E2E_DATA_DIR } from '../../playwright.config';
import { signInViaApi } from '../../scripts/demo-login';
import { DEMO_PASSWORD, base, call, isPhone, listScreen, shot } from './support';

// This spec exercises the service worker, which the config blocks elsewhere.
test.use({ serviceWorkers: 'allow' });

// pngjs comes with qrcode (its Node PNG writer) and has no types of its own.
const { PNG } = createRequire(import.meta.url)('pngjs') as { PNG: { sync: { read(b: Buffer): { width: number; height: number; data: Buffer } } } };

const FLAGGED_PLATE = '粤LU1856';
const DELAYED_PLATE = '粤LS6623';

interface CarRow {
  car_application_id: number;
  application_number: string;
  license_plate: string;
  state: number;
  visitor_begin_time: string;
  visitor_end_time: string;
}

/** One sign-in per account for the whole run: the server allows 10 SMS codes per account an hour. */
const tokens = new Map<string, string>();
async function tokenOf(account: string): Promise<string> {
  if (!tokens.has(account)) tokens.set(account, await signInViaApi(base, E2E_DATA_DIR, account, DEMO_PASSWORD));
  return tokens.get(account)!;
}

/** signInAs with the run's session of that account. */
async function useSession(page: Page, account: string) {
  const token = await tokenOf(account);
  await page.goto('/login');
  await page.evaluate((t) => localStorage.setItem('park.token', t), token);
}

/** The seeded approved application of a plate, through the applicant's own list. */
async function carOf(plate: string): Promise<CarRow> {
  const page = await call<{ list: CarRow[] }>(await tokenOf('contact'), '/carApplications/list', { size: 10, pn: 1, license_plate: plate });
  const row = page.list.find((r) => r.license_plate === plate && r.state === 2);
  expect(row, `the demo seed has an approved ${plate}`).toBeTruthy();
  return row!;
}

/** The applicant's pass, through the API as the app fetches it. */
async function passOf(row: CarRow): Promise<IssuedPass> {
  return call<IssuedPass>(await tokenOf('contact'), `/carApplications/pass?id=${row.car_application_id}`, undefined, 'GET');
}

const qrPng = (text: string) => QRCode.toBuffer(text, { errorCorrectionLevel: 'M', margin: 4, width: 480 });

async function feedImage(page: Page, name: string, png: Buffer) {
  await page.locator('input[type=file][aria-label="选择二维码图片"]').setInputFiles({ name, mimeType: 'image/png', buffer: png });
}

const verdict = (page: Page) => page.getByRole('status', { name: '核验结果' });
const vehicle = (page: Page) => page.getByRole('region', { name: '车辆信息' });
const flags = (page: Page) => page.getByRole('region', { name: '车辆标记' });

async function openScan(page: Page, account = 'patrol') {
  await useSession(page, account);
  await page.goto('/scan');
  await expect(page.getByRole('heading', { name: '扫描通行码或身份证二维码' })).toBeVisible();
  // The key is cached for offline use as the screen opens.
  await expect(page.getByText(/离线核验已就绪/)).toBeVisible();
}

test('a pass QR image of an approved vehicle lands on that vehicle with its validity and flags', async ({ page }) => {
  const row = await carOf(FLAGGED_PLATE);
  const { pass } = await passOf(row);
  await openScan(page);
  // Chromium here has no camera: the screen says so and offers the image instead.
  await expect(page.getByText(/未找到可用的摄像头|未能打开摄像头|不允许使用摄像头/)).toBeVisible();

  await feedImage(page, 'pass.png', await qrPng(pass));
  // The seeded visit starts days from now: genuine, not yet valid.
  await expect(verdict(page)).toContainText('通行码未到有效期');
  await expect(verdict(page)).toContainText(`有效期自 ${row.visitor_begin_time} 起`);
  const signed = page.getByRole('region', { name: '通行码内容' });
  await expect(signed).toContainText(row.application_number);
  await expect(signed).toContainText(FLAGGED_PLATE);

  await expect(vehicle(page).locator('.sr-subject')).toContainText(FLAGGED_PLATE);
  await expect(vehicle(page)).toContainText(row.application_number);
  await expect(vehicle(page)).toContainText('审核通过');
  await expect(vehicle(page)).toContainText(`${row.visitor_begin_time.slice(0, 16)} 至 ${row.visitor_end_time.slice(0, 16)}`);
  await expect(vehicle(page)).toContainText('未列入黑白名单');
  await expect(flags(page)).toContainText('在厂区限速路段超速行驶，已现场提醒');
  await expect(flags(page)).toContainText('张伟');
  await shot(page, 'scan-pass-result');

  // 标记此车辆 opens the appointments' flag action on this vehicle's application.
  const remark = `e2e 扫码标记 ${isPhone(page) ? '手机' : '桌面'} ${Date.now()}`;
  await flags(page).getByRole('button', { name: '标记此车辆' }).click();
  const modal = page.locator('.sm').last();
  await expect(modal.locator('.am-plates')).toContainText(FLAGGED_PLATE);
  await modal.getByLabel('标记原因').fill(remark);
  await modal.getByRole('button', { name: '标记', exact: true }).click();
  await expect(page.getByText('标记成功')).toBeVisible();
  await expect(flags(page)).toContainText(remark);
  await flags(page).getByRole('button', { name: '标记此车辆' }).scrollIntoViewIfNeeded();
  await shot(page, 'scan-pass-flags');
});

test('typing a plate on the plate keyboard shows the vehicle', async ({ page }) => {
  await openScan(page);
  await page.getByRole('button', { name: '点击输入车牌号' }).click();
  const sheet = page.getByRole('dialog', { name: '输入车牌号' });
  // The sheet slides up: shoot once its last row is in view.
  await expect(sheet.getByRole('button', { name: '确定' })).toBeInViewport({ ratio: 1 });
  await shot(page, 'plate-keyboard-provinces');
  await sheet.getByRole('button', { name: '粤', exact: true }).click();
  // The second character is a letter, and plates have no I or O.
  await expect(sheet.getByRole('button', { name: '6', exact: true })).toBeDisabled();
  await expect(sheet.getByRole('button', { name: 'I', exact: true })).toHaveCount(0);
  await expect(sheet.getByRole('button', { name: 'O', exact: true })).toHaveCount(0);
  await sheet.getByRole('button', { name: 'L', exact: true }).click();
  await sheet.getByRole('button', { name: '确定' }).click();
  await expect(sheet.getByText('车牌号格式不正确')).toBeVisible();
  for (const c of 'S6623') await sheet.getByRole('button', { name: c, exact: true }).click();
  await expect(sheet.getByRole('textbox', { name: '车牌号' })).toHaveAttribute('data-value', DELAYED_PLATE);
  await shot(page, 'plate-keyboard');
  await sheet.getByRole('button', { name: '确定' }).click();
  await expect(sheet).toBeHidden();

  await expect(page.getByText(`查询车牌 ${DELAYED_PLATE}`)).toBeVisible();
  await expect(vehicle(page).locator('.sr-subject')).toContainText(DELAYED_PLATE);
  await expect(vehicle(page)).toContainText('审核通过');
  await expect(vehicle(page)).toContainText('已延期');
  await expect(flags(page)).toContainText('无标记');
  await shot(page, 'scan-plate-result');
});

test('an ID QR looks the person up; a black-listed plate is said plainly', async ({ page }) => {
  const squad = await tokenOf('squad');
  const persons = await call<{ list: Array<{ person_application_id: number; visitor_name: string; state: number }> }>(squad, '/personApplications/all/history/list', { size: 50, pn: 1, state: 2 });
  const approved = persons.list[0];
  expect(approved, 'the demo seed has an approved person').toBeTruthy();
  // Lists show ID numbers masked; the squad holds pii:view and reveals the one its ID card would carry.
  const { value } = await call<{ value: string }>(squad, '/pii/reveal', { record: 'person_application', id: approved!.person_application_id, field: 'visitor_idcard', reason: '测试扫码核验' });
  const visitor = { ...approved!, visitor_idcard: value };
  await openScan(page);
  await feedImage(page, 'id.png', await qrPng(visitor.visitor_idcard));
  const person = page.getByRole('region', { name: '人员信息' });
  await expect(person).toContainText(visitor.visitor_name);
  await expect(person).toContainText(maskIdNumber(visitor.visitor_idcard));
  await expect(person).toContainText('审核通过');
  await expect(person).not.toContainText(visitor.visitor_idcard);

  await page.getByRole('button', { name: '继续扫码' }).click();
  await page.getByRole('button', { name: '点击输入车牌号' }).click();
  const sheet = page.getByRole('dialog', { name: '输入车牌号' });
  for (const c of '粤L7B359') await sheet.getByRole('button', { name: c, exact: true }).click();
  await sheet.getByRole('button', { name: '确定' }).click();
  await expect(page.getByRole('alert').filter({ hasText: '此车辆在黑名单中，禁止入园' })).toBeVisible();
  await expect(vehicle(page)).toContainText('多次在厂区内违规停放且拒不配合安保检查');
});

test('offline, a pass is still verified on the device and the screen says what needs the network', async ({ page, context }) => {
  const row = await carOf(FLAGGED_PLATE);
  const { pass } = await passOf(row);
  await openScan(page);
  await context.setOffline(true);
  try {
    await feedImage(page, 'pass.png', await qrPng(pass));
    await expect(verdict(page)).toContainText('通行码未到有效期');
    await expect(page.getByRole('region', { name: '通行码内容' })).toContainText(FLAGGED_PLATE);
    await expect(page.getByText('当前无网络')).toBeVisible();
    await expect(page.getByText(/预约是否已撤销、黑白名单状态和车辆标记需要联网后查询/)).toBeVisible();
    await shot(page, 'scan-offline');

    // A pass changed after signing (its end moved a year on) reads as forged, with no network either.
    const [prefix, body, sig] = pass.split('.');
    const json = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, string>;
    const forged = `${prefix}.${Buffer.from(JSON.stringify({ ...json, e: '2099-12-31 23:59:59' })).toString('base64url')}.${sig}`;
    await page.getByRole('button', { name: '继续扫码' }).click();
    await feedImage(page, 'forged.png', await qrPng(forged));
    await expect(verdict(page)).toContainText('伪造或被篡改的通行码');
    await expect(page.getByRole('region', { name: '通行码内容' })).toHaveCount(0);

    // Back online: the park's records arrive without scanning again.
    await page.getByRole('button', { name: '继续扫码' }).click();
    await feedImage(page, 'pass.png', await qrPng(pass));
    await expect(page.getByText('当前无网络')).toBeVisible();
  } finally {
    await context.setOffline(false);
  }
  await page.evaluate(() => window.dispatchEvent(new Event('online')));
  await expect(flags(page)).toContainText('在厂区限速路段超速行驶，已现场提醒');
});

test('an approved application shows its pass QR to the applicant, and the QR is the signed pass', async ({ page }) => {
  const row = await carOf(FLAGGED_PLATE);
  await useSession(page, 'contact');
  const list = listScreen(page);
  await list.open('/appointments/car');
  await list.showOnly('车牌号', FLAGGED_PLATE);
  await list.openDetail(FLAGGED_PLATE);

  const section = page.getByRole('region', { name: '通行码' });
  const img = section.getByRole('img', { name: `通行码 ${row.application_number}` });
  await expect(img).toBeVisible();
  await expect(section).toContainText('未到有效期');
  await expect(section).toContainText(FLAGGED_PLATE);
  await shot(page, 'pass-detail');

  // Read the QR back off the page and verify it with the published key, as a patrol's phone would.
  const src = (await img.getAttribute('src'))!;
  const png = PNG.sync.read(Buffer.from(src.split(',')[1], 'base64'));
  const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  // A compact JWS (ES256, typ park-pass): header.payload.signature.
  expect(decoded?.data).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]{86}$/);
  const key = await call<PassPublicKey>(await tokenOf('patrol'), '/pass/publicKey', undefined, 'GET');
  const check = await verifyPass(decoded!.data, { kid: key.kid, key: await importPassPublicKey(key.publicKey) }, formatInZone(Date.now()));
  expect(check.status).toBe('not-yet');
  expect(check.payload).toMatchObject({ number: row.application_number, plate: FLAGGED_PLATE, kind: 'car' });
});
