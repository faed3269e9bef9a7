import { expect, test, type Page } from '@playwright/test';
import { call, formField, isDesktop, isPhone, listScreen, shot, signInAs, submitForm } from './support';

type PermissionRow = { permission_id: number; pid: number; code: string };

const treeRow = (page: Page, code: string) => page.locator('.pct-row', { has: page.locator('.pct-code', { hasText: new RegExp(`^${code}$`) }) });
const ticked = (page: Page, code: string) => treeRow(page, code).locator('.adm-checkbox').first();

test("binds a role's permissions on the checkable tree, a parent and its child ticked apart", async ({ page }) => {
  // Skipped at desktop size on purpose: each size walks its own half of the role screens (reason below).
  test.skip(!isPhone(page), 'the binding is walked on the phone layout (390x844); the desktop runs walk the permission screen and the icon gallery below');
  const token = await signInAs(page, 'admin');
  const stamp = Date.now() % 100000;
  const name = `门岗值班${stamp}`;
  const { role_id } = await call<{ role_id: number }>(token, '/role/save', { name, code: `gate_duty_${stamp}`, remark: '东门值班' });
  const tree = await call<PermissionRow[]>(token, '/permission/all', {});
  const idOf = (code: string) => tree.find((p) => p.code === code)!.permission_id;
  await call(token, '/role/permission/bind', { roleId: role_id, permissionIds: String(idOf('user:list')) });
  // Every menu of the seed has its screen now: a menu the park adds for a screen the app does not have is the unbuilt one.
  await call(token, '/permission/save', { pid: idOf('dir:system'), name: `巡检记录${stamp}`, code: `menu:nowhere${stamp}`, type: 1, route: `/inspect/nowhere${stamp}` });

  const list = listScreen(page);
  await list.open('/system/roles');
  await expect(list.row(name)).toBeVisible();
  await shot(page, 'roles');
  await list.action(name, '权限');
  await expect(page.getByRole('dialog', { name: '绑定权限' })).toBeVisible();
  // Directories start unfolded; the folded 用户管理 says one permission below it is ticked (user:list, from the server).
  await expect(treeRow(page, 'menu:user').locator('.pct-count')).toHaveText('已选 1');
  await expect(ticked(page, 'menu:user')).not.toHaveClass(/adm-checkbox-checked/);
  // A screen not built yet is tagged 未上线 and still bindable; a built one is not tagged.
  await expect(treeRow(page, `menu:nowhere${stamp}`).locator('.pct-unreleased')).toHaveText('未上线');
  await expect(ticked(page, `menu:nowhere${stamp}`)).not.toHaveClass(/adm-checkbox-disabled/);
  await expect(treeRow(page, 'menu:carRoute').locator('.pct-unreleased')).toHaveCount(0);
  await expect(treeRow(page, 'menu:notice').locator('.pct-unreleased')).toHaveCount(0);
  await expect(treeRow(page, 'menu:user').locator('.pct-unreleased')).toHaveCount(0);

  // Ticking the menu leaves its buttons as they are: no parent-child coupling.
  await ticked(page, 'menu:role').click();
  await expect(ticked(page, 'menu:role')).toHaveClass(/adm-checkbox-checked/);
  await page.getByRole('button', { name: '展开角色管理' }).click();
  await expect(treeRow(page, 'role:list')).toBeVisible();
  await expect(ticked(page, 'role:list')).not.toHaveClass(/adm-checkbox-checked/);
  await expect(ticked(page, 'role:bindPerm')).not.toHaveClass(/adm-checkbox-checked/);
  await ticked(page, 'role:list').click();
  // Unticking a child leaves its parent ticked.
  await ticked(page, 'role:list').click();
  await expect(ticked(page, 'menu:role')).toHaveClass(/adm-checkbox-checked/);
  await ticked(page, 'role:list').click();

  // The search shows hits with their ancestors.
  await page.getByRole('dialog', { name: '绑定权限' }).getByPlaceholder('搜索权限名称或编码').fill('bindPerm');
  await expect(page.locator('.pct-row')).toHaveCount(3);
  await shot(page, 'role-permissions-search');
  await page.getByRole('dialog', { name: '绑定权限' }).getByPlaceholder('搜索权限名称或编码').fill('');
  await expect(ticked(page, 'role:list')).toHaveClass(/adm-checkbox-checked/);
  await page.getByText('折叠全部').click();
  await expect(page.locator('.pct-row')).toHaveCount(tree.filter((p) => p.pid === 0).length);
  await page.getByText('展开全部').click();
  await expect(treeRow(page, 'perm:list')).toBeVisible();
  await treeRow(page, 'menu:role').scrollIntoViewIfNeeded();
  await shot(page, 'role-permissions');

  await page.getByRole('button', { name: '保存', exact: true }).click();
  await expect(page.getByText('绑定权限成功！')).toBeVisible();
  const held = await call<PermissionRow[]>(token, '/permission/findByRoleId', { roleId: role_id });
  expect(held.map((p) => p.code).sort()).toEqual(['menu:role', 'role:list', 'user:list']);

  // Opened again, the tree starts from what the role holds now.
  await list.action(name, '权限');
  await expect(ticked(page, 'menu:role')).toHaveClass(/adm-checkbox-checked/);
  await expect(treeRow(page, 'menu:role').locator('.pct-count')).toHaveText('已选 1');
  await page.getByRole('button', { name: '返回' }).last().click();

  // The built-in administrator holds everything and cannot be changed here.
  await list.action('系统管理员', '权限');
  await expect(page.getByText('内置管理员角色始终拥有全部权限，不能修改其权限')).toBeVisible();
  await expect(ticked(page, 'menu:role')).toHaveClass(/adm-checkbox-disabled/);
  await expect(page.getByRole('button', { name: '保存', exact: true })).toHaveCount(0);
  await shot(page, 'role-permissions-admin');
  await page.getByRole('button', { name: '关闭', exact: true }).click();

  // Binding users: the current ones are loaded; the signed-in administrator's own tick is fixed.
  await list.action(name, '绑定用户');
  const dialog = page.getByRole('dialog', { name: '绑定用户' });
  await expect(dialog.getByText('已选 0 人')).toBeVisible();
  await dialog.getByPlaceholder('搜索姓名或账号').fill('张伟');
  // Unbound users too show their account and department (issue 24), not a name only.
  await expect(dialog.locator('.rm-user', { hasText: '张伟' }).locator('.rm-user__meta')).toHaveText('patrol · 石化大队');
  await dialog.locator('.rm-user', { hasText: '张伟' }).locator('.adm-checkbox').click();
  await dialog.getByPlaceholder('搜索姓名或账号').fill('');
  await expect(dialog.locator('.rm-user', { hasText: '系统管理员' }).locator('.adm-checkbox')).toHaveClass(/adm-checkbox-disabled/);
  await shot(page, 'role-users');
  await page.getByRole('button', { name: '保存', exact: true }).click();
  await expect(page.getByText('绑定用户成功！')).toBeVisible();
  expect((await call<Array<{ user_name: string }>>(token, '/user/findByRoleId', { roleId: role_id })).map((u) => u.user_name)).toEqual(['张伟']);
});

test('the permission screen searches, folds, adds a branch with an icon from the gallery, and deletes it', async ({ page }) => {
  // Skipped at phone size on purpose: the phone layout of this screen is the last test of the file.
  test.skip(!isDesktop(page), 'the permission screen is an administrator’s desktop task (1440x900); the phone run binds a role’s permissions above');
  const token = await signInAs(page, 'admin');
  const stamp = Date.now() % 100000;
  const dirName = `巡检管理${stamp}`;
  const menuName = `巡检记录${stamp}`;
  const roles = listScreen(page);
  await roles.open('/system/roles');
  await expect(roles.row('系统管理员')).toBeVisible();
  // The built-in administrator role has no delete; the others do, and every row binds users.
  await expect(roles.row('系统管理员').getByRole('button', { name: '删除' })).toHaveCount(0);
  await expect(roles.row('巡逻员').getByRole('button', { name: '绑定用户' })).toBeVisible();
  await shot(page, 'roles');
  await page.goto('/system/permissions');
  await expect(page.getByRole('heading', { name: '权限列表' })).toBeVisible();
  const rows = page.locator('.pp-table tbody tr.pp-row');
  await expect(rows.filter({ hasText: '角色管理' })).toBeVisible();
  const roots = (await call<PermissionRow[]>(token, '/permission/all', {})).filter((p) => p.pid === 0).length;
  await page.getByRole('button', { name: '折叠全部' }).click();
  await expect(rows).toHaveCount(roots);
  await page.getByRole('button', { name: '展开全部' }).click();
  await expect(rows.filter({ hasText: 'perm:delete' })).toBeVisible();
  // Every screen of the seed is built: none is tagged 未上线 (the menu added below, for a screen the app does not have, is).
  const rowOf = (code: string) => rows.filter({ has: page.locator('.pp-code', { hasText: new RegExp(`^${code}$`) }) });
  await expect(rowOf('menu:carRoute').locator('.pp-unreleased')).toHaveCount(0);
  await expect(rowOf('menu:notice').locator('.pp-unreleased')).toHaveCount(0);
  await expect(rowOf('menu:personBatchApply').locator('.pp-unreleased')).toHaveCount(0);
  await expect(rowOf('dir:statistics').locator('.pp-unreleased')).toHaveCount(0);
  await expect(rowOf('menu:operationLog').locator('.pp-unreleased')).toHaveCount(0);
  await expect(rowOf('dir:system').locator('.pp-unreleased')).toHaveCount(0);
  await shot(page, 'permissions');

  // A search keeps each hit's ancestors.
  await page.locator('.pp-filter input').fill('角色查询');
  await page.getByRole('button', { name: '查询' }).click();
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toContainText('系统管理');
  await expect(rows.nth(2)).toContainText('role:list');
  await page.getByRole('button', { name: '重置' }).click();
  await expect(rows.filter({ hasText: 'perm:delete' })).toBeVisible();

  // A directory: no route input; its icon picked in the gallery's grid.
  await page.getByRole('button', { name: '新增权限' }).click();
  await formField(page, '权限名').locator('input').fill(dirName);
  await formField(page, '权限编码').locator('input').fill(`dir-${stamp}`);
  await formField(page, '类型').getByText('目录', { exact: true }).click();
  await expect(formField(page, '路由')).toHaveCount(0);
  await formField(page, '图标').getByRole('button', { name: '选择', exact: true }).click();
  const picker = page.getByRole('dialog', { name: '选择图标' });
  await expect(picker.locator('.ig-tile')).toHaveCount(72);
  await picker.getByPlaceholder('搜索图标名称或编码').fill('flag');
  await expect(picker.locator('.ig-tile')).toHaveCount(1);
  await shot(page, 'permission-icon-picker');
  await picker.locator('.ig-tile').click();
  await expect(formField(page, '图标')).toContainText('FlagOutline');
  await submitForm(page);
  await expect(formField(page, '权限编码').getByText('仅限阿拉伯数字、英文字母')).toBeVisible();
  await formField(page, '权限编码').locator('input').fill(`dir:inspect${stamp}`);
  await submitForm(page);
  await expect(page.getByText('创建成功！')).toBeVisible();
  const dirRow = rows.filter({ hasText: dirName });
  await expect(dirRow).toContainText('目录');

  // A child menu: type and parent preset, the route input back.
  await dirRow.getByRole('button', { name: '新增下级' }).click();
  await expect(page.getByRole('dialog', { name: `新增下级权限 · ${dirName}` })).toBeVisible();
  await formField(page, '权限名').locator('input').fill(menuName);
  await formField(page, '权限编码').locator('input').fill(`menu:inspect${stamp}`);
  await formField(page, '路由').locator('input').fill('/inspect/records');
  await shot(page, 'permission-form');
  await submitForm(page);
  await expect(page.getByText('创建成功！')).toBeVisible();
  const menuRow = rows.filter({ hasText: menuName });
  await expect(menuRow).toContainText('/inspect/records');
  // No screen of the app answers /inspect/records: the menu is tagged 未上线, and so is its directory, which holds nothing built.
  await expect(menuRow.locator('.pp-unreleased')).toHaveText('未上线');
  await expect(dirRow.locator('.pp-unreleased')).toHaveText('未上线');

  // The parent with a child cannot go; a permission a role holds asks first, naming how many roles.
  await dirRow.getByRole('button', { name: '删除' }).click();
  await expect(page.getByText('该权限下还有下级权限，请先删除下级权限')).toBeVisible();
  const tree = await call<PermissionRow[]>(token, '/permission/all', {});
  const patrol = (await call<Array<{ role_id: number; code: string }>>(token, '/role/all', {})).find((r) => r.code === 'patrol')!.role_id;
  const held = (await call<PermissionRow[]>(token, '/permission/findByRoleId', { roleId: patrol })).map((p) => p.permission_id);
  const menuId = tree.find((p) => p.code === `menu:inspect${stamp}`)!.permission_id;
  await call(token, '/role/permission/bind', { roleId: patrol, permissionIds: [...held, menuId].join(',') });
  await page.locator('.pp-icon-btn[aria-label="刷新"]').click();
  await expect(menuRow.locator('.pp-num')).toHaveText('1');
  await menuRow.getByRole('button', { name: '删除' }).click();
  await expect(page.getByText('该权限已授予 1 个角色，删除后这些角色将同时失去该权限。确认删除？')).toBeVisible();
  await page.getByRole('button', { name: '确定' }).last().click();
  await expect(page.getByText('删除成功！')).toBeVisible();
  await expect(menuRow).toHaveCount(0);
  await dirRow.getByRole('button', { name: '删除' }).click();
  await expect(page.getByText('确认删除？')).toBeVisible();
  await page.getByRole('button', { name: '确定' }).last().click();
  await expect(dirRow).toHaveCount(0);
});

test('a built-in permission keeps all but its remark, and has no delete', async ({ page }) => {
  // Skipped at phone size on purpose: the phone layout of this screen is the last test of the file.
  test.skip(!isDesktop(page), 'the permission screen is an administrator’s desktop task (1440x900)');
  await signInAs(page, 'admin');
  await page.goto('/system/permissions');
  const rows = page.locator('.pp-table tbody tr.pp-row');
  await expect(rows.filter({ hasText: '角色管理' })).toBeVisible();
  const remark = `信息中心维护${Date.now() % 100000}`;
  const builtin = rows.filter({ has: page.locator('.pp-code', { hasText: /^menu:perm$/ }) });
  await expect(builtin.getByRole('button', { name: '删除' })).toHaveCount(0);
  await builtin.getByRole('button', { name: '编辑' }).click();
  await expect(page.getByText('内置权限：名称、编码、类型、上级、路由和图标随系统版本维护，只能修改备注。')).toBeVisible();
  await expect(formField(page, '权限名').locator('input')).toBeDisabled();
  await formField(page, '备注').locator('textarea').first().fill(remark);
  await shot(page, 'permission-builtin');
  await submitForm(page);
  await expect(page.getByText('编辑成功！')).toBeVisible();
  await expect(builtin).toContainText(remark);
});

test('the icon gallery pages the icon set 72 at a time, searches, and copies a code with a toast naming it', async ({ page, context }) => {
  // Skipped at phone size on purpose: the phone layout of the gallery is the last test of the file.
  test.skip(!isDesktop(page), 'the gallery is an administrator’s desktop tool (1440x900); the phone run binds a role’s permissions above');
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await signInAs(page, 'admin');
  await page.goto('/system/icons');
  const tiles = page.locator('.ig-tile');
  await expect(tiles).toHaveCount(72);
  await expect(page.getByText('共 146 个')).toBeVisible();
  await expect(page.getByText('第 1 / 3 页')).toBeVisible();
  await expect(tiles.first().locator('svg')).toBeVisible();
  await shot(page, 'icons');
  await page.getByRole('button', { name: '下一页' }).click();
  await page.getByRole('button', { name: '下一页' }).click();
  await expect(page.getByText('第 3 / 3 页')).toBeVisible();
  await expect(tiles).toHaveCount(2);

  await page.getByPlaceholder('搜索图标名称或编码').fill('用户');
  await page.getByRole('button', { name: '查询' }).click();
  await expect(tiles).toHaveCount(4);
  await expect(page.getByText('第 1 / 1 页')).toBeVisible();
  await tiles.filter({ hasText: /^UserOutline/ }).click();
  await expect(page.getByText('已复制：UserOutline')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('UserOutline');
  await shot(page, 'icons-copied');

  // Refused by the browser: the toast says so, naming the code, and the code is selected for a manual copy.
  await page.evaluate(() => {
    navigator.clipboard.writeText = () => Promise.reject(new Error('denied'));
  });
  await tiles.filter({ hasText: /^UserSetOutline/ }).click();
  await expect(page.getByText(/复制失败：UserSetOutline/)).toBeVisible();
  expect(await page.evaluate(() => window.getSelection()?.toString())).toBe('UserSetOutline');
});

test('the permission screen and the icon gallery read on a phone', async ({ page, context }) => {
  // Skipped at desktop size on purpose: the desktop runs walk both tools in full above.
  test.skip(!isPhone(page), 'the phone layout of the two desktop tools; the desktop runs walk them in full above');
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await signInAs(page, 'admin');
  await page.goto('/system/permissions');
  const items = page.locator('.pp-item');
  await expect(items.filter({ hasText: 'dir:system' })).toBeVisible();
  await page.getByRole('button', { name: '展开角色管理' }).click();
  await expect(items.filter({ hasText: 'role:bindPerm' })).toBeVisible();
  await items.filter({ hasText: 'role:bindPerm' }).scrollIntoViewIfNeeded();
  await shot(page, 'permissions');
  await page.getByRole('button', { name: '绑定权限的操作' }).click();
  await expect(page.locator('.adm-action-sheet').getByText('编辑', { exact: true })).toBeVisible();
  // A built-in code has no delete.
  await expect(page.locator('.adm-action-sheet').getByText('删除', { exact: true })).toHaveCount(0);
  await page.locator('.adm-action-sheet').getByText('取消', { exact: true }).click();
  await page.getByPlaceholder('搜索权限名').fill('图标');
  await page.getByPlaceholder('搜索权限名').press('Enter');
  await expect(items).toHaveCount(2);

  await page.goto('/system/icons');
  await expect(page.locator('.ig-tile')).toHaveCount(72);
  await page
    .locator('.ig-tile')
    .filter({ hasText: /^CalendarOutline/ })
    .click();
  await expect(page.getByText('已复制：CalendarOutline')).toBeVisible();
  await shot(page, 'icons');
});
