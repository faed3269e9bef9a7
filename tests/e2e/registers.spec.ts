import { expect, test } from '@playwright/test';
import { formField as field, isPhone, listScreen, shot, signInAs, submitForm } from './support';

const tag = () => (test.info().project.name === 'phone' ? 'P' : 'D');

test('the department tree: add a department and a child, refuse deleting a parent, delete both', async ({ page }) => {
  const code = `E2E_${tag()}${Date.now() % 100000}`;
  await signInAs(page, 'admin');
  const list = listScreen(page);
  await list.open('/system/departments');
  await expect(list.row('中海壳牌石油化工有限公司')).toBeVisible();

  await page.getByRole('button', { name: /新增部门/ }).click();
  await field(page, '部门名称').locator('input').fill(`巡检部${code}`);
  await field(page, '部门编码').locator('input').fill('bad code');
  await field(page, '所属区域').getByText('化工区和港区').click();
  await submitForm(page);
  await expect(field(page, '部门编码').getByText('仅限阿拉伯数字、英文字母')).toBeVisible();
  await field(page, '部门编码').locator('input').fill(code);
  await submitForm(page);
  await expect(page.getByText('创建成功！')).toBeVisible();
  await expect(list.row(`巡检部${code}`)).toBeVisible();

  await list.action(`巡检部${code}`, '新增下级');
  await field(page, '部门名称').locator('input').fill(`巡检一组${code}`);
  await field(page, '部门编码').locator('input').fill(`${code}_1`);
  await submitForm(page);
  await expect(page.getByText('创建成功！').last()).toBeVisible();
  // The child sits under its parent, indented.
  await expect(list.row(`巡检一组${code}`)).toContainText('└');
  await shot(page, 'departments');

  await list.action(`巡检部${code}`, '删除');
  await page.getByRole('button', { name: '确定' }).last().click();
  await expect(page.getByText(/该部门下还有下级部门/)).toBeVisible();
  for (const name of [`巡检一组${code}`, `巡检部${code}`]) {
    await list.action(name, '删除');
    await page.getByRole('button', { name: '确定' }).last().click();
    await expect(list.row(name)).toHaveCount(0);
  }
});

test('equipment: every kind lists its seeded devices; a gate is added, found by number, edited and deleted', async ({ page }) => {
  const number = `E2E-${tag()}${Date.now() % 100000}`;
  await signInAs(page, 'admin');
  const list = listScreen(page);
  for (const [route, device] of [
    ['/devices/bumping-post', '西门防撞柱'],
    ['/devices/tire-breaker', '西门破胎器'],
    ['/devices/lifting-pillar', '北门升降防撞柱'],
    ['/devices/security-lane', '西门安检通道'],
    ['/devices/car-scale', '东门地磅'],
    ['/devices/car-face', '巡逻车人脸识别'],
  ] as const) {
    await list.open(route);
    await expect(list.row(device)).toBeVisible();
  }

  await list.open('/devices/gate');
  // Other specs add gates of their own, which can push a seeded one off the first page.
  await list.showOnly('设备编号', 'GATE-W-01');
  await expect(list.row('西门车辆道闸1')).toBeVisible();
  await page.getByRole('button', { name: /新增/ }).first().click();
  await field(page, '设备名称').locator('input').fill('测试道闸');
  await field(page, '设备编号').locator('input').fill('GATE-W-01');
  await field(page, '道闸类型').getByText('车辆道闸').click();
  // 入口归属 names the park the entrance leads into (docs/decisions.md, issue 26).
  await field(page, '入口归属').getByText('港区', { exact: true }).click();
  await field(page, '是否安检').getByText('是', { exact: true }).click();
  await field(page, '适用临时预约').getByText('否', { exact: true }).click();
  await field(page, '经度').locator('input').fill('114.52');
  await field(page, '纬度').locator('input').fill('22.74');
  await submitForm(page);
  // A number another device holds is refused, and what was typed stays.
  await expect(page.getByText(/设备编号“GATE-W-01”已存在/)).toBeVisible();
  await field(page, '设备编号').locator('input').fill(number);
  await submitForm(page);
  await expect(page.getByText('创建成功！')).toBeVisible();

  await list.showOnly('设备编号', number);
  await expect(list.row('测试道闸')).toContainText(isPhone(page) ? '离线' : '港区');
  await shot(page, 'equipment-gate');
  await list.action('测试道闸', '编辑');
  await field(page, '设备名称').locator('input').fill('测试道闸改');
  await submitForm(page);
  await expect(page.getByText('编辑成功！')).toBeVisible();
  await expect(list.row('测试道闸改')).toBeVisible();
  await list.action('测试道闸改', '删除');
  await page.getByRole('button', { name: '确定' }).last().click();
  await expect(page.getByText('删除成功！')).toBeVisible();
  await expect(list.row('测试道闸改')).toHaveCount(0);
});
