import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { CompactEncrypt, importSPKI } from 'jose';
import { formatInZone } from '../../domain/time';
import { addDays } from '../../domain/visit-rules';
import { E2E_DATA_DIR } from '../../playwright.config';
import { signInViaApi } from '../../scripts/demo-login';
import { axeFindings } from './a11y-checks';
import { base, call, DEMO_PASSWORD, fileVehicle, fileVisitor, idNumber, isDesktop, isPhone, listScreen, shellDepartment, shot, signInAs, type FiledVehicle } from './support';

/**
 * 转交, 加签 and a deadline reminder (docs/approvals.md) at both sizes:
 * - the reviewer hands a vehicle task to a colleague made after the
 *   submission, with a reason; the task leaves the queue and the process view
 *   names the hand-over;
 * - the reviewer adds the squad before themself (前加签); once the squad has
 *   approved through the API the task is back in the queue and is approved;
 * - a person task's deadline is made to pass (its times set in this worker's
 *   database, then any task write re-arms the server's timer): 审批超时提醒
 *   arrives live in the notification centre, and the task reads 已超时.
 */

type Json = Record<string, unknown>;
interface Candidate {
  user_id: number;
  user_name: string;
  depart_name: string;
}
interface QueueTask {
  process_task_id: number;
  ref_id: number;
  state: number;
  due_at: number | null;
}

const NAME_CHARS = '伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂';
const randomChars = (n: number) => Array.from({ length: n }, () => NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)]).join('');
/** A name of this run and size: the two projects may share a worker's server, and a rerun never repeats one either. */
const uniqueName = (page: Page, prefix: string) => `${prefix}${isPhone(page) ? '甲' : '乙'}${randomChars(2)}`;

const day = () => addDays(formatInZone(new Date()), 3);
const token = (account: string) => signInViaApi(base, E2E_DATA_DIR, account, DEMO_PASSWORD);

/** The API's encrypted body for /user/save (as the PWA sends it). */
async function encrypted(payload: unknown): Promise<{ content: string }> {
  const { data } = (await (await fetch(`${base}/api/user/publicKey`)).json()) as { data: { publicKey: string } };
  const key = await importSPKI(data.publicKey, 'RSA-OAEP-256');
  return { content: await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM' }).encrypt(key) };
}

/** A second 企业审核员 of 中海壳牌, made through the admin API; answers their id. */
async function newShellReviewer(admin: string, name: string, seq: number): Promise<number> {
  const roles = await call<Array<{ role_id: number; code: string }>>(admin, '/role/all', {});
  const role = roles.find((r) => r.code === 'enterprise_reviewer')!;
  const account = `e2e_xfer_${Date.now()}_${seq}`;
  const { user_id } = await call<{ user_id: number }>(
    admin,
    '/user/save',
    await encrypted({ userName: name, account, gender: 0, phone: `1391234${String(1000 + seq).slice(-4)}`, departId: await shellDepartment(admin), password: 'Colleague2026', status: 1 }),
  );
  await call(admin, '/user/bindRole', { userId: user_id, roleIds: [role.role_id] });
  return user_id;
}

/** The reviewer's pending task of a vehicle in 车辆预约审核 (queue car_task), read through the queue's own page call. */
async function carTask(who: string, plate: string): Promise<QueueTask | undefined> {
  const { list } = await call<{ list: QueueTask[] }>(who, '/carApplications/task/page', { size: 10, pn: 1, license_plate: plate });
  return list[0];
}

/** Opens a task's review from its row's 审核 button and waits for its process. */
async function openReview(page: Page, route: string, text: string): Promise<Locator> {
  const list = listScreen(page);
  await list.open(route);
  const row = list.row(text);
  await expect(row).toBeVisible();
  await row.getByRole('button', { name: '审核', exact: true }).click();
  const sheet = page.getByRole('dialog', { name: '审核', exact: true });
  await expect(sheet.getByText('审批记录')).toBeVisible();
  return sheet;
}

/** Picks a person in the open action dialog by name. */
async function pickPerson(dialog: Locator, name: string) {
  await dialog.locator('.ta-person', { hasText: name }).click();
  await expect(dialog.getByRole('radio', { name: new RegExp(name) })).toBeChecked();
}

const toastGone = (page: Page) => expect(page.locator('.adm-toast-main')).toHaveCount(0, { timeout: 8_000 });

test('转交: the reviewer hands a vehicle task to a colleague, with a reason the process view shows', async ({ page }) => {
  test.setTimeout(150_000);
  const phone = isPhone(page);
  const contact = await token('contact');
  const admin = await token('admin');
  const filed: FiledVehicle = await fileVehicle(contact, {
    model: '小型汽车',
    seq: phone ? 311 : 312,
    day: day(),
    driver: uniqueName(page, '转交司机'),
    company: '惠州转交测试物流有限公司',
    content: '转交端到端测试',
    phonePrefix: '1390031',
  });
  // Made after the submission, so not already approving at the node the task is on.
  const colleague = uniqueName(page, '转交同事');
  const colleagueId = await newShellReviewer(admin, colleague, phone ? 1 : 2);
  const reason = `本周出差，请${colleague}代为审核`;
  try {
    // A long list gets a search: ten more people join the server's answer (only the real one can be chosen by the server).
    await page.route('**/api/approvalTask/candidates', async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as { data: Candidate[] };
      const more = Array.from({ length: 10 }, (_, i) => ({ user_id: 900_000 + i, user_name: `候选人${'甲乙丙丁戊己庚辛壬癸'[i]}`, depart_name: i % 2 ? '园区信息中心' : '石化大队' }));
      await route.fulfill({ response: res, json: { ...body, data: [...body.data, ...more] } });
    });
    await signInAs(page, 'reviewer');
    const sheet = await openReview(page, '/approval/car', filed.plate);
    // 转交 and 加签 sit beside the decision of a single task.
    await expect(sheet.getByRole('button', { name: '转交', exact: true })).toBeVisible();
    await expect(sheet.getByRole('button', { name: '加签', exact: true })).toBeVisible();
    await shot(page, 'task-actions-review');
    await sheet.getByRole('button', { name: '转交', exact: true }).click();

    const dialog = page.getByRole('dialog', { name: '转交', exact: true });
    await expect(dialog.getByText(filed.plate).first()).toBeVisible();
    await expect(dialog.locator('.ta-person')).toHaveCount(11);
    await dialog.getByLabel('搜索转交对象').fill('石化大队');
    await expect(dialog.locator('.ta-person')).toHaveCount(5);
    await expect(dialog.getByText('匹配 5 人，共 11 人')).toBeVisible();
    await dialog.getByLabel('搜索转交对象').fill(colleague);
    await expect(dialog.locator('.ta-person')).toHaveCount(1);
    await expect(dialog.locator('.ta-person', { hasText: colleague })).toContainText('中海壳牌');
    // Nothing chosen and no reason: each is asked for.
    await dialog.getByRole('button', { name: '转交', exact: true }).click();
    await expect(dialog.getByText('请选择转交对象', { exact: true })).toBeVisible();
    await pickPerson(dialog, colleague);
    await dialog.getByRole('button', { name: '转交', exact: true }).click();
    await expect(dialog.getByText('请输入转交原因', { exact: true })).toBeVisible();
    await dialog.getByLabel('转交原因').fill(reason);
    await toastGone(page);
    await shot(page, 'task-transfer');
    expect(await axeFindings(page, '/approval/car 转交')).toEqual([]);

    await dialog.getByRole('button', { name: '转交', exact: true }).click();
    await expect(page.getByText('转交成功', { exact: true })).toBeVisible();
    await expect(dialog).toHaveCount(0);
    await expect(page.getByRole('dialog', { name: '审核', exact: true })).toHaveCount(0);
    // Gone from the reviewer's queue, and from what the server lists for them.
    await expect(listScreen(page).row(filed.plate)).toHaveCount(0);
    const reviewer = await page.evaluate(() => localStorage.getItem('park.token'));
    expect(await carTask(reviewer!, filed.plate)).toBeUndefined();

    // The process view (审批流程 of 车辆预约记录) names the hand-over and its reason.
    const list = listScreen(page);
    await list.open('/appointments/car-history');
    await list.showOnly('车牌号', filed.plate);
    await list.action(list.rows().first(), '审批流程');
    const drawer = page.getByRole('dialog', { name: '审批流程' });
    await expect(drawer.getByText(`李强转交给${colleague}：${reason}`)).toBeVisible();
    await expect(drawer.getByText(colleague).first()).toBeVisible();
    await shot(page, 'task-transfer-process');
  } finally {
    // Other specs on this worker's server expect 李强 alone to review for 中海壳牌.
    await call(admin, '/user/delete', { userId: colleagueId }).catch(() => undefined);
  }
});

test('前加签: the squad decides first, then the task is back with the reviewer, who approves it', async ({ page }) => {
  test.setTimeout(150_000);
  const phone = isPhone(page);
  const contact = await token('contact');
  const reviewer = await signInAs(page, 'reviewer');
  const squad = await token('squad');
  const filed = await fileVehicle(contact, {
    model: '小型汽车',
    seq: phone ? 321 : 322,
    day: day(),
    driver: uniqueName(page, '加签司机'),
    company: '惠州加签测试物流有限公司',
    content: '加签端到端测试',
    phonePrefix: '1390032',
  });
  const task = (await carTask(reviewer, filed.plate))!;
  expect(task).toBeTruthy();
  // The squad holds the queue's list code: the server offers 陈刚 as a signer.
  const signers = await call<Candidate[]>(reviewer, '/approvalTask/candidates', { taskId: task.process_task_id, purpose: 'signer' });
  const chen = signers.find((c) => c.user_name === '陈刚');
  expect(chen, JSON.stringify(signers)).toBeTruthy();
  const transferable = await call<Candidate[]>(reviewer, '/approvalTask/candidates', { taskId: task.process_task_id, purpose: 'transfer' });

  let sheet = await openReview(page, '/approval/car', filed.plate);
  // 转交 first: with nobody else reviewing for 中海壳牌 the dialog says so plainly.
  await sheet.getByRole('button', { name: '转交', exact: true }).click();
  let dialog = page.getByRole('dialog', { name: '转交', exact: true });
  if (transferable.length) {
    await expect(dialog.locator('.ta-person')).toHaveCount(transferable.length);
    await dialog.getByRole('button', { name: '取消', exact: true }).click();
  } else {
    // Nothing to fill in and nothing to send: only 关闭.
    await expect(dialog.getByText('没有可转交的人员')).toBeVisible();
    await expect(dialog.getByLabel('转交原因')).toHaveCount(0);
    await expect(dialog.getByRole('button', { name: '转交', exact: true })).toHaveCount(0);
    await shot(page, 'task-transfer-empty');
    await dialog.getByRole('button', { name: '关闭', exact: true }).last().click();
  }
  await expect(dialog).toHaveCount(0);
  // The review is still open underneath.
  await expect(sheet).toBeVisible();

  if (isDesktop(page)) {
    // The keyboard: the focus starts in the form; Esc closes this dialog alone and gives the focus back to its button.
    await sheet.getByRole('button', { name: '加签', exact: true }).click();
    dialog = page.getByRole('dialog', { name: '加签', exact: true });
    await expect(dialog.locator('.ta-person').first()).toBeVisible();
    await expect(dialog.locator('input').first()).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await expect(sheet).toBeVisible();
    await expect(sheet.getByRole('button', { name: '加签', exact: true })).toBeFocused();
  }

  await sheet.getByRole('button', { name: '加签', exact: true }).click();
  dialog = page.getByRole('dialog', { name: '加签', exact: true });
  await expect(dialog.locator('.ta-person')).toHaveCount(signers.length);
  await pickPerson(dialog, '陈刚');
  // 前加签 is the first mode and the default; each mode says what it does.
  for (const help of ['加签人先审核，通过后任务回到我', '我同意后，再由加签人审核', '我与加签人都须审核通过']) await expect(dialog.getByText(help)).toBeVisible();
  await dialog.locator('.ta-mode', { hasText: '前加签' }).click();
  await expect(dialog.getByRole('radio', { name: /前加签/ })).toBeChecked();
  await dialog.getByLabel('审批意见').fill('请石化大队先核实车辆');
  await shot(page, 'task-signer');
  expect(await axeFindings(page, '/approval/car 加签')).toEqual([]);
  await dialog.getByRole('button', { name: '加签', exact: true }).click();
  await expect(page.getByText('加签成功', { exact: true })).toBeVisible();
  await expect(dialog).toHaveCount(0);
  // Waiting for the signer: not in the reviewer's queue meanwhile.
  const list = listScreen(page);
  await expect(list.row(filed.plate)).toHaveCount(0);

  // The squad approves the added task in the same queue (车辆预约审核), through the API.
  const added = await carTask(squad, filed.plate);
  expect(added, 'the squad has the added task in car_task').toBeTruthy();
  await call(squad, '/carApplications/task/check', { taskIds: String(added!.process_task_id), result: 1, remark: '同意' });

  // Back with the reviewer, who approves it; the process view shows the added signer.
  sheet = await openReview(page, '/approval/car', filed.plate);
  await expect(sheet.getByText('前加签：先由陈刚审核，通过后回到李强（请石化大队先核实车辆）')).toBeVisible();
  await shot(page, 'task-signer-back');
  await sheet.getByRole('button', { name: isDesktop(page) ? '确定' : '同意', exact: true }).click();
  await expect(page.getByText('审核成功！')).toBeVisible();
  await expect(list.row(filed.plate)).toHaveCount(0);
  expect(await carTask(reviewer, filed.plate)).toBeUndefined();
});

test('a deadline passing reminds the reviewer live, and the task reads 已超时', async ({ page }) => {
  test.setTimeout(150_000);
  const phone = isPhone(page);
  const admin = await token('admin');
  const contact = await token('contact');
  const NODE = '被访企业审核（24小时未审自动通过）';
  const node = (await call<Json[]>(admin, '/processNode/all', { name: NODE })).find((n) => n.name === NODE)!;
  expect(node).toBeTruthy();
  const nodeBody = {
    processNodeId: node.process_node_id,
    name: node.name,
    departIds: node.departIds,
    roleId: node.role_id,
    countersign: node.countersign,
    companyCheck: node.company_check,
    remark: node.remark,
  };
  try {
    // One hour, one reminder, nothing automatic: only the reminder can fire.
    await call(admin, '/v2/processNode/update', { ...nodeBody, deadlineValue: 1, deadlineUnit: 1, remindTimes: 1, remindInterval: 1, autoAction: 0 });

    // The reviewer looks at the notification centre with the live stream open.
    const reviewer = await signInAs(page, 'reviewer');
    const streaming = page.waitForResponse((r) => r.url().endsWith('/api/notifications/stream'), { timeout: 30_000 });
    await page.goto('/notifications');
    await expect(page.getByTestId('notification-bell').first()).toBeVisible();
    await streaming;

    const name = uniqueName(page, '超时');
    const seq = phone ? 331 : 332;
    await fileVisitor(contact, { name, seq, day: day(), phonePrefix: '1390033', idcard: idNumber(seq, '19880808') });
    const { list } = await call<{ list: QueueTask[] }>(reviewer, '/personApplications/task/page', { size: 10, pn: 1, visitor_name: name });
    const task = list[0]!;
    expect(task.due_at, 'the node’s new deadline applies to the task').not.toBeNull();

    // The deadline passes without waiting: this worker's server reads the same SQLite file.
    const db = new Database(path.join(E2E_DATA_DIR, 'park.db'), { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 10000');
      const past = Date.now() - 1_000;
      const changed = db.prepare('UPDATE process_task SET next_at = ?, due_at = ? WHERE process_task_id = ? AND state = 0').run(past, past, task.process_task_id);
      expect(changed.changes).toBe(1);
    } finally {
      db.close();
    }
    // Any task write makes the server's timer read its earliest step again: another appointment is submitted.
    await fileVisitor(contact, { name: uniqueName(page, '触发'), seq: seq + 10, day: day(), phonePrefix: '1390033', idcard: idNumber(seq + 10, '19880808') });

    // Live: no reload, no navigation.
    const reminder = page.getByTestId('notification-item').filter({ hasText: '审批超时提醒' }).filter({ hasText: name });
    await expect(reminder).toBeVisible({ timeout: 15_000 });
    await expect(reminder).toContainText('已超过审批时限1小时');
    await shot(page, 'task-reminder-centre');
    expect(await axeFindings(page, '/notifications 审批超时提醒')).toEqual([]);

    const queue = listScreen(page);
    await queue.open('/approval/person');
    await queue.showOnly('访客姓名', name);
    await expect(queue.row(name).getByText('已超时', { exact: true })).toBeVisible();
    await shot(page, 'task-reminder-queue');
  } finally {
    // Back to the seeded rule, so other specs see 24 hours then approve.
    await call(admin, '/v2/processNode/update', { ...nodeBody, overtimeAutoCheck: 1, overtimeHours: 24 });
    const restored = (await call<Json[]>(admin, '/processNode/all', { name: NODE })).find((n) => n.name === NODE)!;
    expect(restored).toMatchObject({ overtime_auto_check: 1, overtime_hours: 24, deadline_value: 24, auto_action: 1, remind_times: 0 });
  }
});
