import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NoticeAttachment, NoticeRow, ReceivedNotice, ReceivedNoticeDetail } from '../../domain/schemas/notice';
import type { AppContext } from '../../server/core/context';
import { rgbPng } from '../../server/seed/seed-appointments';
import { Client, dialects, startServer, type TestServer } from './harness';

type Row = Record<string, unknown>;
type Errors = { errors: Array<{ field: string; label: string; message: string }> };
type Received = { list: ReceivedNotice[]; total: number; unread: number };

/**
 * 通知公告 (spec 001 §2, §5, §8; issue 27 part 1): the state rule, attachments
 * and, beyond the spec, delivery to the users of the named departments,
 * read counts, and reading an enabled notice's files by exactly those users.
 */
for (const dialect of await dialects()) {
  describe(`notices on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let lead: Client, contact: Client, reviewer: Client, portcontact: Client, patrol: Client;
    const depart: Record<string, number> = {};

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      for (const d of await ctx.db.selectFrom('sys_department').select(['depart_id', 'code']).execute()) depart[d.code] = d.depart_id;
      [lead, contact, reviewer, portcontact, patrol] = await Promise.all(['lead', 'contact', 'reviewer', 'portcontact', 'patrol'].map((a) => new Client(server).as(a)));
    });
    afterAll(async () => server?.close());

    let seq = 0;
    const body = (o: Row = {}): Row => ({ title: `危化品车辆通行提醒${++seq}`, type: 1, content: '即日起危化品车辆须按指定路线行驶。\n请各单位转告司机。', departList: [depart.CNOOC_SHELL], ...o });
    async function create(o: Row = {}): Promise<number> {
      const r = await lead.post<{ notice_id: number }>('/notice/save', body(o));
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true, msg: '创建成功！' });
      return r.body.data.notice_id;
    }
    const setStatus = (noticeId: number, status: number, who = lead) => who.post('/notice/updateStatus', { noticeId, status });
    const row = async (noticeId: number): Promise<NoticeRow> => {
      const r = await lead.get<NoticeRow>(`/notice/detail?noticeId=${noticeId}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data;
    };
    const received = async (who: Client, unread = 0): Promise<Received> => {
      const r = await who.post<Received>('/notice/received/page', { size: 100, pn: 1, unread });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data;
    };
    async function upload(noticeId: number | string, name = 'map.png', bytes: Uint8Array<ArrayBuffer> = new Uint8Array(rgbPng(2, 2, () => [0, 128, 255]))) {
      const form = new FormData();
      form.append('noticeId', String(noticeId));
      form.append('file', new Blob([bytes]), name);
      const r = await fetch(`${server.base}/api/notice/upload`, { method: 'POST', body: form, headers: { authorization: `Bearer ${lead.token}` } });
      return { status: r.status, body: (await r.json()) as { success: boolean; msg: string; data: NoticeAttachment } };
    }
    const readFile = (c: Client, name: string) => fetch(`${server.base}/api/file/${name}`, { headers: { authorization: `Bearer ${c.token}` } }).then((r) => r.status);

    it('refuses a bad notice with the field and the rule, and saves nothing', async () => {
      const before = await ctx.db
        .selectFrom('notice')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      const cases: Array<[Row, string, string]> = [
        [{ title: '' }, 'title', '请输入标题'],
        [{ title: '长'.repeat(51) }, 'title', '标题不能超过50个字符'],
        [{ type: 3 }, 'type', '类型只能是通知或注意事项'],
        [{ content: '   ' }, 'content', '请输入内容'],
        [{ departList: [] }, 'departList', '请选择通知部门'],
        [{ departList: 'a,b' }, 'departList', '通知部门不正确'],
        [{ departList: [987654] }, 'departList', '所选通知部门不存在或已被删除'],
        [{ publish_time: '2026-13-01' }, 'publish_time', '发布时间格式应为 YYYY-MM-DD 或 YYYY-MM-DD HH:mm:ss'],
      ];
      for (const [o, field, message] of cases) {
        const r = await lead.post<Errors>('/notice/save', body(o));
        expect(r.status, JSON.stringify(o)).toBe(400);
        expect(r.body.data.errors, JSON.stringify(r.body)).toContainEqual(expect.objectContaining({ field, message }));
      }
      const after = await ctx.db
        .selectFrom('notice')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n));
      expect((await lead.post('/notice/updateStatus', { noticeId: 'x', status: 1 })).status).toBe(400);
      expect((await lead.post('/notice/updateStatus', { noticeId: 99999999999, status: 1 })).status).toBe(400);
      expect((await lead.post('/notice/updateStatus', { noticeId: 1, status: 0 })).body.msg).toContain('状态只能是启用（1）或停用（2）');
    });

    it('is kept by notice:* holders only; a notice is plain text, a date publish time reads as its day', async () => {
      for (const who of [contact, patrol]) {
        expect((await who.post('/notice/page', { size: 10, pn: 1 })).status).toBe(403);
        expect((await who.post('/notice/save', body())).status).toBe(403);
      }
      const id = await create({ title: '<script>alert(1)</script>', publish_time: '2026-12-01' });
      const r = await row(id);
      expect(r).toMatchObject({ title: '<script>alert(1)</script>', status: 0, publish_time: '2026-12-01 00:00:00', departList: [depart.CNOOC_SHELL], depart_names: ['中海壳牌石油化工有限公司'] });
      expect(r.delivery).toEqual([{ depart_id: depart.CNOOC_SHELL, depart_name: '中海壳牌石油化工有限公司', delivered: 0, read: 0 }]);
      const page = await lead.post<{ list: NoticeRow[]; total: number }>('/notice/page', { size: 10, pn: 1, title: '<script>', status: 0, type: -1 });
      expect(page.body.data.list.map((n) => n.notice_id)).toEqual([id]);
    });

    it('reaches every user of the named departments when enabled, and only them; a reader opening it counts as read', async () => {
      const id = await create();
      expect((await received(contact)).list.some((n) => n.notice_id === id)).toBe(false);
      const on = await setStatus(id, 1);
      expect(on.body, JSON.stringify(on.body)).toMatchObject({ success: true, msg: '修改状态成功' });
      const r = await row(id);
      expect(r.status).toBe(1);
      expect(r.publish_time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      // 王芳 and 李强 work at 中海壳牌; the port's contact does not.
      expect(r.delivery).toEqual([expect.objectContaining({ depart_id: depart.CNOOC_SHELL, delivered: 2, read: 0 })]);
      const mine = await received(contact, 1);
      expect(mine.list.map((n) => n.notice_id)).toContain(id);
      expect(mine.unread).toBeGreaterThanOrEqual(1);
      expect((await received(portcontact)).list.some((n) => n.notice_id === id)).toBe(false);
      expect((await portcontact.get(`/notice/received/detail?noticeId=${id}`)).status).toBe(404);
      const notes = await ctx.db.selectFrom('notification').select(['user_id', 'kind', 'url', 'read_at']).where('tag', '=', `notice-${id}`).execute();
      expect(notes).toHaveLength(2);
      expect(notes.every((n) => n.kind === 'notice' && n.url === `/notices?open=${id}` && n.read_at === null)).toBe(true);

      const detail = await contact.get<ReceivedNoticeDetail>(`/notice/received/detail?noticeId=${id}`);
      expect(detail.body.data).toMatchObject({ notice_id: id, read_time: null, attachments: [] });
      expect((await contact.post('/notice/received/read', { noticeId: id })).status).toBe(200);
      expect((await contact.post('/notice/received/read', { noticeId: id })).status).toBe(200);
      expect((await received(contact, 1)).list.some((n) => n.notice_id === id)).toBe(false);
      expect((await row(id)).delivery).toEqual([expect.objectContaining({ delivered: 2, read: 1 })]);
      // Its notification is read with it; 李强's is not.
      const after = await ctx.db
        .selectFrom('notification')
        .innerJoin('sys_user', 'sys_user.user_id', 'notification.user_id')
        .select(['account', 'read_at'])
        .where('tag', '=', `notice-${id}`)
        .execute();
      expect(after.find((n) => n.account === 'contact')?.read_at).not.toBeNull();
      expect(after.find((n) => n.account === 'reviewer')?.read_at).toBeNull();
    });

    it('follows the state rule: enabled notices are neither edited, deleted nor given files; enable and disable only from their states', async () => {
      const id = await create();
      expect((await setStatus(id, 2)).body.msg).toBe('只有启用的通知可以停用');
      await setStatus(id, 1);
      const again = await setStatus(id, 1);
      expect(again.status).toBe(409);
      expect(again.body.msg).toBe('只有草稿或停用的通知可以启用');
      const edit = await lead.post('/notice/update', { ...body(), noticeId: id });
      expect([edit.status, edit.body.msg]).toEqual([409, '启用中的通知不能编辑，请先停用']);
      const del = await lead.post('/notice/delete', { noticeId: id });
      expect([del.status, del.body.msg]).toEqual([409, '启用中的通知不能删除，请先停用']);
      const up = await upload(id);
      expect([up.status, up.body.msg]).toEqual([409, '启用中的通知不能修改附件，请先停用']);
      expect((await setStatus(id, 2)).body.msg).toBe('修改状态成功');
      expect((await lead.post('/notice/update', { ...body({ title: '已修改的标题' }), noticeId: id })).body.msg).toBe('编辑成功！');
      expect((await lead.post('/notice/delete', { noticeId: id })).body.msg).toBe('删除成功！');
      expect((await lead.get(`/notice/detail?noticeId=${id}`)).status).toBe(404);
      expect((await received(contact)).list.some((n) => n.notice_id === id)).toBe(false);
    });

    it('takes five attachments one at a time, and its files are read by exactly the users it reached while enabled', async () => {
      const id = await create();
      const first = await upload(id, '通行路线图.png');
      expect(first.body, JSON.stringify(first.body)).toMatchObject({ success: true, msg: '上传成功', data: { notice_id: id, file_name: '通行路线图.png', file_type: 'png' } });
      for (let i = 2; i <= 5; i += 1) expect((await upload(id, `附件${i}.png`)).status).toBe(200);
      const sixth = await upload(id, '附件6.png');
      expect([sixth.status, sixth.body.msg]).toEqual([400, '每个通知最多上传5个附件，请先删除不需要的附件']);
      expect((await upload(id, 'evil.html', new TextEncoder().encode('<script>alert(1)</script>'))).status).toBe(415);
      expect((await upload('abc')).status).toBe(400);
      expect((await upload(987654)).status).toBe(404);
      const list = await lead.post<NoticeAttachment[]>('/notice/attachment/list', { noticeId: id });
      expect(list.body.data).toHaveLength(5);
      const file = first.body.data.file_url;

      // A draft's files are its keepers' only.
      expect(await readFile(lead, file)).toBe(200);
      expect(await readFile(contact, file)).toBe(404);
      await setStatus(id, 1);
      expect(await readFile(contact, file)).toBe(200);
      expect(await readFile(reviewer, file)).toBe(200);
      expect(await readFile(portcontact, file)).toBe(404);
      const detail = await contact.get<ReceivedNoticeDetail>(`/notice/received/detail?noticeId=${id}`);
      expect(detail.body.data.attachments.map((a) => a.file_name)[0]).toBe('通行路线图.png');
      expect(detail.body.data.attachment_count).toBe(5);
      const removeWhileOn = await lead.post('/notice/attachment/delete', { id: first.body.data.id });
      expect(removeWhileOn.status).toBe(409);
      // Taken back: the readers lose the notice and its files.
      await setStatus(id, 2);
      expect(await readFile(contact, file)).toBe(404);
      expect((await contact.get(`/notice/received/detail?noticeId=${id}`)).status).toBe(404);
      expect((await lead.post('/notice/attachment/delete', { id: first.body.data.id })).body.msg).toBe('删除成功！');
      expect(await readFile(lead, file)).toBe(200);
      await setStatus(id, 1);
      expect(await readFile(contact, file)).toBe(404);
      expect((await lead.post<NoticeAttachment[]>('/notice/attachment/list', { noticeId: id })).body.data).toHaveLength(4);
    });

    it('saves the attachments a create form chose with the notice, in one go, and only files the writer may use', async () => {
      /** A file uploaded the ordinary way (/file/upload), as the form does before the notice exists. */
      const stored = async (who: Client, name: string, bytes: Uint8Array<ArrayBuffer> = new Uint8Array(rgbPng(2, 2, () => [0, 128, 255]))) => {
        const form = new FormData();
        form.append('file', new Blob([bytes]), name);
        const r = await fetch(`${server.base}/api/file/upload`, { method: 'POST', body: form, headers: { authorization: `Bearer ${who.token}` } });
        return ((await r.json()) as { data: { name: string; size: number } }).data;
      };
      const map = await stored(lead, '绕行路线.png');
      const other = await stored(lead, '检修区域.png');
      const id = await create({
        attachments: [
          { file_url: map.name, file_name: '绕行路线.png' },
          { file_url: other.name, file_name: '检修区域.png' },
        ],
      });
      const saved = (await lead.post<NoticeAttachment[]>('/notice/attachment/list', { noticeId: id })).body.data;
      expect(saved.map((a) => [a.file_name, a.file_url, a.file_type, a.file_size])).toEqual([
        ['绕行路线.png', map.name, 'png', map.size],
        ['检修区域.png', other.name, 'png', other.size],
      ]);
      expect((await row(id)).attachment_count).toBe(2);
      // Read by the notice's readers once it is enabled, as an uploaded attachment is.
      await setStatus(id, 1);
      expect(await readFile(contact, map.name)).toBe(200);

      // Refused whole, naming the field, and nothing saved: someone else's file, an unknown one, six, one twice.
      const theirs = await stored(contact, '别人的.png');
      const count = async () =>
        Number(
          (
            await ctx.db
              .selectFrom('notice')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();
      const six = await Promise.all(Array.from({ length: 6 }, (_, i) => stored(lead, `附件${i}.png`)));
      const cases: Array<[unknown, string]> = [
        [[{ file_url: theirs.name, file_name: '别人的.png' }], '附件“别人的.png”不存在或无权使用，请重新上传（第1个）'],
        [[{ file_url: 'f'.repeat(32) + '.png', file_name: '没有.png' }], '附件“没有.png”不存在或无权使用，请重新上传（第1个）'],
        [six.map((f, i) => ({ file_url: f.name, file_name: `附件${i}.png` })), '每个通知最多上传5个附件，请先删除不需要的附件'],
        [[map, map].map((f) => ({ file_url: f.name, file_name: 'a.png' })), '同一个附件不能添加两次'],
        [[{ file_url: '../park.db', file_name: 'x' }], '附件文件名不正确，请重新上传'],
      ];
      for (const [attachments, message] of cases) {
        const r = await lead.post<Errors>('/notice/save', body({ attachments }));
        expect(r.status, JSON.stringify(r.body)).toBe(400);
        expect(r.body.data.errors, JSON.stringify(r.body)).toContainEqual(expect.objectContaining({ field: expect.stringMatching(/^attachments/), message }));
      }
      expect(await count()).toBe(before);
    });

    it('reaches a department’s whole branch, counted under the department named; re-enabled, only a changed notice comes back unread', async () => {
      const id = await create({ departList: [depart.ENTERPRISES] });
      await setStatus(id, 1);
      const users = await ctx.db
        .selectFrom('sys_user')
        .innerJoin('sys_department', 'sys_department.depart_id', 'sys_user.depart_id')
        .select('user_id')
        .where('sys_department.pid', '=', depart.ENTERPRISES)
        .where('sys_user.status', '=', 1)
        .where('sys_user.deleted', '=', 0)
        .execute();
      expect(users.length).toBeGreaterThanOrEqual(4);
      expect((await row(id)).delivery).toEqual([expect.objectContaining({ depart_id: depart.ENTERPRISES, delivered: users.length, read: 0 })]);
      expect((await received(portcontact, 1)).list.some((n) => n.notice_id === id)).toBe(true);
      await portcontact.post('/notice/received/read', { noticeId: id });
      const count = () =>
        ctx.db
          .selectFrom('notification')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('tag', '=', `notice-${id}`)
          .executeTakeFirstOrThrow()
          .then((r) => Number(r.n));
      const sent = await count();
      // Disabled and enabled again unchanged: nobody is told twice, and a read notice stays read.
      await setStatus(id, 2);
      await setStatus(id, 1);
      expect(await count()).toBe(sent);
      expect((await received(portcontact, 1)).list.some((n) => n.notice_id === id)).toBe(false);
      // Changed while disabled, and narrowed to one company: its users hear again, the others lose it.
      await setStatus(id, 2);
      expect((await lead.post('/notice/update', { ...body({ title: '更新后的通知', departList: [depart.HZ_PORT] }), noticeId: id })).body.msg).toBe('编辑成功！');
      await setStatus(id, 1);
      expect((await received(portcontact, 1)).list.find((n) => n.notice_id === id)?.title).toBe('更新后的通知');
      expect((await received(contact)).list.some((n) => n.notice_id === id)).toBe(false);
      expect((await row(id)).delivery).toEqual([expect.objectContaining({ depart_id: depart.HZ_PORT, read: 0 })]);
    });

    it('filters the page by type (1 通知, 2 注意事项) and by status, each alone or together', async () => {
      type Page = { list: NoticeRow[]; total: number };
      const page = async (filter: Row) => {
        const r = await lead.post<Page>('/notice/page', { size: 100, pn: 1, ...filter });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        return r.body.data;
      };
      const tag = `类型筛选${dialect}`;
      const notice = await create({ title: `${tag}通知`, type: 1 });
      const precaution = await create({ title: `${tag}注意事项草稿`, type: 2 });
      const enabled = await create({ title: `${tag}注意事项启用`, type: 2 });
      expect((await setStatus(enabled, 1)).body.msg).toBe('修改状态成功');
      const ids = async (filter: Row) => (await page({ title: tag, ...filter })).list.map((n) => n.notice_id).sort((a, b) => a - b);

      expect(await ids({})).toEqual([notice, precaution, enabled]);
      expect(await ids({ type: 1 })).toEqual([notice]);
      expect(await ids({ type: 2 })).toEqual([precaution, enabled]);
      expect(await ids({ type: '2' })).toEqual([precaution, enabled]);
      expect(await ids({ status: 1 })).toEqual([enabled]);
      expect(await ids({ status: 0 })).toEqual([notice, precaution]);
      expect(await ids({ type: 2, status: 1 })).toEqual([enabled]);
      expect(await ids({ type: 1, status: 1 })).toEqual([]);
      // -1 or empty is 全部.
      expect(await ids({ type: -1, status: '' })).toEqual([notice, precaution, enabled]);

      // Unscoped by title: every row of a filtered page has that type / status, and the totals add up.
      const all = await page({});
      const byType = await Promise.all([1, 2].map((type) => page({ type })));
      for (const [i, p] of byType.entries()) {
        expect(p.list.length).toBeGreaterThan(0);
        expect(p.list.every((n) => n.type === i + 1)).toBe(true);
      }
      expect(byType[0]!.total + byType[1]!.total).toBe(all.total);
      const on = await page({ status: 1 });
      expect(on.list.map((n) => n.notice_id)).toContain(enabled);
      expect(on.list.every((n) => n.status === 1)).toBe(true);
      const onPrecautions = await page({ type: 2, status: 1 });
      expect(onPrecautions.list.map((n) => n.notice_id)).toContain(enabled);
      expect(onPrecautions.list.every((n) => n.type === 2 && n.status === 1)).toBe(true);
    });

    it('lets one of two concurrent enables win', async () => {
      const id = await create();
      const [a, b] = await Promise.all([setStatus(id, 1), setStatus(id, 1)]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      const notes = await ctx.db.selectFrom('notification').select('user_id').where('tag', '=', `notice-${id}`).execute();
      expect(notes).toHaveLength(2);
    });
  });
}
