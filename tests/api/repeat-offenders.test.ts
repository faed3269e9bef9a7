import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatInZone } from '../../domain/time';
import { addDays, dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import { idNumber } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

type Row = Record<string, any>;

/** Repeat offenders (docs/decisions.md): real alarms of one plate or ID number file a black-list draft into approval, on each dialect. */
for (const dialect of await dialects()) {
  describe(`repeat offenders on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let admin: Client, lead: Client;
    let seq = 0;
    let leadId = 0;

    const at = (minutesAgo: number) => formatInZone(ctx.now() - minutesAgo * 60_000, ctx.config.tz);
    const plateOf = () => `粤L${dialect === 'sqlite' ? 'R' : 'U'}${String(2000 + ++seq).slice(-4)}`;
    /** An alarm as detection raises it (its raising is tests/api/stranded.test.ts's). */
    async function alarm(subject: { plate?: string; idcard?: string; name?: string }, minutesAgo = 30, level = 1): Promise<number> {
      const row = await ctx.db
        .insertInto('stranded_alarm')
        .values({
          kind: subject.plate ? 'car' : 'person',
          presence_id: null,
          application_id: null,
          license_plate: subject.plate ?? '',
          idcard: subject.idcard ?? '',
          person_name: subject.name ?? '',
          visit_area: 1,
          level_type: level,
          entry_time: at(minutesAgo + 60),
          alarm_time: at(minutesAgo),
          create_time: at(minutesAgo),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    }
    const deal = async (id: number, falseAlarm: 0 | 1 = 0, kind: 'car' | 'person' = 'car', who?: Client) => {
      const r = await (who ?? (kind === 'car' ? lead : admin)).post(`/${kind}/stranded/alarmDeal`, { id, false_alarm: falseAlarm, handled_remark: falseAlarm ? '出现误判！' : '判断准确！' });
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true });
    };
    const carEntries = (plate: string) => ctx.db.selectFrom('car_black_white_list').selectAll().where('license_plate', '=', plate).where('deleted', '=', 0).execute();
    const personEntries = (idcard: string) => ctx.db.selectFrom('person_black_white_list').selectAll().where('idcard', '=', idcard).where('deleted', '=', 0).execute();
    const settings = (o: Row) => admin.post('/safetySetting/save', { repeat_offender_threshold: 3, repeat_offender_days: 90, ...o });

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      [admin, lead] = await Promise.all(['admin', 'lead'].map((a) => new Client(server).as(a)));
      leadId = (await ctx.db.selectFrom('sys_user').select('user_id').where('account', '=', 'lead').executeTakeFirstOrThrow()).user_id;
    });
    afterAll(async () => server?.close());

    it('files and submits a black-list draft at the third real alarm of a plate, listing them, and tells the list keepers', async () => {
      const plate = plateOf();
      const ids = [await alarm({ plate }, 300), await alarm({ plate }, 200, 3), await alarm({ plate }, 100), await alarm({ plate }, 50, 5)];
      await deal(ids[0]!);
      // A false alarm does not count.
      await deal(ids[1]!, 1);
      await deal(ids[2]!);
      expect(await carEntries(plate)).toHaveLength(0);
      await deal(ids[3]!);
      const [entry, ...more] = await carEntries(plate);
      expect(more).toHaveLength(0);
      const today = dateOf(ctx.time());
      // Submitted: under review in the list's own process, filed by nobody (the system).
      expect(entry).toMatchObject({ type: 1, status: 1, create_user_id: null, start_time: `${today} 00:00:00`, end_time: `${addDays(today, 365)} 23:59:59` });
      expect(entry!.in_reason).toContain('系统自动提报：90天内3次告警经处理属实');
      for (const id of [ids[0], ids[2], ids[3]]) expect(entry!.in_reason).toContain(`告警${id}`);
      expect(entry!.in_reason).not.toContain(`告警${ids[1]}）`);
      expect(entry!.in_reason).toContain('危化品无运单');
      const task = await ctx.db.selectFrom('process_task').select(['state', 'user_id']).where('process_type', '=', 7).where('ref_id', '=', entry!.id).execute();
      expect(task.length).toBeGreaterThan(0);
      expect(task.every((t) => t.state === 0)).toBe(true);
      // The lead holds carList:add: told, with a link that opens the entry.
      const note = await ctx.db.selectFrom('notification').selectAll().where('user_id', '=', leadId).where('tag', '=', `repeat-offender-car-${entry!.id}`).executeTakeFirst();
      expect(note).toMatchObject({ kind: 'repeat_offender', title: '重复告警自动提报黑名单', url: `/vehicles/car-list?open=${entry!.id}` });
      expect(note!.body).toContain(plate);
      // The keepers read it in their list like any entry, its filer empty.
      const listed = await lead.post<{ list: Row[] }>('/carBlackWhiteList/list', { size: 10, pn: 1, license_plate: plate });
      expect(listed.body, JSON.stringify(listed.body)).toMatchObject({ success: true });
      expect(listed.body.data.list.map((r) => [r.id, r.create_user_name])).toEqual([[entry!.id, null]]);

      // While it is pending, a fourth real alarm files nothing more.
      await deal(await alarm({ plate }, 10));
      expect(await carEntries(plate)).toHaveLength(1);
    });

    it('counts only the window of 安全设置, files nothing while an entry is in force, and reads the threshold from the settings', async () => {
      const old = plateOf();
      for (const minutes of [91 * 1440, 92 * 1440]) await deal(await alarm({ plate: old }, minutes));
      await deal(await alarm({ plate: old }, 5));
      expect(await carEntries(old)).toHaveLength(0);
      // A longer window takes the old ones in.
      expect((await settings({ repeat_offender_days: 120 })).body.success).toBe(true);
      await deal(await alarm({ plate: old }, 4));
      expect((await carEntries(old)).map((e) => e.status)).toEqual([1]);

      const listed = plateOf();
      await ctx.db
        .insertInto('car_black_white_list')
        .values({
          license_plate: listed,
          vehicle_type_id: null,
          type: 1,
          start_time: null,
          end_time: `${addDays(dateOf(ctx.time()), 30)} 23:59:59`,
          status: 2,
          in_reason: '已列入',
          create_user_id: null,
          update_user_id: null,
          create_time: at(0),
          update_time: at(0),
        })
        .execute();
      for (let i = 0; i < 3; i++) await deal(await alarm({ plate: listed }, 20 - i));
      expect(await carEntries(listed)).toHaveLength(1);

      // Two alarms are enough once the threshold says so.
      expect((await settings({ repeat_offender_threshold: 2 })).body.success).toBe(true);
      const two = plateOf();
      await deal(await alarm({ plate: two }, 9));
      await deal(await alarm({ plate: two }, 8));
      expect(await carEntries(two)).toHaveLength(1);
      await settings({});
    });

    it('files a person draft by ID number, and two handlings at once file one', async () => {
      const idcard = idNumber(8800 + ++seq);
      const ids = [];
      for (let i = 0; i < 4; i++) ids.push(await alarm({ idcard, name: '郑某' }, 40 - i));
      await deal(ids[0]!, 0, 'person');
      await deal(ids[1]!, 0, 'person');
      await Promise.all([deal(ids[2]!, 0, 'person'), deal(ids[3]!, 0, 'person', await new Client(server).as('admin'))]);
      const entries = await personEntries(idcard);
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ name: '郑某', idcard_type: 1, type: 1, status: 1 });
    });
  });
}
