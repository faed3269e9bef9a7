import { expect, test } from '@playwright/test';
import { call, fileVehicle, formField as field, isPhone, listScreen, randomPlate, shot, signInAs, submitForm } from './support';

/** A park day (the browser runs in the park's time zone, playwright.config.ts), 'YYYY-MM-DD'. */
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toLocaleDateString('sv-SE', { timeZone: 'Asia/Shanghai' });

test('the lead black-lists a plate, the squad approves it, and the plate can no longer be booked', async ({ page }) => {
  const plate = randomPlate();
  const lead = await signInAs(page, 'lead');
  const list = listScreen(page);
  await list.open('/vehicles/car-list');

  await page.getByRole('button', { name: /新增车辆黑白名单/ }).click();
  await field(page, '车牌号').locator('input').fill(plate);
  await field(page, '名单类型').getByText('黑名单').click();
  // The pickers start at today (spec 001 §5).
  const dates = field(page, '有效期').locator('input');
  await expect(dates.first()).toHaveAttribute('min', day(0));
  await dates.nth(0).fill(day(0));
  await dates.nth(1).fill(day(30));
  await field(page, '原因').locator('textarea').first().fill('多次闯卡');
  await shot(page, 'car-list-form');
  await submitForm(page);
  await expect(page.getByText('创建成功！')).toBeVisible();
  await expect(list.row(plate)).toContainText('草稿');

  await list.action(plate, '提交');
  await page.getByRole('button', { name: '确定' }).last().click();
  await expect(page.getByText('提交成功！')).toBeVisible();
  await expect(list.row(plate)).toContainText('审核中');
  await shot(page, 'car-list');

  await signInAs(page, 'squad');
  await list.open('/approval/car-list');
  await expect(list.row(plate)).toBeVisible();
  await list.action(plate, '审核');
  const review = page.getByRole('dialog').last();
  await expect(review.getByRole('radiogroup', { name: '审核结果' })).toBeVisible();
  await expect(review.locator('#rv-remark')).toHaveValue('审批通过。');
  await shot(page, 'car-list-review');
  await review.getByRole('button', { name: isPhone(page) ? '同意' : '确定', exact: true }).click();
  await expect(page.getByText('审核成功！')).toBeVisible();
  await expect(list.row(plate)).toHaveCount(0);

  const entries = await call<{ list: Array<{ license_plate: string; status: number }> }>(lead, '/carBlackWhiteList/list', { size: 10, pn: 1, license_plate: plate });
  expect(entries.list[0]?.status).toBe(2);
  // In force: the contact's appointment for that plate is refused at submit, naming the plate.
  const contact = await signInAs(page, 'contact');
  await expect(
    fileVehicle(contact, { model: '小型汽车', seq: Date.now() % 900, day: day(4), driver: '王五', company: '惠州示例物流有限公司', content: '送货', phonePrefix: '1391234', extra: { license_plate: plate } }),
  ).rejects.toThrow(`该车辆（${plate}）在黑名单中，不能提交`);
});

test('the person list and its approval queue render their columns', async ({ page }) => {
  await signInAs(page, 'squad');
  await page.goto('/approval/person-list');
  await expect(page.getByText('人员黑白名单审核').first()).toBeVisible();
  await shot(page, 'person-list-queue');
  await signInAs(page, 'lead');
  await page.goto('/vehicles/person-list');
  await expect(page.getByRole('button', { name: /新增人员黑白名单/ })).toBeVisible();
  if (!isPhone(page)) for (const head of ['姓名', '证件号码', '名单类型', '有效期', '状态']) await expect(page.locator('.dtb thead').getByText(head, { exact: true })).toBeVisible();
  await shot(page, 'person-list');
});
