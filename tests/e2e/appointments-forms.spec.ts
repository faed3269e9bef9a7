import { expect, test, type Page } from '@playwright/test';
import { formatInZone } from '../../domain/time';
import { addDays } from '../../domain/visit-rules';
import { call, formField, isPhone, listScreen, saveDraft, shot, signInAs, submitForReview } from './support';

const today = () => formatInZone(new Date()).slice(0, 10);
const tag = () => (test.info().project.name === 'phone' ? 'P' : 'D');

const field = formField;
const input = (page: Page, label: string) => field(page, label).locator('input, textarea').first();

/** One value of a select: the native select on desktop, the wheel picker on phones. */
async function pick(page: Page, label: string, option: string) {
  const f = field(page, label);
  if (!isPhone(page)) return f.locator('select').selectOption({ label: option });
  await f.locator('button.pf-trigger').click();
  const item = page.locator('.adm-picker-view-column-item', { hasText: new RegExp(`^${option}$`) });
  await item.dispatchEvent('click');
  await expect(item).toHaveAttribute('data-selected', 'true');
  await page.locator('.adm-picker-header-button', { hasText: '确定' }).click();
  await expect(f.locator('.pf-trigger__text')).toHaveText(option);
}

test('a contact files a person appointment, fixes a visit-time error, saves a draft and submits it from its edit', async ({ page }) => {
  const name = `访客${tag()}${Date.now() % 100000}`;
  await signInAs(page, 'contact');
  const list = listScreen(page);
  await list.open('/appointments/person');

  await page.getByRole('button', { name: /新增预约/ }).click();
  await expect(page.getByRole('dialog').getByText('访客信息')).toBeVisible();
  await input(page, '访客姓名').fill(name);
  await field(page, '性别').getByText('男', { exact: true }).click();
  await input(page, '手机号').fill('13800138000');
  await input(page, '来访单位').fill('惠州市测试工程有限公司');
  await input(page, '证件号码').fill('441302199001011231');
  await field(page, '申请类型').getByText('临时访客', { exact: true }).click();
  await expect(field(page, '申请类型')).toContainText('临时访客：最长10天');
  await input(page, '来访开始时间').fill(addDays(today(), 1));
  await input(page, '来访结束时间').fill(addDays(today(), 20));
  await input(page, '来访事由').fill('设备检修技术交流');
  await input(page, '被访人姓名').fill('王芳');
  await input(page, '被访人电话').fill('13900139000');

  await saveDraft(page);
  await expect(field(page, '来访结束时间').getByText('临时来访时间差不能超过10天')).toBeVisible();
  await shot(page, 'person-form-error');
  // Nothing typed is lost on an error.
  await expect(input(page, '访客姓名')).toHaveValue(name);

  await input(page, '来访结束时间').fill(addDays(today(), 5));
  await saveDraft(page);
  await expect(page.getByText('创建成功！')).toBeVisible();
  await expect(list.row(name)).toBeVisible();
  await expect(list.row(name)).toContainText('草稿');

  // The draft's edit offers the same two buttons; 提交审核 saves and submits in one step (issue 24 item 1).
  await list.action(name, '编辑');
  await expect(input(page, '访客姓名')).toHaveValue(name);
  await shot(page, 'person-form-edit');
  await submitForReview(page);
  await expect(page.getByText('提交成功！')).toBeVisible();
  await expect(list.row(name)).toContainText('审核中');
  await shot(page, 'person-applications');
});

test('a person appointment filed with 提交审核 is submitted at once; one refused at submit stays a draft and says why', async ({ page }) => {
  const admin = await signInAs(page, 'admin');
  // The seed's in-force black list names 邓国平; lists show his number masked, so the administrator reveals it (pii:view, with a reason).
  const listed = await call<{ list: Array<{ id: number; name: string; status: number }> }>(admin, '/personBlackWhiteList/list', { size: 10, pn: 1, name: '邓国平' });
  const entry = listed.list.find((r) => r.status === 2)!;
  const { value: idcard } = await call<{ value: string }>(admin, '/pii/reveal', { record: 'person_black_white_list', id: entry.id, field: 'idcard', reason: '测试黑名单拦截' });
  await signInAs(page, 'contact');
  const list = listScreen(page);
  await list.open('/appointments/person');

  for (const [visitor, number] of [
    [`访客${tag()}${Date.now() % 100000}`, '441302199001011231'],
    ['邓国平', idcard],
  ] as const) {
    await page.getByRole('button', { name: /新增预约/ }).click();
    await expect(page.getByRole('dialog').getByText('访客信息')).toBeVisible();
    await input(page, '访客姓名').fill(visitor);
    await field(page, '性别').getByText('男', { exact: true }).click();
    await input(page, '手机号').fill('13800138000');
    await input(page, '来访单位').fill('惠州市测试工程有限公司');
    await input(page, '证件号码').fill(number);
    await field(page, '申请类型').getByText('临时访客', { exact: true }).click();
    await input(page, '来访开始时间').fill(addDays(today(), 1));
    await input(page, '来访结束时间').fill(addDays(today(), 3));
    await input(page, '来访事由').fill('设备检修技术交流');
    await input(page, '被访人姓名').fill('王芳');
    await input(page, '被访人电话').fill('13900139000');
    await submitForReview(page);
    if (visitor !== '邓国平') {
      await expect(page.getByText('提交成功！')).toBeVisible();
      await expect(list.row(visitor).first()).toContainText('审核中');
      continue;
    }
    // Saved, then refused at submit: the draft stays, and the message says both and why.
    const notice = page.getByRole('dialog').filter({ hasText: '已保存为草稿，未提交审核' });
    await expect(notice).toContainText(`提交失败：该申请人（邓国平，证件号${idcard}）在黑名单中，不能提交`);
    await shot(page, 'person-form-refused-at-submit');
    await notice.getByRole('button', { name: '知道了' }).click();
    await expect(list.row('邓国平').first()).toContainText('草稿');
  }
});

test('a contact files a car appointment; the blind-video photo field follows the vehicle model', async ({ page }) => {
  const plate = `粤L${tag() === 'P' ? 'P' : 'D'}${String(Date.now() % 10000).padStart(4, '0')}`;
  await signInAs(page, 'contact');
  const list = listScreen(page);
  await list.open('/appointments/car');

  await page.getByRole('button', { name: /新增预约/ }).click();
  await expect(page.getByRole('dialog').getByText('申请人信息')).toBeVisible();
  await input(page, '申请人姓名').fill('李建国');
  await field(page, '性别').getByText('男', { exact: true }).click();
  await input(page, '证件号码').fill('441302199001011231');
  await input(page, '手机号').fill('13800138001');
  await field(page, '申请类型').getByText('临时', { exact: true }).click();
  await input(page, '来访单位').fill('惠州市测试运输有限公司');
  await input(page, '被访人姓名').fill('王芳');
  await input(page, '被访人电话').fill('13900139000');
  await input(page, '来访开始时间').fill(addDays(today(), 3));
  await input(page, '来访结束时间').fill(addDays(today(), 4));
  await input(page, '来访事由').fill('运送检修备件');
  await input(page, '车牌号').fill(plate);

  await pick(page, '车型', '小型汽车');
  await expect(field(page, '盲区视频监控图片')).toHaveCount(0);
  await pick(page, '车型', '中型客车');
  await expect(field(page, '盲区视频监控图片')).toBeVisible();
  await saveDraft(page);
  await expect(field(page, '盲区视频监控图片').getByText('请上传盲区视频监控图片')).toBeVisible();
  await shot(page, 'car-form-blind-video');

  await pick(page, '车型', '小型汽车');
  await expect(field(page, '盲区视频监控图片')).toHaveCount(0);
  await saveDraft(page);
  await expect(page.getByText('创建成功！')).toBeVisible();
  await expect(list.row(plate)).toContainText('草稿');
  await shot(page, 'car-applications');
});

test('a hazardous-goods appointment takes its cargo from one of the contact’s approved waybills, and says the model needs registration', async ({ page }) => {
  await signInAs(page, 'contact');
  const list = listScreen(page);
  await list.open('/appointments/car');
  await page.getByRole('button', { name: /新增预约/ }).click();
  await expect(page.getByRole('dialog').getByText('申请人信息')).toBeVisible();
  await pick(page, '车型', '危险化学品运输车');
  await expect(page.getByText('该车型需已备案且备案有效期覆盖来访日期，否则无法提交')).toBeVisible();
  await field(page, '货物类型').getByText('危险货物', { exact: true }).click();
  // The demo seed approved two of the contact's waybills; the first one's cargo fills the section.
  const picker = field(page, '从运单带入');
  await expect(picker).toBeVisible();
  if (isPhone(page)) {
    await picker.locator('button.pf-trigger').click();
    // The wheel opens on the newest waybill; the model's picker stays mounted behind it.
    await page.locator('.adm-picker-header-button', { hasText: '确定' }).last().click();
  } else await picker.locator('select').selectOption({ index: 1 });
  await expect(page.locator('#af-cargo_info-cargo_name')).not.toHaveValue('');
  await expect(page.locator('#af-cargo_info-driver')).not.toHaveValue('');
  await shot(page, 'car-form-waybill-cargo');
});
