import { expect, test } from '@playwright/test';
import { DEMO_PASSWORD, isPhone, latestCode, shot, signInAs, waitForNewCode } from './support';

test('signs in with the SMS code from the outbox, returns to the asked page and shows only permitted menus', async ({ page }) => {
  await page.goto('/system/vehicle-types');
  await expect(page).toHaveURL(/\/login\?redirect=%2Fsystem%2Fvehicle-types/);
  await expect(page.getByText('欢迎登录')).toBeVisible();
  const login = page.getByRole('button', { name: /登\s*录/ });
  const getCode = page.getByRole('button', { name: '获取验证码' });
  await expect(getCode).toBeDisabled();
  await expect(login).toBeDisabled();
  await shot(page, 'login');

  await page.getByPlaceholder('请输入用户名').fill('admin');
  await page.getByPlaceholder('请输入密码').fill(DEMO_PASSWORD);
  await expect(login).toBeEnabled();
  const before = latestCode('admin');
  await getCode.click();
  await expect(page.getByText('验证码发送成功')).toBeVisible();
  // The cooldown shows as minutes:seconds and keeps the button disabled.
  await expect(page.getByRole('button', { name: /重新获取 00:0\d/ })).toBeDisabled();
  const code = await waitForNewCode('admin', before);
  await page.getByPlaceholder('请输入短信验证码').fill(code);
  await login.click();

  await expect(page).toHaveURL(/\/system\/vehicle-types$/);
  await expect(page.getByText('小型汽车').first()).toBeVisible();
  if (isPhone(page)) {
    await page.goto('/workbench');
    await expect(page.getByText('用户管理')).toBeVisible();
    await expect(page.getByText('车型管理')).toBeVisible();
  } else {
    const nav = page.locator('aside, nav').first();
    await expect(nav.getByText('系统管理')).toBeVisible();
    await expect(nav.getByText('用户管理')).toBeVisible();
    await expect(nav.getByText('车型管理')).toBeVisible();
  }
  await shot(page, 'menu');
});

test('a reviewer sees neither admin menu nor the admin screens', async ({ page }) => {
  await signInAs(page, 'reviewer');
  await page.goto('/');
  await expect(page.getByText(/李强/).first()).toBeVisible();
  if (isPhone(page)) await page.goto('/workbench');
  await expect(page.getByText('用户管理')).toHaveCount(0);
  await page.goto('/system/users');
  await expect(page.getByText('没有访问权限')).toBeVisible();
});

test('a wrong password shows 登录失败 with the server message', async ({ page }) => {
  await page.goto('/login');
  await page.getByPlaceholder('请输入用户名').fill('contact');
  await page.getByPlaceholder('请输入密码').fill('not-the-password-1');
  const before = latestCode('contact');
  await page.getByRole('button', { name: '获取验证码' }).click();
  const code = await waitForNewCode('contact', before);
  await page.getByPlaceholder('请输入短信验证码').fill(code);
  await page.getByRole('button', { name: /登\s*录/ }).click();
  await expect(page.getByText('登录失败：账号或密码错误')).toBeVisible();
  await expect(page).toHaveURL(/\/login/);
  await expect(page.getByRole('button', { name: /登\s*录/ })).toBeEnabled();
});

test('a user with no role sees the 403 page', async ({ page }) => {
  await signInAs(page, 'norole');
  await page.goto('/');
  await expect(page.getByText('抱歉！您没有操作角色……')).toBeVisible();
  await expect(page.getByText('当前账号没有操作角色，请联系管理员。')).toBeVisible();
  await shot(page, 'no-role-403');
});

test('an unknown page shows the 404 text and counts down home', async ({ page }) => {
  await signInAs(page, 'admin');
  await page.goto('/no/such/page');
  await expect(page.getByText('当前页面不存在……')).toBeVisible();
  await expect(page.getByText('请检查您输入的网址是否正确，或点击下面的按钮返回首页。')).toBeVisible();
  await expect(page).toHaveURL(/\/$/, { timeout: 9000 });
});
