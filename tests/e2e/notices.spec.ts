import { expect, test, type Browser, type Page, type TestInfo } from '@playwright/test';
import { cutTableCells } from './fit-checks';
import { PDF, PNG, call, formField as field, isPhone, listScreen, pickDepartment, shellDepartment, shot, signInAs, submitForm } from './support';

// This spec exercises the service worker, which the config blocks elsewhere.
test.use({ serviceWorkers: 'allow' });

/**
 * 通知公告 (issue 27 part 1) at both sizes: the security lead writes a notice
 * for 中海壳牌 with two attachments chosen in its form (a failed save keeps them) and enables it; 王芳, who works there, finds
 * it on her home screen, reads it with its picture and its PDF drawn in the page, and still reads it offline;
 * the lead's list then counts it delivered to the company's people and read by one.
 */

/** Another person on a device of the same kind as the test's. */
async function otherDevice(browser: Browser, info: TestInfo): Promise<Page> {
  const u = info.project.use;
  const context = await browser.newContext({
    viewport: u.viewport,
    isMobile: u.isMobile,
    hasTouch: u.hasTouch,
    deviceScaleFactor: u.deviceScaleFactor,
    locale: u.locale,
    timezoneId: u.timezoneId,
    baseURL: u.baseURL,
  });
  return context.newPage();
}

/** The PDF attachment is drawn in the page (pdf.js), not handed to the browser's viewer: its blue square is on the canvas. */
async function expectPdfDrawn(reader: Page) {
  const pageOne = reader.getByLabel('检修区域图.pdf 第1页');
  await expect(pageOne).toBeVisible();
  await expect
    .poll(() =>
      pageOne.evaluate((canvas: HTMLCanvasElement) => {
        const { data } = canvas.getContext('2d')!.getImageData(Math.floor(canvas.width / 2), Math.floor(canvas.height / 2), 1, 1);
        return [data[0], data[1], data[2]];
      }),
    )
    .toEqual([0, 102, 255]);
}

test('a notice, once enabled, reaches a user of a listed department, who reads it online and offline', async ({ page, browser }, info) => {
  // Two devices, a service worker install and an offline reload: on a loaded 2-core machine it has taken over 2 minutes.
  test.setTimeout(180_000);
  const title = `检修停电通知${Date.now() % 1_000_000}`;
  const token = await signInAs(page, 'lead');
  const list = listScreen(page);
  // The list may be empty at first (no '共 N 条' then): the screen is there once its add button is.
  await page.goto('/system/notices');
  await expect(page.getByRole('button', { name: '新增通知' })).toBeVisible();

  await page.getByRole('button', { name: '新增通知' }).click();
  await field(page, '标题').locator('input').fill(title);
  await field(page, '内容').locator('textarea').first().fill('11月30日 8:00-12:00 港区北门检修，车辆请改走西门。\n请各单位提前安排。');
  await pickDepartment(page, '通知部门', '中海壳牌', '添加部门');
  // Attachments go with the new notice, chosen in its form before the first save.
  const chosen = page.getByLabel('已选附件');
  await page.getByLabel('选择附件').setInputFiles({ name: '绕行路线.png', mimeType: 'image/png', buffer: PNG });
  await expect(chosen).toContainText('绕行路线.png');
  await page.getByLabel('选择附件').setInputFiles({ name: '检修区域图.pdf', mimeType: 'application/pdf', buffer: PDF });
  await expect(chosen).toContainText('检修区域图.pdf');
  await shot(page, 'notice-form');
  // A save that fails keeps the whole form, its files included, for the next try.
  await page.route(
    '**/api/notice/save',
    (route) => route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ success: false, code: 503, msg: '服务暂不可用，请稍后重试', data: null }) }),
    { times: 1 },
  );
  await submitForm(page);
  await expect(page.getByText(/创建错误：服务暂不可用/)).toBeVisible();
  await expect(field(page, '标题').locator('input')).toHaveValue(title);
  await expect(chosen).toContainText('绕行路线.png');
  await expect(chosen).toContainText('检修区域图.pdf');
  await submitForm(page);
  await expect(page.getByText('创建成功！')).toBeVisible();
  await list.showOnly('标题', title);
  await expect(list.row(title)).toContainText('草稿');
  await shot(page, 'notices');

  // Both were saved with it.
  await list.action(title, '附件');
  await expect(page.getByLabel('附件列表')).toContainText('绕行路线.png');
  await expect(page.getByLabel('附件列表')).toContainText('检修区域图.pdf');
  await shot(page, 'notice-attachments');
  if (isPhone(page)) await page.getByRole('button', { name: '返回' }).last().click();
  else await page.keyboard.press('Escape');
  await expect(page.locator('.sm')).toHaveCount(0);

  await list.action(title, '启用');
  await page.getByRole('dialog').getByRole('button', { name: '确定' }).click();
  await expect(page.getByText('修改状态成功')).toBeVisible();
  // The state reads as a state, apart from the 启用 and 停用 buttons.
  await expect(list.row(title).locator('.ls-tag')).toHaveText('已启用');
  // 王芳 and 李强 at least (other tests may add people to 中海壳牌).
  await expect(list.row(title)).toContainText(/送达 [2-9]\d* · 已读 0/);
  if (!isPhone(page)) {
    // At 1440 the list shows every cell whole, 送达情况 and the times included, within the page: beside it a draft
    // (five actions, 注意事项) and a disabled notice, each for one department as this one.
    const seq = Date.now() % 1_000_000;
    const departList = [await shellDepartment(token)];
    await call(token, '/notice/save', { title: `停车场施工提示${seq}`, type: 2, content: '施工期间请绕行。', departList });
    const { notice_id } = await call<{ notice_id: number }>(token, '/notice/save', { title: `访客登记须知${seq}`, type: 1, content: '请提前登记。', departList });
    await call(token, '/notice/updateStatus', { noticeId: notice_id, status: 1 });
    await call(token, '/notice/updateStatus', { noticeId: notice_id, status: 2 });
    await page.locator('.ff').getByRole('button', { name: '重置' }).click();
    await expect(list.row(`停车场施工提示${seq}`)).toBeVisible();
    await expect(list.rows().first()).toBeVisible();
    expect(await cutTableCells(page.locator('.dtb'))).toEqual([]);
    await shot(page, 'notices-all');
  }
  // Enabled: no editing or deleting until it is disabled again.
  await expect(list.row(title).getByRole('button', { name: '编辑', exact: true })).toHaveCount(0);

  const reader = await otherDevice(browser, info);
  await signInAs(reader, 'contact');
  await reader.goto('/');
  const card = reader.getByTestId('unread-notices');
  await expect(card).toContainText(title);
  await shot(reader, 'home-unread-notices');
  await card.getByRole('link', { name: new RegExp(title) }).click();
  await expect(reader).toHaveURL(/\/notices\?open=\d+/);
  await expect(reader.getByRole('heading', { name: title })).toBeVisible();
  await expect(reader.getByText('港区北门检修，车辆请改走西门。')).toBeVisible();
  await expect(reader.getByRole('img', { name: '绕行路线.png' })).toBeVisible();
  await expectPdfDrawn(reader);
  await shot(reader, 'notice-reader');

  // Opened once, it reads without a network: the text from the worker's read copy, the picture from the notice file copy.
  await reader.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  await expect.poll(() => reader.evaluate(() => !!navigator.serviceWorker.controller), { timeout: 15_000 }).toBe(true);
  await reader.reload();
  await expect(reader.getByRole('img', { name: '绕行路线.png' })).toBeVisible();
  await expect.poll(() => reader.evaluate(async () => (await (await caches.open('notice-files')).keys()).length)).toBeGreaterThan(0);
  await reader.context().setOffline(true);
  await reader.reload();
  await expect(reader.getByRole('heading', { name: title })).toBeVisible();
  await expect(reader.getByRole('img', { name: '绕行路线.png' })).toHaveJSProperty('complete', true);
  expect(await reader.getByRole('img', { name: '绕行路线.png' }).evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  await expectPdfDrawn(reader);
  await reader.context().setOffline(false);

  // Read: it leaves her home's unread notices, and the lead's list counts it.
  await reader.goto('/');
  await expect(reader.getByText(/，王芳/)).toBeVisible();
  await expect(reader.getByTestId('unread-notices').getByText(title)).toHaveCount(0);
  await reader.context().close();
  await page.reload();
  await list.showOnly('标题', title);
  await expect(list.row(title)).toContainText(/送达 [2-9]\d* · 已读 1/);
});
