import { expect, test } from '@playwright/test';
import { call, fileVehicle, formField as field, isPhone, listScreen, randomPlate, saveDraft, shot, signInAs, submitForReview, upload } from './support';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toLocaleDateString('sv-SE', { timeZone: 'Asia/Shanghai' });

test('a registration goes from draft to approved; then a need-record vehicle of that plate may be booked and another plate may not', async ({ page }) => {
  const plate = randomPlate();
  const visit = day(4);
  const contact = await signInAs(page, 'contact');
  const { id } = await call<{ id: number }>(contact, '/vehicleRegistration/save', {
    license_plate: plate,
    license_plate_color: 1,
    visit_area: 1,
    visitor_company: '惠州测试物流有限公司',
    phone: '13900007777',
    total_mass: 31,
    begin_time: day(1),
    end_time: day(60),
  });
  const list = listScreen(page);
  await list.open('/vehicles/registration');
  await expect(list.row(plate)).toContainText('草稿');
  await list.action(plate, '提交');
  await page.getByRole('button', { name: '确定' }).last().click();
  await expect(page.getByText('提交成功！')).toBeVisible();
  await expect(list.row(plate)).toContainText('审核中');
  await shot(page, 'registration-list');

  for (const account of ['hazard', 'squad']) {
    await signInAs(page, account);
    await list.open('/approval/registration');
    await list.action(plate, '审核');
    const review = page.getByRole('dialog').last();
    await expect(review.locator('#rv-remark')).toHaveValue('审批通过。');
    if (account === 'squad') await shot(page, 'registration-review');
    await review.getByRole('button', { name: isPhone(page) ? '同意' : '确定', exact: true }).click();
    await expect(page.getByText('审核成功！')).toBeVisible();
    await expect(list.row(plate)).toHaveCount(0);
  }
  const row = await call<{ state: number }>(contact, `/vehicleRegistration/detail?id=${id}`, undefined, 'GET');
  expect(row.state).toBe(2);

  // A large bus (need_record = 1) of the registered plate is accepted; another plate, unregistered, is refused naming it.
  const photo = await upload(contact);
  const trip = { model: '大型客车', seq: Date.now() % 900, day: visit, driver: '王五', company: '惠州示例客运有限公司', content: '接送检修人员', phonePrefix: '1391235', register: false };
  await expect(fileVehicle(contact, { ...trip, extra: { license_plate: plate, blind_video_photo: photo, register_record_photo: photo } })).resolves.toMatchObject({ plate });
  const other = randomPlate();
  await expect(fileVehicle(contact, { ...trip, seq: trip.seq + 1, extra: { license_plate: other, blind_video_photo: photo, register_record_photo: photo } })).rejects.toThrow(
    `车辆（${other}）未备案或备案不在来访日期内，不能提交`,
  );
});

test('the registration form: 提交审核 files a registration under review, 保存草稿 a draft', async ({ page }) => {
  await signInAs(page, 'contact');
  const list = listScreen(page);
  await list.open('/vehicles/registration');
  for (const [plate, press, state] of [
    [randomPlate(), submitForReview, '审核中'],
    [randomPlate(), saveDraft, '草稿'],
  ] as const) {
    await page.getByRole('button', { name: /新增车辆备案/ }).click();
    await field(page, '车牌号').locator('input').fill(plate);
    await field(page, '备案园区').getByText('化工区', { exact: true }).click();
    await field(page, '来访单位').locator('input').fill('惠州测试物流有限公司');
    await field(page, '手机号').locator('input').fill('13900007777');
    await field(page, '总质量').locator('input').fill('31');
    const dates = field(page, '备案有效期').locator('input');
    await dates.nth(0).fill(day(1));
    await dates.nth(1).fill(day(60));
    if (state === '审核中') await shot(page, 'registration-form');
    await press(page);
    await expect(page.getByText(state === '审核中' ? '提交成功！' : '创建成功！')).toBeVisible();
    await expect(list.row(plate)).toContainText(state);
  }
});
