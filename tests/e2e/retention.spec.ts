import { expect, test } from '@playwright/test';
import { call, shot, signInAs } from './support';

/**
 * 系统设置 → 数据保留 at both sizes: the administrator sees each class at its default, is refused a gate-records
 * period under 180 days with the rule named, saves a valid change, previews, runs a clean-up now and sees its
 * proof; a reader without the menu's code has no such screen and the calls are refused.
 */

const DEFAULTS = { photos: 30, visitor_fields: 180, gate_images: 90, gate_rows: 365, waybills: 366, logs: 1096 };

test('an administrator sees the defaults, is refused under a minimum, saves a change, previews, runs and sees the proof', async ({ page }) => {
  const token = await signInAs(page, 'admin');
  // The specs of a worker share its server: start from the defaults whatever an earlier run left.
  await call(token, '/retention/policy', DEFAULTS);
  await page.goto('/settings/retention');

  const gateRows = page.getByLabel('过闸记录保留期限');
  await expect(gateRows).toHaveValue('365');
  await expect(page.getByLabel('证件与人脸照片保留期限')).toHaveValue('30');
  await expect(page.getByLabel('访客个人信息保留期限')).toHaveValue('180');
  await expect(page.getByLabel('过闸图片保留期限')).toHaveValue('90');
  await expect(page.getByLabel('运单保留期限')).toHaveValue('366');
  await expect(page.getByLabel('日志保留期限')).toHaveValue('1096');
  // The floors are shown beside their classes with the law behind them.
  await expect(page.getByText('不少于 180 天')).toBeVisible();
  await expect(page.getByText('依据：《视频安防监控系统工程设计规范》GB 50396')).toBeVisible();
  await expect(page.getByText(/依据：《危险货物道路运输安全管理办法》/)).toBeVisible();
  await shot(page, 'retention');

  // Under the floor: refused under the field, naming it and the rule, and nothing saved.
  await gateRows.fill('100');
  await page.getByRole('button', { name: '保存', exact: true }).click();
  await expect(page.getByRole('alert').filter({ hasText: '过闸记录保留期限不能少于 180 天（GB 50396）' })).toBeVisible();
  await shot(page, 'retention-refused');
  expect((await call<{ classes: Array<{ key: string; days: number }> }>(token, '/retention/policy', undefined, 'GET')).classes.find((c) => c.key === 'gate_rows')!.days).toBe(365);

  // A valid period saves, and says who changed it.
  await gateRows.fill('200');
  await page.getByRole('button', { name: '保存', exact: true }).click();
  await expect(page.getByText('保存成功！')).toBeVisible();
  await expect(page.getByText(/系统管理员 于 \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} 修改/)).toBeVisible();
  expect((await call<{ classes: Array<{ key: string; days: number }> }>(token, '/retention/policy', undefined, 'GET')).classes.find((c) => c.key === 'gate_rows')!.days).toBe(200);

  // 预览 counts what a run would take now, class by class.
  await page.getByRole('button', { name: '预览', exact: true }).click();
  const preview = page.getByTestId('retention-preview');
  await expect(preview).toBeVisible();
  await expect(preview.getByText('过闸记录', { exact: true })).toBeVisible();
  await expect(preview.getByText(/将处理/).first()).toBeVisible();

  // 立即清理 asks first, then runs and shows its proof.
  await page.getByRole('button', { name: '立即清理', exact: true }).click();
  const dialog = page.getByRole('dialog').filter({ hasText: '确定立即清理吗？' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: '立即清理', exact: true }).click();
  await expect(page.getByText(/^清理完成：共处理 \d+ 条$/)).toBeVisible({ timeout: 60_000 });
  const proof = page.getByTestId('retention-proof');
  await expect(proof.getByText('立即清理（系统管理员）')).toBeVisible();
  await expect(proof.getByText('过闸记录', { exact: true })).toBeVisible();
  await expect(proof.getByText(/已处理/).first()).toBeVisible();
  await expect(proof.getByText(/200 天/).first()).toBeVisible();
  await page.getByTestId('retention-proof').scrollIntoViewIfNeeded();
  await shot(page, 'retention-proof');

  await call(token, '/retention/policy', DEFAULTS);
});

test('the security lead has no 数据保留 screen and its calls are refused', async ({ page }) => {
  const token = await signInAs(page, 'lead');
  await page.goto('/settings/retention');
  await expect(page.getByText('没有访问权限')).toBeVisible();
  await expect(page.getByRole('button', { name: '立即清理' })).toHaveCount(0);
  for (const [path, method] of [
    ['/api/retention/policy', 'GET'],
    ['/api/retention/run', 'POST'],
  ] as const) {
    const r = await fetch(new URL(path, page.url()), { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined });
    expect(r.status, path).toBe(403);
  }
});
