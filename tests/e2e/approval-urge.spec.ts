import { expect, test, type Locator, type Page } from '@playwright/test';
import { formatInZone } from '../../domain/time';
import { addDays } from '../../domain/visit-rules';
import { axeFindings } from './a11y-checks';
import { fileVisitor, idNumber, isPhone, listScreen, shot, signInAs } from './support';

/**
 * 催办 (docs/approvals.md) at both sizes: the enterprise contact files and
 * submits a person appointment (API), urges it from 人员预约列表 and is told
 * the reviewer was notified; a second urge at once is refused with the
 * server's words (429: 每30分钟只能催办一次，请于HH:MM后再试). The reviewer then
 * sees 已催办 1 次 on the task in 人员预约审核, and 已超时 once its deadline
 * has passed.
 */

const NAME_CHARS = '伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂';
/** A visitor of this run and size: the two projects' servers share nothing, but a rerun's names never repeat either. */
const visitorName = (page: Page) => `催${isPhone(page) ? '甲' : '乙'}${Array.from({ length: 2 }, () => NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)]).join('')}`;

/** A row's action, shot while it is offered: the row's own button, or the 更多 menu (phone action sheet, desktop popover) it sits in. */
async function rowAction(page: Page, row: Locator, name: string, shotName?: string) {
  const direct = row.getByRole('button', { name, exact: true });
  if (await direct.count()) {
    if (shotName) await shot(page, shotName);
    return direct.click();
  }
  await row.getByRole('button', { name: /更多/ }).click();
  const menu = isPhone(page) ? page.locator('.adm-action-sheet') : page.locator('.adm-popover');
  const item = menu.getByText(name, { exact: true });
  await expect(item).toBeVisible();
  if (shotName) await shot(page, shotName);
  await item.click();
}

test('the applicant urges an application under review once; the reviewer sees it on the task', async ({ page }) => {
  test.setTimeout(120_000);
  const phone = isPhone(page);
  const name = visitorName(page);
  const contact = await signInAs(page, 'contact');
  await fileVisitor(contact, {
    name,
    seq: phone ? 1 : 2,
    day: addDays(formatInZone(new Date()), 2),
    phonePrefix: '1377707',
    idcard: idNumber(phone ? 1 : 2, '19770707'),
  });

  // ---------------------------------------------------------------- the applicant: 催办, then at once again
  const list = listScreen(page);
  await list.open('/appointments/person');
  // 人员预约列表 on a desktop; a phone's title bar says 人员预约.
  await expect(page.getByText(phone ? /^人员预约$/ : '人员预约列表').first()).toBeVisible();
  await list.showOnly('访客姓名', name);
  const row = list.row(name);
  await expect(row).toContainText('审核中');
  await rowAction(page, row, '催办', 'urge-action');
  await expect(page.getByText('催办成功，已通知审核人')).toBeVisible();
  // The loading toast gone and the menu closed: the shot shows the answer alone.
  await expect(page.getByText('处理中…')).toHaveCount(0);
  await shot(page, 'urge-done');
  // Wait for the first toast to go, so the refusal is the one on screen.
  await expect(page.getByText('催办成功，已通知审核人')).toHaveCount(0);
  await rowAction(page, list.row(name), '催办');
  const refusal = page.getByText(/^催办失败：每30分钟只能催办一次，请于\d{2}:\d{2}后再试$/);
  await expect(refusal).toBeVisible();
  await expect(page.getByText('处理中…')).toHaveCount(0);
  await shot(page, 'urge-refused');
  await expect(refusal).toHaveCount(0, { timeout: 10_000 });
  expect(await axeFindings(page, '/appointments/person 催办')).toEqual([]);

  // ---------------------------------------------------------------- the reviewer: 已催办 1 次 on the task
  await signInAs(page, 'reviewer');
  await list.open('/approval/person');
  const task = list.row(name);
  await expect(task).toBeVisible();
  await expect(task.getByText('已催办 1 次', { exact: true })).toBeVisible();
  await expect(task.getByText('已超时', { exact: true })).toHaveCount(0);
  await shot(page, 'urge-queue');
  expect(await axeFindings(page, '/approval/person 已催办')).toEqual([]);

  // No node's deadline passes within a test: the answer is given one an hour ago, to show 已超时 beside 已催办.
  await page.route('**/api/personApplications/task/page', async (route) => {
    const res = await route.fetch();
    const body = (await res.json()) as { data: { list: Array<{ due_at: number | null; personApplication?: { visitor_name: string } }> } };
    for (const t of body.data.list) if (t.personApplication?.visitor_name === name) t.due_at = Date.now() - 3_600_000;
    await route.fulfill({ response: res, json: body });
  });
  await list.open('/approval/person');
  await expect(list.row(name).getByText('已超时', { exact: true })).toBeVisible();
  await expect(list.row(name).getByText('已催办 1 次', { exact: true })).toBeVisible();
  await shot(page, 'urge-queue-overdue');
  expect(await axeFindings(page, '/approval/person 已超时')).toEqual([]);
});
