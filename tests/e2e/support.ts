import { expect, type Page } from '@playwright/test';
import { E2E_DATA_DIR, E2E_PORT } from '../../playwright.config';
import { latestSmsCode, signInViaApi } from '../../scripts/demo-login';

export const DEMO_PASSWORD = 'Demo@2026';
export const base = `http://127.0.0.1:${E2E_PORT}`;

export const latestCode = (account: string) => latestSmsCode(E2E_DATA_DIR, account);

export async function waitForNewCode(account: string, previous: string | undefined): Promise<string> {
  let code: string | undefined;
  await expect.poll(() => (code = latestCode(account)) !== undefined && code !== previous, { timeout: 10_000 }).toBe(true);
  return code!;
}

/** Signs in through the API (the UI sign-in has its own test) and hands the session to the page. */
export async function signInAs(page: Page, account: string): Promise<string> {
  const token = await signInViaApi(base, E2E_DATA_DIR, account, DEMO_PASSWORD);
  await page.goto('/login');
  await page.evaluate((t) => localStorage.setItem('park.token', t), token);
  return token;
}

export const shotDir = '.tmp/shots';
export async function shot(page: Page, name: string) {
  const project = (page.viewportSize()?.width ?? 0) < 768 ? 'phone' : 'desktop';
  await page.screenshot({ path: `${shotDir}/${name}-${project}.png`, fullPage: false });
}

/** One API call as a signed-in user; throws with the server's message when it fails. */
export async function call<T>(token: string, url: string, body?: unknown, method = 'POST'): Promise<T> {
  const res = await fetch(`${base}/api${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { success: boolean; msg: string; data: T };
  if (!json.success) throw new Error(`${url}: ${json.msg}`);
  return json.data;
}

// A 1x1 PNG: the upload endpoint checks the bytes, not only the name.
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

export async function upload(token: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([PNG], { type: 'image/png' }), 'photo.png');
  const res = await fetch(`${base}/api/file/upload`, { method: 'POST', body: form, headers: { authorization: `Bearer ${token}` } });
  const json = (await res.json()) as { success: boolean; msg: string; data: { name: string } };
  if (!json.success) throw new Error(`upload: ${json.msg}`);
  return json.data.name;
}

/** A resident ID number with a valid GB 11643 check character. */
export function idNumber(seq: number): string {
  const body = `44130219900101${String(100 + seq).slice(-3)}`;
  const w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = w.reduce((s, x, i) => s + x * Number(body[i]), 0);
  return body + '10X98765432'[sum % 11];
}

export const isPhone = (page: Page) => (page.viewportSize()?.width ?? 0) < 768;

/** The visited enterprise of every filed test appointment: 中海壳牌, whose reviewer is 李强. */
export async function shellDepartment(token: string): Promise<number> {
  const departs = await call<Array<{ depart_id: number; name: string; code?: string }>>(token, '/depart/all', {});
  return departs.find((d) => d.code === 'CNOOC_SHELL' || d.name.startsWith('中海壳牌'))!.depart_id;
}

/** Files and submits a one-day person appointment visiting 中海壳牌 as `contact`; `seq` keeps phone and ID numbers apart. */
export async function fileVisitor(contact: string, v: { name: string; seq: number; day: string; phonePrefix?: string }): Promise<number> {
  const { id } = await call<{ id: number }>(contact, '/personApplications/save', {
    visitor_name: v.name,
    visitor_gender: 1,
    visitor_phone: `${v.phonePrefix ?? '1390001'}${String(1000 + v.seq).slice(-4)}`,
    visitor_company: '惠州测试服务有限公司',
    visitor_type: 4,
    visitor_idcard_type: 1,
    visitor_idcard: idNumber(v.seq),
    visit_content: '商务洽谈',
    visit_begin_time: v.day,
    visit_end_time: v.day,
    visit_area: 1,
    interviewee_name: '李强',
    interviewee_phone: '13800000003',
    interviewee_depart_id: await shellDepartment(contact),
  });
  await call(contact, '/personApplications/push', { id });
  return id;
}

const PLATE_CHARS = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';
/** A random ordinary Huizhou plate (粤L + 5), so reruns against one database never file the same vehicle twice. */
export const randomPlate = () => `粤L${Array.from({ length: 5 }, () => PLATE_CHARS[Math.floor(Math.random() * PLATE_CHARS.length)]).join('')}`;

export interface FiledVehicle {
  id: number;
  plate: string;
}

/**
 * Files and submits a one-day vehicle appointment visiting 中海壳牌 as
 * `contact`, of the vehicle model named `model`; `seq` keeps ID and phone
 * numbers apart, `extra` adds or overrides fields (photos, cargo, drivers).
 */
export async function fileVehicle(
  contact: string,
  v: { model: string; seq: number; day: string; driver: string; company: string; content: string; phonePrefix: string; extra?: Record<string, unknown> },
): Promise<FiledVehicle> {
  const models = (await call<{ list: Array<{ id: number; name: string }> }>(contact, '/vehicleType/page', { size: 100, pn: 1 })).list;
  const model = models.find((m) => m.name === v.model);
  if (!model) throw new Error(`no vehicle model ${v.model}`);
  const plate = randomPlate();
  const { id } = await call<{ id: number }>(contact, '/v2/carApplications/save', {
    license_plate: plate,
    license_plate_color: 2,
    vehicle_type_id: model.id,
    applicant_name: v.driver,
    applicant_idcard: idNumber(v.seq),
    applicant_gender: 0,
    applicant_phone: `${v.phonePrefix}${String(1000 + v.seq).slice(-4)}`,
    visitor_idcard_type: 1,
    visit_area: 1,
    visitor_type: 3,
    visitor_company: v.company,
    visitor_content: v.content,
    visitor_begin_time: `${v.day} 09:00:00`,
    visitor_end_time: `${v.day} 18:00:00`,
    interviewee_name: '李强',
    interviewee_phone: '13800000003',
    interviewee_depart_id: await shellDepartment(contact),
    ...v.extra,
  });
  await call(contact, '/carApplications/push', { id });
  return { id, plate };
}

/** Narrows an appointment list to one application by its reservation number (the filter sheet on phones). */
export async function showOnly(page: Page, number: string) {
  if (isPhone(page)) await page.getByRole('button', { name: /筛选/ }).click();
  const item = page.locator('.ff-item', { has: page.locator('.ff-label', { hasText: /^预约单号$/ }) });
  await item.locator('input').fill(number);
  await page.locator('.ff').getByRole('button', { name: '查询' }).click();
  // Phone cards leave the reservation number out: the single card left is the one.
  await expect(page.getByText('共 1 条').first()).toBeVisible();
}

/** Every outbox item as stored in the browser's IndexedDB (what a reload finds); photo Blobs come back as their sizes in bytes. */
export function storedOutbox<T = Record<string, unknown>>(page: Page): Promise<T[]> {
  return page.evaluate(
    () =>
      new Promise<T[]>((resolve, reject) => {
        const open = indexedDB.open('park-outbox');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const all = open.result.transaction('items').objectStore('items').getAll();
          all.onsuccess = () => {
            open.result.close();
            const items = all.result as Array<Record<string, unknown> & { photos?: Record<string, Blob[]> }>;
            // Blobs cannot leave the page: each photo is reported by its size.
            resolve(items.map((i) => (i.photos ? { ...i, photos: Object.fromEntries(Object.entries(i.photos).map(([f, list]) => [f, list.map((b) => b.size)])) } : i)) as T[]);
          };
          all.onerror = () => reject(all.error);
        };
      }),
  );
}
