import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RoleRow, RoleUserRow } from '../../domain/schemas/role';
import { Client, DEMO_PASSWORD, dialects, startSecondServer, startServer, type TestServer } from './harness';

type Errors = { errors: Array<{ field: string; message: string }> };

for (const dialect of await dialects()) {
  describe(`roles on ${dialect}`, () => {
    let server: TestServer;
    let second: TestServer;
    let admin: Client;
    let contact: Client;
    let seq = 0;
    beforeAll(async () => {
      server = await startServer(dialect);
      second = await startSecondServer(server);
      admin = await new Client(server).as('admin');
      contact = await new Client(server).as('contact');
    });
    afterAll(async () => {
      await second?.close();
      await server?.close();
    });

    const roles = async (body: Record<string, unknown> = {}) => (await admin.post<RoleRow[]>('/role/all', body)).body.data;
    const roleByCode = async (code: string) => (await roles()).find((r) => r.code === code)!;
    const newRole = async (name: string, code: string) => {
      const r = await admin.post<{ role_id: number }>('/role/save', { name, code, remark: '测试' });
      expect(r.body.msg, JSON.stringify(r.body)).toBe('创建成功！');
      return r.body.data.role_id;
    };
    const permissionIds = async (codes: string[]) => {
      const rows = await server.app.ctx.db.selectFrom('sys_permission').select(['permission_id', 'code']).where('code', 'in', codes).where('deleted', '=', 0).execute();
      expect(rows.length).toBe(new Set(codes).size);
      // Every id as often as its code is named: a list with repeats stays one.
      return codes.map((c) => rows.find((r) => r.code === c)!.permission_id);
    };
    /** A new enabled user (created by admin through the encrypted form), answered with its id and a signed-in client. */
    const newUser = async (account: string): Promise<{ id: number; client: Client }> => {
      seq += 1;
      const password = `${DEMO_PASSWORD}x${seq}`;
      const created = await admin.post<{ user_id: number }>('/user/save', {
        content: await admin.encrypt({ userName: `测试${account}`, account, password, gender: 0, phone: `1390000${String(1000 + seq).slice(-4)}`, departId: 1 }),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const client = new Client(server);
      return { id: created.body.data.user_id, client: Object.assign(client, { password }) };
    };
    const signIn = async (c: Client, account: string) => {
      const r = await c.login(account, (c as Client & { password: string }).password);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return c;
    };
    const usersOf = async (roleId: number) => (await admin.post<RoleUserRow[]>('/user/findByRoleId', { roleId })).body.data.map((u) => u.user_id).sort((a, b) => a - b);

    it('lists roles by name and status, with how many users hold each', async () => {
      const all = await roles();
      expect(all.map((r) => r.code)).toEqual(expect.arrayContaining(['admin', 'enterprise_contact', 'squad_reviewer']));
      expect((await roleByCode('enterprise_contact')).user_count).toBe(2);
      expect((await roles({ name: '审核员' })).map((r) => r.code).sort()).toEqual(['enterprise_reviewer', 'hazard_reviewer', 'squad_reviewer']);
      expect((await roles({ status: 0 })).length).toBe(0);
      expect((await roles({ status: -1, name: '' })).length).toBe(all.length);
      expect((await roles({ status: '1' })).length).toBe(all.length);
    });

    it('refuses every role call to a caller without its code, naming the code', async () => {
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['/role/save', { name: '新角色', code: 'x1' }, 'role:add'],
        ['/role/update', { roleId: 1, name: '新角色', code: 'x1' }, 'role:edit'],
        ['/role/delete', { role_id: 1 }, 'role:delete'],
        ['/role/permission/bind', { roleId: 1, permissionIds: '' }, 'role:bindPerm'],
        ['/role/user/bind', { roleId: 1, userIds: '' }, 'user:bindRole'],
        ['/user/findByRoleId', { roleId: 1 }, 'role:list'],
        ['/permission/findByRoleId', { roleId: 1 }, 'role:bindPerm'],
      ];
      for (const [url, body, code] of cases) {
        const r = await contact.post(url, body);
        expect(r.status, url).toBe(403);
        expect(r.body.msg, url).toContain(code);
      }
      // The role list itself is a preload of the bind-role and process node forms: any role holder reads it.
      expect((await contact.post('/role/all', {})).status).toBe(200);
    });

    it('validates names, codes, remarks, status and id lists with the spec messages', async () => {
      const valid = { name: '校验角色', code: 'check_role', remark: '' };
      const cases: Array<[string, Record<string, unknown>, string, string]> = [
        ['/role/save', { ...valid, name: '' }, 'name', '请输入角色名'],
        ['/role/save', { ...valid, name: '角'.repeat(31) }, 'name', '角色名：不能超过30个文字'],
        ['/role/save', { ...valid, code: '' }, 'code', '请输入唯一编码'],
        ['/role/save', { ...valid, code: 'a'.repeat(31) }, 'code', '唯一编码：不能超过30个字符'],
        ['/role/save', { ...valid, code: '审核-员' }, 'code', '唯一编码：仅限阿拉伯数字、英文字母'],
        ['/role/save', { ...valid, remark: '注'.repeat(81) }, 'remark', '备注不能超过80个字符'],
        ['/role/update', { ...valid, roleId: 'x' }, 'roleId', '请提供角色ID'],
        ['/role/update', { ...valid, roleId: 2, status: 2 }, 'status', '请选择状态'],
        ['/role/delete', {}, 'role_id', '请提供角色ID'],
        ['/role/permission/bind', { roleId: 2, permissionIds: '1,a' }, 'permissionIds', '权限不正确'],
        ['/role/permission/bind', { roleId: 2 }, 'permissionIds', '请选择权限'],
        ['/role/user/bind', { roleId: 2, userIds: [0] }, 'userIds', '用户不正确'],
        ['/user/findByRoleId', { roleId: 0 }, 'roleId', '角色ID不正确'],
      ];
      for (const [url, body, field, msg] of cases) {
        const r = await admin.post<Errors>(url, body);
        expect(r.status, `${url} ${msg}`).toBe(400);
        expect(r.body.msg).toBe(msg);
        expect(r.body.data.errors[0]!.field).toBe(field);
      }
      expect((await admin.post('/role/permission/bind', { roleId: 2, permissionIds: '999999' })).body.msg).toBe('所选权限不存在或已删除，请刷新后重试');
      expect((await admin.post('/role/user/bind', { roleId: 999999, userIds: '' })).status).toBe(404);
    });

    it('adds enabled, keeps codes unique, edits with status, and deletes a role nobody holds', async () => {
      const id = await newRole('门岗值班', 'gate_duty');
      // The status is the edit's: a new role is enabled whatever is sent.
      const sent = await admin.post<{ role_id: number }>('/role/save', { name: '夜班', code: 'night_duty', status: 0 });
      expect((await roleByCode('night_duty')).status).toBe(1);
      const dup = await admin.post('/role/save', { name: '另一个', code: 'gate_duty' });
      expect(dup.status).toBe(409);
      expect(dup.body.msg).toBe('唯一编码“gate_duty”已存在');
      expect((await admin.post('/role/update', { roleId: id, name: '门岗值班员', code: 'night_duty' })).status).toBe(409);

      const edit = await admin.post('/role/update', { roleId: id, name: '门岗值班员', code: 'gate_duty2', remark: '东门', status: 0 });
      expect(edit.body.msg).toBe('编辑成功！');
      expect(await roleByCode('gate_duty2')).toMatchObject({ role_id: id, name: '门岗值班员', remark: '东门', status: 0 });
      // Left out, the status stays.
      await admin.post('/role/update', { roleId: id, name: '门岗值班员', code: 'gate_duty2' });
      expect((await roleByCode('gate_duty2')).status).toBe(0);

      await admin.post('/role/permission/bind', { roleId: id, permissionIds: (await permissionIds(['user:list'])).join(',') });
      expect((await admin.post('/role/delete', { role_id: id })).body.msg).toBe('删除成功！');
      expect(await server.app.ctx.db.selectFrom('sys_role_permission').select('permission_id').where('role_id', '=', id).execute()).toEqual([]);
      expect((await admin.post('/role/delete', { roleId: sent.body.data.role_id })).body.msg).toBe('删除成功！');
      expect((await admin.post('/role/delete', { role_id: id })).status).toBe(404);
      expect((await admin.post('/role/update', { roleId: id, name: 'x', code: 'x' })).status).toBe(404);
      // The code is free again once its role is gone.
      const again = await newRole('门岗值班', 'gate_duty2');
      await admin.post('/role/delete', { role_id: again });
    });

    it('refuses to delete a role that users hold or an approval node uses, saying what holds it', async () => {
      const reviewer = await roleByCode('enterprise_reviewer');
      const held = await admin.post('/role/delete', { role_id: reviewer.role_id });
      expect(held.status).toBe(409);
      expect(held.body.msg).toBe('该角色下还有1个用户，请先在“绑定用户”中移除这些用户后再删除');

      const id = await newRole('节点角色', 'node_role');
      const now = server.app.ctx.time();
      await server.app.ctx.db
        .insertInto('process_node')
        .values({ name: '测试节点', countersign: 0, company_check: 0, overtime_auto_check: 0, overtime_hours: 0, role_id: id, remark: '', create_user_id: null, create_time: now, update_time: now })
        .execute();
      const used = await admin.post('/role/delete', { role_id: id });
      expect(used.status).toBe(409);
      expect(used.body.msg).toBe('该角色已被流程节点“测试节点”使用，请先修改这些节点后再删除');
      await server.app.ctx.db.updateTable('process_node').set({ deleted: 1 }).where('role_id', '=', id).execute();
      expect((await admin.post('/role/delete', { role_id: id })).body.msg).toBe('删除成功！');
    });

    it('binds users in place of the current ones, shows them by role and by user, and keeps no duplicates under concurrent binds', async () => {
      const id = await newRole('巡检组', 'inspect_team');
      const users = (await admin.post<Array<{ user_id: number; user_name: string }>>('/user/options', {})).body.data;
      const patrol = users.find((u) => u.user_name === '张伟')!.user_id;
      const lead = users.find((u) => u.user_name === '赵敏')!.user_id;
      // Every user, bound or not, comes with account and department (issue 24: unbound users showed a name only).
      expect(users.find((u) => u.user_id === patrol)).toMatchObject({ user_name: '张伟', account: 'patrol', depart_name: '石化大队' });
      const auditor = users.find((u) => u.user_name === '孙丽')!.user_id;

      const r = await admin.post('/role/user/bind', { roleId: id, userIds: `${patrol},${lead},${lead}`, userId: 1 });
      expect(r.body.msg).toBe('绑定用户成功！');
      expect(await usersOf(id)).toEqual([patrol, lead].sort((a, b) => a - b));
      expect((await admin.post<Array<{ role_id: number }>>('/role/findByUserId', { userId: patrol })).body.data.map((x) => x.role_id)).toContain(id);
      expect((await roleByCode('inspect_team')).user_count).toBe(2);

      // The same list twice at once: one set of rows, never a duplicate nor a 500.
      const both = await Promise.all([0, 1].map(() => admin.post('/role/user/bind', { roleId: id, userIds: [patrol, auditor] })));
      expect(both.map((b) => b.status)).toEqual([200, 200]);
      const rows = await server.app.ctx.db.selectFrom('sys_user_role').select('user_id').where('role_id', '=', id).execute();
      expect(rows.map((x) => x.user_id).sort((a, b) => a - b)).toEqual([patrol, auditor].sort((a, b) => a - b));
      // Different lists at once: one of them wins whole.
      await Promise.all([admin.post('/role/user/bind', { roleId: id, userIds: [patrol] }), admin.post('/role/user/bind', { roleId: id, userIds: [lead, auditor] })]);
      expect([[patrol], [lead, auditor].sort((a, b) => a - b)]).toContainEqual(await usersOf(id));

      expect((await admin.post('/role/user/bind', { roleId: id, userIds: '' })).body.msg).toBe('绑定用户成功！');
      expect(await usersOf(id)).toEqual([]);
      expect((await admin.post('/role/user/bind', { roleId: id, userIds: [999999] })).body.msg).toBe('所选用户不存在或已删除，请刷新后重试');
      await admin.post('/role/delete', { role_id: id });
    });

    it('lets nobody change their own membership, and keeps the built-in admin role whole', async () => {
      const adminRole = await roleByCode('admin');
      const me = (await admin.get<{ user: { user_id: number } }>('/user/info')).body.data.user.user_id;
      const id = await newRole('自助角色', 'self_role');
      const own = await admin.post('/role/user/bind', { roleId: id, userIds: [me] });
      expect(own.status).toBe(409);
      expect(own.body.msg).toBe('不能修改当前登录账号自己的角色，请由其他管理员操作');
      expect((await admin.post('/role/user/bind', { roleId: adminRole.role_id, userIds: '' })).body.msg).toBe('不能修改当前登录账号自己的角色，请由其他管理员操作');

      expect((await admin.post('/role/delete', { role_id: adminRole.role_id })).body.msg).toBe('内置管理员角色不能删除');
      const disable = await admin.post('/role/update', { roleId: adminRole.role_id, name: '系统管理员', code: 'admin', status: 0 });
      expect(disable.status).toBe(409);
      expect(disable.body.msg).toBe('内置管理员角色不能停用');
      const recode = await admin.post<Errors>('/role/update', { roleId: adminRole.role_id, name: '系统管理员', code: 'root' });
      expect(recode.status).toBe(400);
      expect(recode.body.msg).toBe('内置管理员角色的唯一编码不能修改');
      expect((await admin.post('/role/update', { roleId: adminRole.role_id, name: '超级管理员', code: 'admin', remark: '改名可以' })).body.msg).toBe('编辑成功！');
      const perms = await admin.post('/role/permission/bind', { roleId: adminRole.role_id, permissionIds: '' });
      expect(perms.status).toBe(409);
      expect(perms.body.msg).toBe('内置管理员角色始终拥有全部权限，不能修改其权限');

      // Another administrator (holding every code through a role of their own, as adding a user to the admin role takes) cannot empty the admin role either.
      const binderRole = await newRole('授权员', 'binder');
      const everyPermission = (await server.app.ctx.db.selectFrom('sys_permission').select('permission_id').where('deleted', '=', 0).execute()).map((p) => p.permission_id);
      await admin.post('/role/permission/bind', { roleId: binderRole, permissionIds: everyPermission });
      const binder = await newUser('binder1');
      await admin.post('/role/user/bind', { roleId: binderRole, userIds: [binder.id] });
      await signIn(binder.client, 'binder1');
      const emptied = await binder.client.post('/role/user/bind', { roleId: adminRole.role_id, userIds: '' });
      expect(emptied.status).toBe(409);
      expect(emptied.body.msg).toBe('内置管理员角色至少要保留一个启用的用户');
      // Nor may they switch off the role they work with.
      const selfOff = await binder.client.post('/role/update', { roleId: binderRole, name: '授权员', code: 'binder', status: 0 });
      expect(selfOff.status).toBe(409);
      expect(selfOff.body.msg).toBe('不能停用当前登录账号自己的角色，请由其他管理员操作');
      // A disabled user does not count as the one who can still repair things.
      const spare = await newUser('spare1');
      await admin.post('/user/update', {
        content: await admin.encrypt({ userId: spare.id, userName: '测试spare1', account: 'spare1', gender: 0, phone: '13900009999', departId: 1, status: 0, password: '' }),
      });
      expect((await binder.client.post('/role/user/bind', { roleId: adminRole.role_id, userIds: [spare.id] })).body.msg).toBe('内置管理员角色至少要保留一个启用的用户');
      expect((await binder.client.post('/role/user/bind', { roleId: adminRole.role_id, userIds: [me, spare.id] })).body.msg).toBe('绑定用户成功！');
      expect(await usersOf(adminRole.role_id)).toEqual([me, spare.id].sort((a, b) => a - b));

      // The last enabled administrator cannot be taken out from the user side either: unbound, disabled or deleted.
      const db = server.app.ctx.db;
      const myRoles = (await db.selectFrom('sys_user_role').select('role_id').where('user_id', '=', me).execute()).map((r) => r.role_id);
      const mine = await db.selectFrom('sys_user').select(['user_name', 'account', 'gender', 'phone', 'depart_id']).where('user_id', '=', me).executeTakeFirstOrThrow();
      const disableMe = async () =>
        binder.client.post('/user/update', {
          content: await binder.client.encrypt({
            userId: me,
            userName: mine.user_name,
            account: mine.account,
            gender: mine.gender,
            phone: mine.phone,
            departId: mine.depart_id,
            status: 0,
            password: '',
          }),
        });
      const refusals = [
        await binder.client.post('/user/bindRole', { userId: me, roleIds: '' }),
        await binder.client.post('/user/bindRole', { userId: me, roleIds: [binderRole] }),
        await disableMe(),
        await binder.client.post('/user/delete', { userId: me }),
      ];
      for (const r of refusals) {
        expect(r.status, JSON.stringify(r.body)).toBe(409);
        expect(r.body.msg).toBe('内置管理员角色至少要保留一个启用的用户');
      }
      const still = await db.selectFrom('sys_user').select(['status', 'deleted']).where('user_id', '=', me).executeTakeFirstOrThrow();
      expect(still).toEqual({ status: 1, deleted: 0 });
      expect((await db.selectFrom('sys_user_role').select('role_id').where('user_id', '=', me).execute()).map((r) => r.role_id).sort()).toEqual([...myRoles].sort());
      // With another enabled administrator the same unbind goes through; binding back restores the first.
      await admin.post('/user/update', {
        content: await admin.encrypt({ userId: spare.id, userName: '测试spare1', account: 'spare1', gender: 0, phone: '13900009999', departId: 1, status: 1, password: '' }),
      });
      expect((await binder.client.post('/user/bindRole', { userId: me, roleIds: '' })).body.msg).toBe('绑定角色成功！');
      expect((await binder.client.post('/user/bindRole', { userId: me, roleIds: myRoles })).body.msg).toBe('绑定角色成功！');
      // Two enabled administrators unbound at once: the second change waits for the first and is refused.
      const race = await Promise.all([me, spare.id].map((u) => binder.client.post('/user/bindRole', { userId: u, roleIds: '' })));
      expect(race.map((r) => r.status).sort(), JSON.stringify(race.map((r) => r.body))).toEqual([200, 409]);
      // Read straight from the database: the admin signed in here may be the one who lost the role.
      expect(await db.selectFrom('sys_user_role').select('user_id').where('role_id', '=', adminRole.role_id).execute()).toHaveLength(1);
      await binder.client.post('/user/bindRole', { userId: me, roleIds: myRoles });
      await binder.client.post('/user/bindRole', { userId: spare.id, roleIds: [adminRole.role_id] });
      // A park whose admin role has no enabled user (data from before the rule) still manages its other users.
      const bystander = await newUser('bystander1');
      const admins = (await db.selectFrom('sys_user_role').select('user_id').where('role_id', '=', adminRole.role_id).execute()).map((r) => r.user_id);
      await db.updateTable('sys_user').set({ status: 0 }).where('user_id', 'in', admins).execute();
      try {
        expect((await binder.client.post('/user/bindRole', { userId: bystander.id, roleIds: [binderRole] })).body.msg).toBe('绑定角色成功！');
        expect((await binder.client.post('/user/delete', { userId: bystander.id })).body.msg).toBe('删除成功！');
      } finally {
        await db.updateTable('sys_user').set({ status: 1 }).where('user_id', 'in', admins).execute();
      }
      await admin.post('/role/delete', { role_id: id });
    });

    it('lets a delegated role administrator grant only codes they hold, and never widen a role they hold (issue 23)', async () => {
      const db = server.app.ctx.db;
      const delegateRole = await newRole('授权代理', 'delegate');
      const delegateCodes = ['dir:system', 'menu:role', 'role:list', 'role:bindPerm', 'role:edit', 'user:bindRole', 'user:list'];
      await admin.post('/role/permission/bind', { roleId: delegateRole, permissionIds: await permissionIds(delegateCodes) });
      const delegate = await newUser('delegate1');
      await admin.post('/role/user/bind', { roleId: delegateRole, userIds: [delegate.id] });
      await signIn(delegate.client, 'delegate1');
      const bound = async (roleId: number) =>
        (await db.selectFrom('sys_role_permission').select('permission_id').where('role_id', '=', roleId).execute()).map((r) => r.permission_id).sort((a, b) => a - b);
      const before = await bound(delegateRole);
      const everyPermission = (await db.selectFrom('sys_permission').select('permission_id').where('deleted', '=', 0).execute()).map((p) => p.permission_id);

      // Their own role: not the whole catalogue, not even a code they hold, not taking one off.
      for (const ids of [everyPermission, before, before.slice(1)]) {
        const own = await delegate.client.post('/role/permission/bind', { roleId: delegateRole, permissionIds: ids });
        expect(own.status, JSON.stringify(own.body)).toBe(403);
        expect(own.body.code).toBe(1003);
        expect(own.body.msg).toBe('不能修改自己所属角色的权限，请由其他管理员操作');
      }
      expect(await bound(delegateRole)).toEqual(before);

      // Another role: codes they lack are refused by name; the codes they hold go through.
      const other = await newRole('代理授权对象', 'delegated');
      const lacking = await delegate.client.post('/role/permission/bind', { roleId: other, permissionIds: await permissionIds(['user:list', 'user:delete']) });
      expect(lacking.status).toBe(403);
      expect(lacking.body.msg).toMatch(/^不能授予自己没有的权限：.*（user:delete）$/);
      expect(await bound(other)).toEqual([]);
      const wide = await delegate.client.post('/role/permission/bind', { roleId: other, permissionIds: everyPermission });
      expect(wide.status).toBe(403);
      expect(wide.body.msg).toMatch(/等\d+项$/);
      const subset = await permissionIds(['dir:system', 'menu:role', 'role:list', 'user:list']);
      expect((await delegate.client.post('/role/permission/bind', { roleId: other, permissionIds: subset })).body.msg).toBe('绑定权限成功！');
      expect(await bound(other)).toEqual([...subset].sort((a, b) => a - b));
      // A code the role already has and the granter lacks may stay, or go; it is not granted again.
      const kept = await permissionIds(['user:delete']);
      await admin.post('/role/permission/bind', { roleId: other, permissionIds: [...subset, ...kept] });
      expect((await delegate.client.post('/role/permission/bind', { roleId: other, permissionIds: [...subset, ...kept] })).body.msg).toBe('绑定权限成功！');
      expect((await delegate.client.post('/role/permission/bind', { roleId: other, permissionIds: subset })).body.msg).toBe('绑定权限成功！');

      // Handing a wider role to anyone is the same widening: from the role side, the user side, or by enabling it.
      const squadRole = await roleByCode('squad_reviewer');
      const adminRole = await roleByCode('admin');
      const accomplice = await newUser('accomplice1');
      const squadUsers = await usersOf(squadRole.role_id);
      for (const [url, body] of [
        ['/role/user/bind', { roleId: squadRole.role_id, userIds: [...squadUsers, accomplice.id] }],
        ['/role/user/bind', { roleId: adminRole.role_id, userIds: [...(await usersOf(adminRole.role_id)), accomplice.id] }],
        ['/user/bindRole', { userId: accomplice.id, roleIds: [squadRole.role_id] }],
        ['/user/bindRole', { userId: accomplice.id, roleIds: [adminRole.role_id] }],
      ] as const) {
        const r = await delegate.client.post(url, body);
        expect(r.status, `${url} ${JSON.stringify(r.body)}`).toBe(403);
        expect(r.body.msg).toMatch(/^不能授予自己没有的权限：/);
      }
      expect(await db.selectFrom('sys_user_role').select('role_id').where('user_id', '=', accomplice.id).execute()).toEqual([]);
      expect(await usersOf(squadRole.role_id)).toEqual(squadUsers);
      // A role within their codes may be handed on; a wider one's users may still be taken off.
      expect((await delegate.client.post('/user/bindRole', { userId: accomplice.id, roleIds: [other] })).body.msg).toBe('绑定角色成功！');
      await admin.post('/user/bindRole', { userId: accomplice.id, roleIds: [other, squadRole.role_id] });
      expect((await delegate.client.post('/user/bindRole', { userId: accomplice.id, roleIds: [other] })).body.msg).toBe('绑定角色成功！');
      const wider = await newRole('更宽角色', 'wider_role');
      await admin.post('/role/permission/bind', { roleId: wider, permissionIds: await permissionIds(['user:delete']) });
      await admin.post('/role/update', { roleId: wider, name: '更宽角色', code: 'wider_role', status: 0 });
      const enable = await delegate.client.post('/role/update', { roleId: wider, name: '更宽角色', code: 'wider_role', status: 1 });
      expect(enable.status).toBe(403);
      expect(enable.body.msg).toBe('不能授予自己没有的权限：删除用户（user:delete）');

      // The built-in admin role keeps every code, whoever asks.
      const adminBound = await bound(adminRole.role_id);
      const r = await delegate.client.post('/role/permission/bind', { roleId: adminRole.role_id, permissionIds: '' });
      expect(r.status).toBe(409);
      expect(await bound(adminRole.role_id)).toEqual(adminBound);
    });

    it("applies a role's new permissions, status and members on its users' next call, on every server", async () => {
      const id = await newRole('只读用户', 'user_reader');
      const reader = await newUser('reader1');
      await admin.post('/role/user/bind', { roleId: id, userIds: [reader.id] });
      await signIn(reader.client, 'reader1');
      const elsewhere = Object.assign(new Client(second), { token: reader.client.token });
      const page = { size: 10, pn: 1 };

      for (const c of [reader.client, elsewhere]) expect((await c.post('/user/page', page)).status).toBe(403);
      expect((await admin.post('/role/permission/bind', { roleId: id, permissionIds: (await permissionIds(['menu:user', 'user:list'])).join(',') })).body.msg).toBe('绑定权限成功！');
      for (const c of [reader.client, elsewhere]) expect((await c.post('/user/page', page)).status).toBe(200);
      const info = (await elsewhere.get<{ permissions: string[]; menus: Array<{ children?: Array<{ code: string }> }> }>('/user/info')).body.data;
      expect(info.permissions).toEqual(expect.arrayContaining(['menu:user', 'user:list']));
      expect(info.menus.flatMap((m) => m.children ?? []).map((m) => m.code)).toContain('menu:user');
      const bound = (await admin.post<Array<{ code: string }>>('/permission/findByRoleId', { roleId: id })).body.data.map((p) => p.code).sort();
      expect(bound).toEqual(['menu:user', 'user:list']);

      // The same binding again changes nothing; an empty one takes everything away at once.
      expect((await admin.post('/role/permission/bind', { roleId: id, permissionIds: await permissionIds(['menu:user', 'user:list', 'user:list']) })).status).toBe(200);
      await admin.post('/role/permission/bind', { roleId: id, permissionIds: '' });
      for (const c of [reader.client, elsewhere]) expect((await c.post('/user/page', page)).status).toBe(403);

      // A disabled role grants nothing; its holders without another role meet the no-role refusal.
      await admin.post('/role/permission/bind', { roleId: id, permissionIds: await permissionIds(['user:list']) });
      await admin.post('/role/update', { roleId: id, name: '只读用户', code: 'user_reader', status: 0 });
      const off = await elsewhere.post('/user/page', page);
      expect(off.status).toBe(403);
      expect(off.body.code).toBe(1004);
      await admin.post('/role/update', { roleId: id, name: '只读用户', code: 'user_reader', status: 1 });
      expect((await reader.client.post('/user/page', page)).status).toBe(200);
      // Unbinding the user: the next call on either server has no role.
      await admin.post('/role/user/bind', { roleId: id, userIds: [] });
      expect((await elsewhere.post('/user/page', page)).body.code).toBe(1004);
    });

    it('writes every role change to the operation log', async () => {
      const ops = await server.app.ctx.db.selectFrom('sys_operation_log').select('operation').distinct().where('api', 'like', '/api/role/%').execute();
      expect(ops.map((o) => o.operation)).toEqual(expect.arrayContaining(['新增角色', '编辑角色', '删除角色', '绑定权限', '绑定用户']));
    });
  });
}
