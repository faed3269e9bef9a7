import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DepartmentRow } from '../../domain/schemas/department';
import { Client, dialects, startServer, type TestServer } from './harness';

for (const dialect of await dialects()) {
  describe(`departments on ${dialect}`, () => {
    let server: TestServer;
    let admin: Client;
    let contact: Client;
    beforeAll(async () => {
      server = await startServer(dialect);
      admin = await new Client(server).as('admin');
      contact = await new Client(server).as('contact');
    });
    afterAll(async () => server?.close());
    const all = async (name?: string) => (await admin.post<DepartmentRow[]>('/depart/all', name ? { name } : {})).body.data;

    it('answers the seeded tree as an array, filtered by name, to anyone with a role', async () => {
      const rows = await all();
      expect(rows.length).toBeGreaterThan(5);
      expect(rows.some((d) => d.pid === 0)).toBe(true);
      expect((await all('壳牌')).map((d) => d.name)).toEqual(['中海壳牌石油化工有限公司']);
      expect((await contact.post<DepartmentRow[]>('/depart/all', {})).status).toBe(200);
      expect((await contact.post('/depart/save', { name: 'x', code: 'x', visit_area: 1 })).status).toBe(403);
    });

    it('validates each field with its rule and keeps codes unique', async () => {
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ name: '' }, 'name', '请输入部门名称'],
        [{ name: '部'.repeat(31) }, 'name', '部门名称：不能超过30个文字'],
        [{ code: 'a b' }, 'code', '部门编码：仅限阿拉伯数字、英文字母'],
        [{ visit_area: 4 }, 'visit_area', '请选择所属区域'],
        [{ remark: '注'.repeat(81) }, 'remark', '备注不能超过80个字符'],
        [{ pid: 999999 }, 'pid', '上级部门：所选上级部门不存在'],
      ];
      const valid = { name: '测试部门', code: 'TEST_DEPT', visit_area: 1, remark: '' };
      for (const [patch, field, msg] of cases) {
        const r = await admin.post('/depart/save', { ...valid, ...patch });
        expect(r.status, msg).toBe(400);
        expect(r.body.msg).toBe(msg);
        expect((r.body.data as { errors: Array<{ field: string }> }).errors[0]!.field).toBe(field);
      }
      const ok = await admin.post<{ depart_id: number }>('/depart/save', valid);
      expect(ok.body.msg).toBe('创建成功！');
      const dup = await admin.post('/depart/save', { ...valid, name: '另一个' });
      expect(dup.status).toBe(409);
      expect(dup.body.msg).toBe('部门编码“TEST_DEPT”已存在');
      await admin.post('/depart/delete', { departId: ok.body.data.depart_id });
    });

    it('adds a child, edits, refuses a move into its own branch, and deletes only empty leaves', async () => {
      const parent = (await admin.post<{ depart_id: number }>('/depart/save', { name: '上级', code: 'TREE_P', visit_area: 3 })).body.data.depart_id;
      const child = (await admin.post<{ depart_id: number }>('/depart/save', { pid: parent, name: '下级', code: 'TREE_C', visit_area: 2 })).body.data.depart_id;
      expect((await admin.post<DepartmentRow>('/depart/get', { departId: child })).body.data).toMatchObject({ pid: parent, name: '下级', visit_area: 2 });
      const loop = await admin.post('/depart/update', { departId: parent, pid: child, name: '上级', code: 'TREE_P', visit_area: 3 });
      expect(loop.status).toBe(400);
      expect(loop.body.msg).toBe('上级部门：不能选择本部门或其下级部门');
      expect((await admin.post('/depart/update', { departId: child, pid: parent, name: '下级改名', code: 'TREE_C', visit_area: 1, remark: '备注' })).body.msg).toBe('编辑成功！');
      expect((await admin.post<DepartmentRow>('/depart/get', { departId: child })).body.data).toMatchObject({ name: '下级改名', visit_area: 1, remark: '备注' });
      // A row sent back as it was answered saves: the body takes the row's own names (issue 23).
      const answered = (await admin.post<DepartmentRow>('/depart/get', { departId: child })).body.data;
      expect((await admin.post('/depart/update', { ...answered, departId: answered.depart_id, visit_area: 3 })).body.msg).toBe('编辑成功！');
      expect((await admin.post<DepartmentRow>('/depart/get', { departId: child })).body.data.visit_area).toBe(3);

      const refused = await admin.post('/depart/delete', { departId: parent });
      expect(refused.status).toBe(409);
      expect(refused.body.msg).toBe('该部门下还有下级部门，请先删除下级部门');

      // A department with users keeps them: the delete is refused.
      const withUsers = (await admin.post<DepartmentRow[]>('/depart/all', { name: '中海壳牌' })).body.data[0]!;
      const r = await admin.post('/depart/delete', { departId: withUsers.depart_id });
      expect(r.status).toBe(409);
      expect(r.body.msg).toBe('该部门下还有用户，请先移出或删除这些用户');

      expect((await admin.post('/depart/delete', { departId: child })).body.msg).toBe('删除成功！');
      expect((await admin.post('/depart/delete', { departId: parent })).body.msg).toBe('删除成功！');
      expect((await admin.post('/depart/get', { departId: parent })).status).toBe(404);
      expect((await admin.post('/depart/delete', { departId: parent })).status).toBe(404);
      expect((await admin.post('/depart/get', { departId: 2 ** 31 })).status).toBe(400);
    });
  });
}
