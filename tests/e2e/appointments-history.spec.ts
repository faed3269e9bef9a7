import { expect, test, type Page } from '@playwright/test';
import ExcelJS from 'exceljs';
import { base, isPhone, listScreen, shot, signInAs } from './support';

interface CarRow {
  car_application_id: number;
  application_number: string;
  license_plate: string;
  state: number;
  label_status: number;
}

/** Rows of the all-history list straight from the API, to pick which seeded application each step acts on. */
async function carRows(page: Page, token: string, filters: Record<string, unknown> = {}): Promise<CarRow[]> {
  const res = await page.request.post(`${base}/api/carApplications/all/history/list`, {
    headers: { Authorization: `Bearer ${token}` },
    data: { size: 100, pn: 1, ...filters },
  });
  const body = (await res.json()) as { success: boolean; msg: string; data: { list: CarRow[] } };
  expect(body.success, body.msg).toBe(true);
  return body.data.list;
}

const modal = (page: Page) => page.locator('.sm').last();

test('squad flags, rejects, resumes and exports on the vehicle all-history', async ({ page }) => {
  const token = await signInAs(page, 'squad');
  const all = await carRows(page, token);
  const flagged = all.find((r) => r.label_status === 1);
  const reviewing = (await carRows(page, token, { state: 1 }))[0];
  const toFlag = all.find((r) => r.label_status !== 1 && r.car_application_id !== reviewing?.car_application_id);
  expect(flagged, 'the demo seed has a flagged vehicle').toBeTruthy();
  expect(reviewing, 'the demo seed has a vehicle under review').toBeTruthy();
  expect(toFlag, 'the demo seed has an unflagged vehicle').toBeTruthy();

  const list = listScreen(page);
  await list.open('/appointments/car-all-history');
  await shot(page, 'car-all-history');

  // A flagged vehicle's row is red.
  await list.showOnly('预约单号', flagged!.application_number);
  const red = list.rows().first();
  await expect(red).toHaveClass(/ah-flagged/);
  await expect(isPhone(page) ? red : red.locator('td').nth(1)).toHaveCSS('background-color', 'rgb(255, 241, 240)');

  // Flag another one, with the remark required first.
  await list.showOnly('预约单号', toFlag!.application_number);
  await expect(list.rows().first()).not.toHaveClass(/ah-flagged/);
  await list.action(list.rows().first(), '标记');
  await expect(modal(page).getByText(toFlag!.license_plate)).toBeVisible();
  await modal(page).getByRole('button', { name: '标记', exact: true }).click();
  await expect(modal(page).getByText('请输入标记原因')).toBeVisible();
  await modal(page).getByLabel('标记原因').fill('e2e：车辆在装置区违规停放');
  await shot(page, 'car-flag-modal');
  await modal(page).getByRole('button', { name: '标记', exact: true }).click();
  await expect(page.getByText('标记成功')).toBeVisible();
  await expect(list.rows().first()).toHaveClass(/ah-flagged/);

  // Reject one under review (opinion required), then resume it.
  await list.showOnly('预约单号', reviewing!.application_number);
  const row = list.rows().first();
  await expect(row).toContainText('审核中');
  await list.action(row, '驳回');
  await modal(page).getByRole('button', { name: '驳回', exact: true }).click();
  await expect(modal(page).getByText('请输入审批意见')).toBeVisible();
  await modal(page).getByLabel('审批意见').fill('e2e：资料不全，请补充');
  await modal(page).getByRole('button', { name: '驳回', exact: true }).click();
  await expect(page.getByText('驳回成功')).toBeVisible();
  await expect(row).toContainText('已驳回');

  await list.action(row, '继续审批');
  // The phone's confirm dialog, or the desktop's modal of dialog width.
  const dialog = page.locator('.adm-dialog, .sm--desktop').filter({ hasText: '确定继续审批' });
  await expect(dialog.getByText(/确定继续审批/)).toBeVisible();
  await dialog.getByRole('button', { name: '继续审批' }).click();
  await expect(page.getByText('操作成功')).toBeVisible();
  await expect(row).toContainText('审核中');

  // The approval process opens as a drawer / bottom sheet.
  await list.action(row, '审批流程');
  const drawer = page.getByRole('dialog', { name: '审批流程' });
  await expect(drawer.getByText('提交时间')).toBeVisible();
  await expect(drawer.locator('.pt-result--reject').first()).toHaveText('驳回');
  await shot(page, 'car-process-drawer');
  await drawer.getByRole('button', { name: '关闭' }).click();

  // Export with the current filter: an .xlsx that opens and holds the row.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: '导出', exact: true }).click()]);
  expect(download.suggestedFilename()).toMatch(/\.xlsx$/);
  const file = test.info().outputPath('car-all-history.xlsx');
  await download.saveAs(file);
  const book = new ExcelJS.Workbook();
  await book.xlsx.readFile(file);
  const sheet = book.worksheets[0];
  expect(sheet).toBeTruthy();
  const cells: string[] = [];
  sheet.eachRow((r) => r.eachCell((c) => void cells.push(String(c.text ?? ''))));
  expect(cells).toContain(reviewing!.application_number);
});
