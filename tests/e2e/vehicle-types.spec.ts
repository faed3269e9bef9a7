import { expect, test } from '@playwright/test';
import { formField as field, listScreen, shot, signInAs, submitForm } from './support';

test('adds, edits and deletes a vehicle model, with a validation error on the way', async ({ page }) => {
  const name = `巡检车${test.info().project.name === 'phone' ? 'P' : 'D'}${Date.now() % 100000}`;
  await signInAs(page, 'admin');
  const list = listScreen(page);
  await list.open('/system/vehicle-types');

  await page.getByRole('button', { name: /新增车型/ }).click();
  await field(page, '车型名').locator('input').fill(name);
  await field(page, '车速').locator('input').fill('400');
  for (const label of ['预约是否需要备案', '页面是否显示货物类型', '是否需要判断超重', '是否需要上传盲区视频监控图片']) {
    await field(page, label).getByText('否', { exact: true }).click();
  }
  await submitForm(page);
  await expect(field(page, '车速').getByText('车速范围为0-300 km/h')).toBeVisible();
  await shot(page, 'vehicle-type-error');
  // What was typed stays after the error.
  await expect(field(page, '车型名').locator('input')).toHaveValue(name);

  await field(page, '车速').locator('input').fill('80');
  await submitForm(page);
  await expect(page.getByText('创建车型成功！')).toBeVisible();
  await expect(list.row(name)).toBeVisible();
  await expect(list.row(name)).toContainText('80');

  await list.action(name, '编辑');
  await expect(field(page, '车型名').locator('input')).toHaveValue(name);
  await field(page, '车型名').locator('input').fill(`${name}改`);
  // The stranded-alarm dwell limit: minutes, 1 to 10080, empty meaning the visit's end.
  await field(page, '停留时限').locator('input').fill('0');
  await submitForm(page);
  await expect(field(page, '停留时限').getByText('停留时限范围为1-10080分钟')).toBeVisible();
  await field(page, '停留时限').locator('input').fill('90');
  await field(page, '页面是否显示货物类型').getByText('是', { exact: true }).click();
  await submitForm(page);
  await expect(page.getByText('编辑车型成功！')).toBeVisible();
  await expect(list.row(`${name}改`)).toBeVisible();
  await list.action(`${name}改`, '编辑');
  await expect(field(page, '停留时限').locator('input')).toHaveValue('90');
  await page.getByRole('button', { name: '取消' }).last().click();
  await shot(page, 'vehicle-types');

  await list.action(`${name}改`, '删除');
  await expect(page.getByText('确认删除？')).toBeVisible();
  await page.getByRole('button', { name: '确定' }).last().click();
  await expect(page.getByText('删除成功！')).toBeVisible();
  await expect(list.row(`${name}改`)).toHaveCount(0);
});

test('user management lists the demo users with the department tree filter', async ({ page }) => {
  await signInAs(page, 'admin');
  await page.goto('/system/users');
  await expect(listScreen(page).row('portcontact')).toBeVisible();
  await expect(page.getByText(/共 \d+ 条/).first()).toBeVisible();
  await shot(page, 'users');
});
