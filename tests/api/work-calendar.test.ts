import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DayKind, addWorkingDays } from '../../domain/work-calendar';
import { readCalendarMarks } from '../../server/modules/work-calendar';
import { Client, dialects, startServer, type TestServer } from './harness';

type Day = { day: string; kind: number; name: string; update_user_name: string; update_time: string };

/** 工作日历 (docs/work-calendar.md) through HTTP, on each dialect. */
for (const dialect of await dialects()) {
  describe(`工作日历 on ${dialect}`, () => {
    let server: TestServer;
    let admin: Client;
    let lead: Client;
    const year = async (y: number | string) => {
      const r = await admin.get<{ year: number; days: Day[] }>(`/workCalendar/list?year=${y}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data;
    };

    beforeAll(async () => {
      server = await startServer(dialect);
      admin = await new Client(server).as('admin');
      lead = await new Client(server).as('lead');
    });
    afterAll(async () => server?.close());

    it('marks a holiday and its 调休 days, lists them by year, and the deadline rule reads them', async () => {
      const holiday = await admin.post<{ days: number }>('/workCalendar/save', { start_date: '2031-10-01', end_date: '2031-10-07', kind: DayKind.HOLIDAY, name: ' 国庆节 ' });
      expect(holiday.body, JSON.stringify(holiday.body)).toMatchObject({ success: true, data: { days: 7 } });
      expect((await admin.post('/workCalendar/save', { start_date: '2031-09-28', end_date: '2031-09-28', kind: '2', name: '国庆节调休' })).body).toMatchObject({ success: true, data: { days: 1 } });
      // The new year's day of the next year is not in this year's list.
      await admin.post('/workCalendar/save', { start_date: '2031-12-31', end_date: '2032-01-01', kind: DayKind.HOLIDAY, name: '元旦' });
      const listed = await year(2031);
      expect(listed.year).toBe(2031);
      expect(listed.days.map((d) => [d.day, d.kind, d.name])).toEqual([
        ['2031-09-28', 2, '国庆节调休'],
        ...['01', '02', '03', '04', '05', '06', '07'].map((d) => [`2031-10-${d}`, 1, '国庆节']),
        ['2031-12-31', 1, '元旦'],
      ]);
      expect(listed.days[0]).toMatchObject({ update_user_name: '系统管理员' });
      expect((await year('2032')).days.map((d) => d.day)).toEqual(['2032-01-01']);

      const marks = await readCalendarMarks(server.app.ctx.db, '2031-09-01');
      // Friday 09-26 + 1 working day: the worked Sunday 09-28; Tuesday 09-30 + 1: Wednesday 10-08, after the week off.
      expect(addWorkingDays('2031-09-26 16:00:00', 1, marks)).toBe('2031-09-28 16:00:00');
      expect(addWorkingDays('2031-09-30 16:00:00', 1, marks)).toBe('2031-10-08 16:00:00');

      // Marking again changes the kind and name; clearing returns the days to the week.
      await admin.post('/workCalendar/save', { start_date: '2031-10-07', end_date: '2031-10-07', kind: DayKind.WORKDAY, name: '' });
      expect((await year(2031)).days.find((d) => d.day === '2031-10-07')).toMatchObject({ kind: 2, name: '' });
      const cleared = await admin.post<{ days: number }>('/workCalendar/clear', { start_date: '2031-10-05', end_date: '2031-10-31' });
      expect(cleared.body).toMatchObject({ success: true, data: { days: 3 } });
      expect((await year(2031)).days.map((d) => d.day)).toEqual(['2031-09-28', '2031-10-01', '2031-10-02', '2031-10-03', '2031-10-04', '2031-12-31']);
    });

    it('refuses bad input in Chinese, naming the field and the rule, and saves nothing', async () => {
      const before = await year(2033);
      const refusals: Array<[Record<string, unknown>, string]> = [
        [{ end_date: '2033-05-01', kind: 1 }, '请选择开始日期'],
        [{ start_date: '2033-02-30', end_date: '2033-03-01', kind: 1 }, '开始日期格式不正确'],
        [{ start_date: '2033-05-01', end_date: '5/3', kind: 1 }, '结束日期格式不正确'],
        [{ start_date: '2033-05-03', end_date: '2033-05-01', kind: 1 }, '结束日期不能早于开始日期'],
        [{ start_date: '2033-05-01', end_date: '2033-06-01', kind: 1 }, '一次最多设置31天'],
        [{ start_date: '2033-05-01', end_date: '2033-05-03' }, '请选择类型'],
        [{ start_date: '2033-05-01', end_date: '2033-05-03', kind: 3 }, '类型必须是节假日（1）或调休上班（2）'],
        [{ start_date: '2033-05-01', end_date: '2033-05-03', kind: 1, name: '劳'.repeat(21) }, '名称不能超过20个字符'],
      ];
      for (const [body, msg] of refusals) {
        const r = await admin.post('/workCalendar/save', body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.body.msg, JSON.stringify(body)).toContain(msg);
      }
      for (const y of ['1999', '2101', 'abc', '2033.5']) {
        const r = await admin.get(`/workCalendar/list?year=${y}`);
        expect(r.status, y).toBe(400);
        expect(r.body.msg).toContain('年份必须是2000到2100之间的整数');
      }
      expect((await admin.post('/workCalendar/clear', { start_date: '2033-05-01', end_date: '2033-07-01' })).body.msg).toContain('一次最多设置31天');
      expect(await year(2033)).toEqual(before);
    });

    it("is the administrator's: others are refused 403", async () => {
      expect((await lead.get('/workCalendar/list?year=2031')).status).toBe(403);
      expect((await lead.post('/workCalendar/save', { start_date: '2031-05-01', end_date: '2031-05-01', kind: 1 })).status).toBe(403);
      expect((await lead.post('/workCalendar/clear', { start_date: '2031-05-01', end_date: '2031-05-01' })).status).toBe(403);
    });
  });
}
