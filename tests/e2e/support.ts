import { expect, type Locator, type Page } from '@playwright/test';
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

const sessions = new Map<string, string>();

/** Whether a session the server issued earlier still holds (a test may have signed it out, or a role change ended it). */
async function stillSignedIn(token: string): Promise<boolean> {
  const res = await fetch(`${base}/api/user/info`, { headers: { authorization: `Bearer ${token}` } });
  return res.ok && ((await res.json()) as { success: boolean }).success;
}

/**
 * Signs in through the API (the UI sign-in has its own test) and hands the session to the page.
 * A worker reuses each account's session while it holds: a fresh sign-in waits out the SMS code's cooldown.
 */
export async function signInAs(page: Page, account: string): Promise<string> {
  let token = sessions.get(account);
  if (!token || !(await stillSignedIn(token))) sessions.set(account, (token = await signInViaApi(base, E2E_DATA_DIR, account, DEMO_PASSWORD)));
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

/** A one-page PDF whose page is a blue square on white, written with its cross-reference table, as pdf.js reads it without repair. */
export const PDF = (() => {
  const draw = '0 0.4 1 rg 50 50 100 100 re f';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << >> >>',
    `<< /Length ${draw.length} >>\nstream\n${draw}\nendstream`,
  ];
  let body = '%PDF-1.4\n';
  const offsets = objects.map((o, i) => {
    const at = body.length;
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
    return at;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
})();

export async function upload(token: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([PNG], { type: 'image/png' }), 'photo.png');
  const res = await fetch(`${base}/api/file/upload`, { method: 'POST', body: form, headers: { authorization: `Bearer ${token}` } });
  const json = (await res.json()) as { success: boolean; msg: string; data: { name: string } };
  if (!json.success) throw new Error(`upload: ${json.msg}`);
  return json.data.name;
}

/** A resident ID number with a valid GB 11643 check character; `born` (YYYYMMDD) keeps a spec's people apart from the others'. */
export function idNumber(seq: number, born = '19900101'): string {
  const body = `441302${born}${String(100 + seq).slice(-3)}`;
  const w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = w.reduce((s, x, i) => s + x * Number(body[i]), 0);
  return body + '10X98765432'[sum % 11];
}

/** The phone layout (cards, bottom sheets) shows below 768 px, the desktop one (tables, modals) from there on. */
export const isPhone = (page: Page) => (page.viewportSize()?.width ?? 0) < 768;
export const isDesktop = (page: Page) => !isPhone(page);

/** The visited enterprise of every filed test appointment: 中海壳牌, whose reviewer is 李强. */
export async function shellDepartment(token: string): Promise<number> {
  const departs = await call<Array<{ depart_id: number; name: string; code?: string }>>(token, '/depart/all', {});
  return departs.find((d) => d.code === 'CNOOC_SHELL' || d.name.startsWith('中海壳牌'))!.depart_id;
}

/** Files and submits a one-day person appointment visiting 中海壳牌 as `contact`; `seq` keeps phone and ID numbers apart. */
export async function fileVisitor(contact: string, v: { name: string; seq: number; day: string; phonePrefix?: string; idcard?: string }): Promise<number> {
  const { id } = await call<{ id: number }>(contact, '/personApplications/save', {
    visitor_name: v.name,
    visitor_gender: 1,
    visitor_phone: `${v.phonePrefix ?? '1390001'}${String(1000 + v.seq).slice(-4)}`,
    visitor_company: '惠州测试服务有限公司',
    visitor_type: 4,
    visitor_idcard_type: 1,
    visitor_idcard: v.idcard ?? idNumber(v.seq),
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

const approverTokens = new Map<string, Promise<string>>();
const approver = (account: string) => {
  let t = approverTokens.get(account);
  if (!t) approverTokens.set(account, (t = signInViaApi(base, E2E_DATA_DIR, account, DEMO_PASSWORD)));
  return t;
};

/**
 * An approved registration of `plate` valid on `day`, filed by `contact` and
 * approved by the hazardous-goods department and the squad through the API: a
 * vehicle model with need_record = 1 is submitted only with one (DESIGN.md §7).
 */
export async function registerVehicle(contact: string, plate: string, day: string): Promise<void> {
  const { id } = await call<{ id: number }>(contact, '/vehicleRegistration/save', {
    license_plate: plate,
    license_plate_color: 1,
    visit_area: 1,
    visitor_company: '惠州测试物流有限公司',
    phone: '13900007777',
    total_mass: 31,
    begin_time: day,
    end_time: day,
  });
  await call(contact, '/vehicleRegistration/push', { id });
  for (const account of ['hazard', 'squad']) {
    const token = await approver(account);
    const { list } = await call<{ list: Array<{ process_task_id: number; ref_id: number }> }>(token, '/vehicleRegistration/task/page', { size: 100, pn: 1, license_plate: plate });
    const task = list.find((t) => t.ref_id === id);
    if (!task) throw new Error(`no registration task of ${plate} for ${account}`);
    await call(token, '/vehicleRegistration/task/check', { taskIds: [task.process_task_id], result: 1, remark: '审批通过。' });
  }
}

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
  v: { model: string; seq: number; day: string; driver: string; company: string; content: string; phonePrefix: string; extra?: Record<string, unknown>; register?: boolean },
): Promise<FiledVehicle> {
  const models = (await call<{ list: Array<{ id: number; name: string; need_record: number }> }>(contact, '/vehicleType/page', { size: 100, pn: 1 })).list;
  const model = models.find((m) => m.name === v.model);
  if (!model) throw new Error(`no vehicle model ${v.model}`);
  const plate = typeof v.extra?.license_plate === 'string' ? v.extra.license_plate : randomPlate();
  // register: false leaves a need-record plate as it is (registered already, or to be refused).
  if (model.need_record === 1 && v.register !== false) await registerVehicle(contact, plate, v.day);
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

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The shared list screen (src/list-screen) as a test sees it: cards (`.cl-card`) on a phone,
 * table rows (`.dtb tbody tr`) on a desktop, the '共 N 条' counter, the filter form (inline on
 * a desktop, the 筛选 sheet on a phone) and each row's actions, details and check box.
 */
export function listScreen(page: Page) {
  /** Every row on screen, without the loading skeleton or the empty/error placeholder. */
  const rows = (): Locator => (isPhone(page) ? page.locator('.cl-card:not(.cl-card--skeleton)') : page.locator('.dtb tbody tr:not(.dtb-placeholder)'));
  /** The rows holding `text`. */
  const row = (text: string): Locator => rows().filter({ hasText: text });
  const rowOf = (r: Locator | string): Locator => (typeof r === 'string' ? row(r) : r);
  /** The '共 N 条' counter: of any N, or of `n` rows. */
  const total = (n?: number): Locator => page.getByText(n === undefined ? /共 \d+ 条/ : `共 ${n} 条`).first();

  return {
    rows,
    row,
    total,

    /** Goes to the screen at `route` and waits for its first page: the counter, or a desktop table's empty state (it shows no counter of 0). */
    async open(route: string) {
      await page.goto(route);
      await expect(total().or(page.locator('.ls-empty')).first()).toBeVisible();
    },

    /** Filters on one search field, by its label (the 筛选 sheet on a phone), and waits for the single row that matches. */
    async showOnly(label: string, value: string) {
      if (isPhone(page)) await page.getByRole('button', { name: /筛选/ }).click();
      const item = page.locator('.ff-item', { has: page.locator('.ff-label', { hasText: new RegExp(`^${escapeRegExp(label)}$`) }) });
      await item.locator('input').fill(value);
      await page.locator('.ff').getByRole('button', { name: '查询' }).click();
      // A phone card may leave the searched field out: the single row left is the one.
      await expect(total(1)).toBeVisible();
    },

    /** A row action: the row's own button when it shows one, else under 更多 (the desktop menu, the phone action sheet). */
    async action(r: Locator | string, name: string) {
      const target = rowOf(r);
      const direct = target.getByRole('button', { name, exact: true });
      if (await direct.count()) return direct.click();
      await target.getByRole('button', { name: /更多/ }).click();
      const menu = isPhone(page) ? page.locator('.adm-action-sheet') : page.locator('.adm-popover');
      await menu.getByText(name, { exact: true }).click();
    },

    /**
     * Opens a row's details: by tapping the card or double-clicking the table row, or with
     * `via: 'button'` through the card's 查看详情 or the row's 详情 action.
     */
    async openDetail(r: Locator | string, via: 'tap' | 'button' = 'tap') {
      const target = rowOf(r);
      if (via === 'button') await (isPhone(page) ? target.getByText('查看详情') : target.getByRole('button', { name: '详情' })).click();
      else if (isPhone(page)) await target.locator('.cl-main').click();
      else await target.dblclick();
    },

    /** Ticks a row's check box for a batch action. */
    async select(r: Locator | string) {
      await rowOf(r)
        .locator(isPhone(page) ? '.cl-head .adm-checkbox' : '.dtb-check .adm-checkbox')
        .click();
    },
  };
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

/** A form item of the shared entity form by its label (the asterisk and colon aside). */
export const formField = (page: Page, label: string): Locator =>
  page.locator('.ef-item', { has: page.locator('.ef-label', { hasText: new RegExp(`^\\*?\\s*${escapeRegExp(label)}\\s*[:：]?$`) }) }).first();

/** Adds a department from the tree to a form field of several departments (components/departments-select.tsx), found by search. */
export async function pickDepartment(page: Page, label: string, name: string, button = `添加${label}`) {
  await formField(page, label).getByRole('button', { name: button }).click();
  const tree = page.getByRole('dialog', { name: '选择部门' });
  await tree.getByPlaceholder('搜索部门名称').fill(name);
  await tree
    .getByRole('button', { name: new RegExp(`^${name}`) })
    .first()
    .click();
  await expect(tree).toHaveCount(0);
}

/** 保存草稿 of the open form of a record under approval (register, appointment), the same at both sizes. */
export async function saveDraft(page: Page) {
  await page.getByRole('dialog').last().getByRole('button', { name: '保存草稿', exact: true }).click();
}

/** 提交审核 of such a form: saves, then submits. */
export async function submitForReview(page: Page) {
  await page.getByRole('dialog').last().getByRole('button', { name: '提交审核', exact: true }).click();
}

/** Submits the open entity form: 提交 on a phone's full-screen sheet, 确定 in a desktop modal. */
export async function submitForm(page: Page) {
  await page
    .getByRole('button', { name: isPhone(page) ? '提交' : '确定', exact: true })
    .last()
    .click();
}
