import { expect, test } from '@playwright/test';
import { formatInZone } from '../../domain/time';
import { addDays, dateOf } from '../../domain/visit-rules';
import { isDesktop, shot, signInAs } from './support';

/**
 * The report screen (issue 26 item 2) at both sizes: one declaration drawn
 * by the one screen, its defaults (the last 7 days, park 1 for 车辆进出统计),
 * its chart, the rows paged on the client, a filter that changes them, and
 * the export named from the filters; 审批统计's date defaults to yesterday.
 */
test('a report shows its defaults, chart and rows, filters and exports', async ({ page }) => {
  await signInAs(page, 'patrol');
  await page.goto('/statistics/vehicle-in-out');
  const report = page.getByTestId('report-vehicleInOut');
  await expect(report).toBeVisible({ timeout: 30_000 });
  const today = dateOf(formatInZone(new Date()));
  const first = addDays(today, -6);

  // Seven days ending today, each a row: a table on a desktop, cards on a phone.
  const rows = isDesktop(page) ? report.locator('tbody tr') : report.locator('.cl-card');
  await expect(rows).toHaveCount(7);
  await expect(rows.first()).toContainText(first);
  await expect(rows.last()).toContainText(today);
  // The demo's gates have traffic every day: the chart is drawn with its bars.
  await expect(page.getByTestId('report-chart').locator('svg.recharts-surface .recharts-bar-rectangle path').first()).toBeAttached({ timeout: 15_000 });
  await expect(report.locator('.adm-selector-item-active')).toHaveText('化工区');
  await shot(page, 'report-vehicle-in-out');

  // Another park and search: the figures change to that park's.
  const table = isDesktop(page) ? report.locator('tbody') : report.locator('.cl');
  const before = await table.textContent();
  await report.getByText('港区', { exact: true }).click();
  await report.getByRole('button', { name: '查询' }).click();
  await expect(table).not.toHaveText(before ?? '');

  const [download] = await Promise.all([page.waitForEvent('download'), report.getByRole('button', { name: '导出' }).click()]);
  expect(download.suggestedFilename()).toBe(`车辆进出统计_${first}至${today}_港区.xlsx`);

  // 审批统计: a day's report whose date starts at yesterday and cannot be cleared.
  await page.goto('/statistics/approval');
  const approval = page.getByTestId('report-approval');
  await expect(approval).toBeVisible();
  await expect(approval.getByRole('textbox', { name: '日期' }).first()).toHaveValue(addDays(today, -1));
  const [named] = await Promise.all([page.waitForEvent('download'), approval.getByRole('button', { name: '导出' }).click()]);
  expect(named.suggestedFilename()).toBe('审批统计导出.xlsx');
});
