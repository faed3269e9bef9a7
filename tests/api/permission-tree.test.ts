import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iconSet } from '../../domain/icons';
import { permissionTree } from '../../domain/permissions';
import { permissionUpdate, type PermissionRow } from '../../domain/schemas/permission';
import type { RoleRow } from '../../domain/schemas/role';
import { Client, dialects, startServer, type TestServer } from './harness';

type Errors = { errors: Array<{ field: string; message: string }> };
type IconPage = { success: boolean; code: number; data: Array<{ code: string; title: string }>; totalCount: number; msg: string };

describe('the permission catalogue against the permission rules', () => {
  it('passes its own form rules, so that a built-in node can be saved back as it is', () => {
    const walk = (nodes: readonly { code: string; name: string; type: number; route?: string; icon?: string; children?: readonly unknown[] }[]): void => {
      for (const n of nodes) {
        const parsed = permissionUpdate.safeParse({ permissionId: 1, pid: 1, name: n.name, code: n.code, type: n.type, route: n.route ?? null, icon: n.icon ?? null, remark: '' });
        expect(parsed.success, `${n.code}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
        walk((n.children ?? []) as never);
      }
    };
    walk(permissionTree);
  });

  it('uses only icons of the one icon set, each once', () => {
    const set = new Set<string>(iconSet.map((i) => i.code));
    expect(set.size).toBe(iconSet.length);
    const used = new Set<string>();
    const walk = (nodes: readonly { icon?: string; children?: readonly unknown[] }[]) => {
      for (const n of nodes) {
        if (n.icon) used.add(n.icon);
        walk((n.children ?? []) as never);
      }
    };
    walk(permissionTree);
    for (const icon of used) expect(set.has(icon), icon).toBe(true);
  });
});

for (const dialect of await dialects()) {
  describe(`permission tree and icon gallery on ${dialect}`, () => {
    let server: TestServer;
    let admin: Client;
    let contact: Client;
    beforeAll(async () => {
      server = await startServer(dialect);
      admin = await new Client(server).as('admin');
      contact = await new Client(server).as('contact');
    });
    afterAll(async () => server?.close());

    const all = async (name?: string) => (await admin.post<PermissionRow[]>('/permission/all', name ? { name } : {})).body.data;
    const byCode = async (code: string) => (await all()).find((p) => p.code === code);
    const save = async (body: Record<string, unknown>) => {
      const r = await admin.post<{ permission_id: number }>('/permission/save', body);
      expect(r.body.msg, JSON.stringify(r.body)).toBe('创建成功！');
      return r.body.data.permission_id;
    };
    const roleId = async (code: string) => (await admin.post<RoleRow[]>('/role/all', {})).body.data.find((r) => r.code === code)!.role_id;

    it('answers the whole tree with built-in marks and role counts, filtered by name', async () => {
      const rows = await all();
      expect(rows.length).toBeGreaterThan(200);
      const perm = rows.find((r) => r.code === 'menu:perm')!;
      expect(perm).toMatchObject({ type: 1, route: '/system/permissions', icon: 'LockOutline', builtin: 1 });
      expect(rows.find((r) => r.permission_id === perm.pid)!.code).toBe('dir:system');
      expect(rows.filter((r) => r.pid === perm.permission_id).map((r) => r.code)).toEqual(['perm:list', 'perm:add', 'perm:edit', 'perm:delete']);
      // Held by the admin role only (the seed binds it); the contact's own codes by the contact role too.
      expect(rows.find((r) => r.code === 'perm:list')!.role_count).toBe(1);
      expect(rows.find((r) => r.code === 'carApply:add')!.role_count).toBe(2);
      expect((await all('权限查询')).map((r) => r.code)).toEqual(['perm:list']);
      expect((await admin.post<PermissionRow>('/permission/get', { permissionId: perm.permission_id })).body.data).toMatchObject({ code: 'menu:perm', builtin: 1 });
    });

    it('opens the tree to perm:list or role:bindPerm holders and every other call to its own code', async () => {
      const r = await contact.post('/permission/all', {});
      expect(r.status).toBe(403);
      expect(r.body.msg).toBe('没有操作权限：缺少权限 perm:list（权限查询）或 role:bindPerm（绑定权限）');
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['/permission/get', { permissionId: 1 }, 'perm:list'],
        ['/permission/save', { name: 'x', code: 'x', type: 2 }, 'perm:add'],
        ['/permission/update', { permissionId: 1, name: 'x', code: 'x', type: 2 }, 'perm:edit'],
        ['/permission/delete', { permissionId: 1 }, 'perm:delete'],
      ];
      for (const [url, body, code] of cases) {
        const res = await contact.post(url, body);
        expect(res.status, url).toBe(403);
        expect(res.body.msg).toContain(code);
      }
      const icons = await contact.get('/icon/getList');
      expect(icons.status).toBe(403);
      expect(icons.body.msg).toContain('sys:manage');
    });

    it('validates every field with its rule', async () => {
      const system = (await byCode('dir:system'))!.permission_id;
      const button = (await byCode('perm:list'))!.permission_id;
      const valid = { pid: system, name: '巡检菜单', code: 'menu:inspect', type: 1, route: '/system/inspect', icon: 'FlagOutline', remark: '' };
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ name: '' }, 'name', '请输入权限名'],
        [{ name: '权'.repeat(31) }, 'name', '权限名：不能超过30个文字'],
        [{ code: '' }, 'code', '权限编码：请输入唯一编码'],
        [{ code: 'c'.repeat(31) }, 'code', '权限编码：不能超过30个字符'],
        [{ code: 'menu-inspect' }, 'code', '权限编码：仅限阿拉伯数字、英文字母'],
        [{ type: undefined }, 'type', '请选择类型'],
        [{ type: 3 }, 'type', '请选择类型'],
        [{ route: 'system/inspect' }, 'route', '路由：须以“/”开头，且不能含空格'],
        [{ route: `/${'r'.repeat(100)}` }, 'route', '路由：不能超过100个字符'],
        [{ icon: 'RocketOutline' }, 'icon', '请从图标库中选择图标'],
        [{ remark: '注'.repeat(81) }, 'remark', '备注不能超过80个字符'],
        [{ pid: -1 }, 'pid', '上级权限不正确'],
        [{ pid: 999999 }, 'pid', '所选上级权限不存在'],
        [{ pid: button }, 'pid', '上级权限：类型为“权限”的节点下不能再添加下级'],
      ];
      for (const [patch, field, msg] of cases) {
        const r = await admin.post<Errors>('/permission/save', { ...valid, ...patch });
        expect(r.status, msg).toBe(400);
        expect(r.body.msg).toBe(msg);
        expect(r.body.data.errors[0]!.field).toBe(field);
      }
      const dup = await admin.post('/permission/save', { ...valid, code: 'perm:list' });
      expect(dup.status).toBe(409);
      expect(dup.body.msg).toBe('权限编码“perm:list”已存在');
      expect((await admin.post('/permission/get', { permissionId: 'x' })).status).toBe(400);
      expect((await admin.post('/permission/get', { permissionId: 999999 })).status).toBe(404);
    });

    it('adds a directory, a child menu and its permission, edits and moves them, and refuses a move into its own branch', async () => {
      // A directory keeps no route, whatever is sent.
      const dir = await save({ name: '巡检管理', code: 'dir:inspect', type: 0, route: '/ignored', icon: 'FlagOutline' });
      expect(await byCode('dir:inspect')).toMatchObject({ pid: 0, type: 0, route: null, icon: 'FlagOutline', builtin: 0, role_count: 0 });
      const menu = await save({ pid: String(dir), name: '巡检记录', code: 'menu:inspect', type: 1, route: '/inspect/records', icon: 'FileOutline', remark: '现场巡检' });
      const button = await save({ pid: menu, name: '巡检查询', code: 'inspect:list', type: 2 });
      expect(await byCode('inspect:list')).toMatchObject({ pid: menu, route: null, icon: null });
      const rows = await all();
      // New nodes sort after the catalogue.
      expect(rows.slice(-3).map((r) => r.code)).toEqual(['dir:inspect', 'menu:inspect', 'inspect:list']);

      const edit = await admin.post('/permission/update', {
        permissionId: menu,
        pid: dir,
        name: '巡检台账',
        code: 'menu:inspectLog',
        type: 1,
        route: '/inspect/log',
        icon: 'UnorderedListOutline',
        remark: '',
      });
      expect(edit.body.msg).toBe('编辑成功！');
      expect(await byCode('menu:inspectLog')).toMatchObject({ name: '巡检台账', route: '/inspect/log', icon: 'UnorderedListOutline' });

      const loop = await admin.post('/permission/update', { permissionId: dir, pid: menu, name: '巡检管理', code: 'dir:inspect', type: 0 });
      expect(loop.status).toBe(400);
      expect(loop.body.msg).toBe('上级权限：不能选择本权限或其下级权限');
      const toButton = await admin.post('/permission/update', { permissionId: menu, pid: dir, name: '巡检台账', code: 'menu:inspectLog', type: 2 });
      expect(toButton.status).toBe(400);
      expect(toButton.body.msg).toBe('该权限下还有下级权限，不能改为“权限”类型');
      // Moving the button to the root works; so does moving it back.
      expect((await admin.post('/permission/update', { permissionId: button, pid: 0, name: '巡检查询', code: 'inspect:list', type: 2 })).status).toBe(200);
      expect((await admin.post('/permission/update', { permissionId: button, pid: menu, name: '巡检查询', code: 'inspect:list', type: 2 })).status).toBe(200);
      const dup = await admin.post('/permission/update', { permissionId: button, pid: menu, name: '巡检查询', code: 'menu:inspectLog', type: 2 });
      expect(dup.status).toBe(409);

      const parent = await admin.post('/permission/delete', { permissionId: dir });
      expect(parent.status).toBe(409);
      expect(parent.body.msg).toBe('该权限下还有下级权限，请先删除下级权限');
      for (const id of [button, menu, dir]) expect((await admin.post('/permission/delete', { permissionId: id })).body.msg).toBe('删除成功！');
      expect((await admin.post('/permission/delete', { permissionId: dir })).status).toBe(404);
      expect(await byCode('dir:inspect')).toBeUndefined();
      // A deleted code is free again.
      await admin.post('/permission/delete', { permissionId: await save({ name: '巡检管理', code: 'dir:inspect', type: 0 }) });
    });

    it('keeps built-in codes: only the remark changes, and they cannot be deleted', async () => {
      const node = (await byCode('menu:perm'))!;
      const body = { permissionId: node.permission_id, pid: node.pid, name: node.name, code: node.code, type: node.type, route: node.route, icon: node.icon };
      expect((await admin.post('/permission/update', { ...body, remark: '园区信息中心维护' })).body.msg).toBe('编辑成功！');
      expect((await byCode('menu:perm'))!.remark).toBe('园区信息中心维护');
      for (const patch of [{ name: '权限树' }, { code: 'menu:perms' }, { type: 2 }, { route: '/x' }, { icon: 'FlagOutline' }, { pid: 0 }]) {
        const r = await admin.post('/permission/update', { ...body, ...patch, remark: '' });
        expect(r.status, JSON.stringify(patch)).toBe(409);
        expect(r.body.msg).toBe('内置权限只能修改备注：名称、编码、类型、上级、路由和图标随系统版本维护');
      }
      const del = await admin.post('/permission/delete', { permissionId: (await byCode('perm:delete'))!.permission_id });
      expect(del.status).toBe(409);
      expect(del.body.msg).toBe('内置权限不能删除：系统功能依赖该权限编码');
    });

    it('deletes a permission roles hold together with their bindings, and the holders lose it on their next call', async () => {
      const patrolRole = await roleId('patrol');
      const id = await save({ pid: (await byCode('menu:scan'))!.permission_id, name: '夜间巡检', code: 'scan:night', type: 2 });
      const held = (await admin.post<Array<{ permission_id: number }>>('/permission/findByRoleId', { roleId: patrolRole })).body.data.map((p) => p.permission_id);
      expect((await admin.post('/role/permission/bind', { roleId: patrolRole, permissionIds: [...held, id].join(',') })).body.msg).toBe('绑定权限成功！');
      const patrol = await new Client(server).as('patrol');
      expect((await patrol.get<{ permissions: string[] }>('/user/info')).body.data.permissions).toContain('scan:night');
      expect((await admin.post<PermissionRow>('/permission/get', { permissionId: id })).body.data.role_count).toBe(1);

      const del = await admin.post<{ removedBindings: number }>('/permission/delete', { permissionId: id });
      expect(del.body).toMatchObject({ msg: '删除成功！', data: { removedBindings: 1 } });
      expect(await server.app.ctx.db.selectFrom('sys_role_permission').select('role_id').where('permission_id', '=', id).execute()).toEqual([]);
      expect((await patrol.get<{ permissions: string[] }>('/user/info')).body.data.permissions).not.toContain('scan:night');
      const after = (await admin.post<Array<{ permission_id: number }>>('/permission/findByRoleId', { roleId: patrolRole })).body.data.map((p) => p.permission_id);
      expect(after.sort((a, b) => a - b)).toEqual(held.sort((a, b) => a - b));
    });

    it('shows the admin role holding every permission, its own additions included', async () => {
      const id = await save({ name: '临时目录', code: 'dir:temp', type: 0 });
      const adminHeld = (await admin.post<Array<{ code: string }>>('/permission/findByRoleId', { roleId: await roleId('admin') })).body.data.map((p) => p.code);
      expect(adminHeld.length).toBe((await all()).length);
      expect((await admin.get<{ permissions: string[] }>('/user/info')).body.data.permissions).toContain('dir:temp');
      await admin.post('/permission/delete', { permissionId: id });
    });

    it('pages the one icon set, 72 at a time, searchable by name or code', async () => {
      const first = (await admin.get<never>('/icon/getList')).body as unknown as IconPage;
      expect(first).toMatchObject({ success: true, code: 1000, totalCount: iconSet.length });
      expect(first.data).toHaveLength(72);
      expect(first.data[0]).toEqual({ code: iconSet[0]!.code, title: iconSet[0]!.title });
      const last = (await admin.get<never>('/icon/getList?current=3&pageSize=72')).body as unknown as IconPage;
      expect(last.data).toHaveLength(iconSet.length - 144);
      const users = (await admin.get<never>(`/icon/getList?title=${encodeURIComponent('用户')}`)).body as unknown as IconPage;
      expect(users.data.map((i) => i.code)).toEqual(['UserAddOutline', 'UserCircleOutline', 'UserOutline', 'UserSetOutline']);
      expect(users.totalCount).toBe(4);
      expect(((await admin.get<never>('/icon/getList?title=LOCKFILL')).body as unknown as IconPage).data.map((i) => i.code)).toEqual(['LockFill']);
      const bad = await admin.get<Errors>('/icon/getList?pageSize=0');
      expect(bad.status).toBe(400);
      expect(bad.body.msg).toBe('每页条数至少为1');
      expect((await admin.get('/icon/getList?current=abc')).body.msg).toBe('页码必须是整数');
    });
  });
}
