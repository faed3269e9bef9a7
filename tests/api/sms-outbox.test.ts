import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEEP_SETTLED_MS, OutboxState, purgeSettledSms } from '../../server/core/sms-outbox';
import type { SmsMessage, SmsSender } from '../../server/core/sms';
import { raiseStrandedAlarmNotifications, sendAlarmSms } from '../../server/modules/stranded/notification';
import { Client, DEMO_PASSWORD, dialects, startServer, type TestServer } from './harness';

/**
 * SMS leave through the outbox after commit (issue 25 item 5): a provider
 * that hangs for 10 s delays no other write, and the message still goes out
 * exactly once. The provider is the server's context's SmsSender, swapped
 * for one that hangs (no switch in the server's code).
 */

const HANG_MS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const dialect of await dialects()) {
  describe(`SMS outbox (${dialect})`, () => {
    let server: TestServer;
    let admin: Client;
    let original: SmsSender;
    /** Every message the provider was handed, in order. */
    const calls: SmsMessage[] = [];
    let hang = false;
    let seq = 0;

    beforeAll(async () => {
      server = await startServer(dialect);
      admin = await new Client(server).as('admin');
      original = server.app.ctx.sms;
      server.app.ctx.sms = {
        async send(m) {
          calls.push(m);
          if (hang) await sleep(HANG_MS);
          await original.send(m);
        },
      };
    });
    afterAll(async () => {
      if (server) server.app.ctx.sms = original;
      await server?.close();
    });

    /** A write made while the provider hangs: it must answer at once. */
    async function promptWrite() {
      const started = Date.now();
      const r = await admin.post<{ id: number }>('/vehicleType/save', { name: `短信期间车型${dialect}${++seq}`, speed: 60, needRecord: 0, showCargoType: 1, checkOverweight: 0, needBlindVideo: 1 });
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true });
      return Date.now() - started;
    }

    const waitForCall = async (n: number) => {
      for (let i = 0; i < 200 && calls.length < n; i++) await sleep(25);
      expect(calls.length).toBeGreaterThanOrEqual(n);
    };

    it('sends a sign-in code after commit while other writes go on, once, and keeps the code out of the settled row', async () => {
      const before = calls.length;
      hang = true;
      const squad = new Client(server);
      const started = Date.now();
      const asked = squad.requestCaptcha('squad');
      await waitForCall(before + 1);
      // The provider hangs now, with the code committed: a save elsewhere answers at once.
      expect(await promptWrite()).toBeLessThan(3000);
      const answer = await asked;
      hang = false;
      expect(answer.body, JSON.stringify(answer.body)).toMatchObject({ success: true, msg: '验证码发送成功' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(HANG_MS - 100);
      expect(calls.slice(before).map((m) => m.account)).toEqual(['squad']);
      // It went out (the file provider wrote it after the hang), and the code signs in.
      const code = squad.latestCode('squad');
      expect(code).toBe(calls[before]!.code);
      const login = await squad.post('/user/v2login', { content: await squad.encrypt({ account: 'squad', password: DEMO_PASSWORD, captcha: code }) });
      expect(login.body, JSON.stringify(login.body)).toMatchObject({ success: true });
      const row = await server.app.ctx.db.selectFrom('outbox_message').selectAll().where('origin', '=', 'captcha').orderBy('message_id', 'desc').limit(1).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ channel: 'sms', state: OutboxState.SENT, error: null });
      expect(row.payload).not.toContain(code!);
      await sleep(200);
      expect(calls.length).toBe(before + 1);
    });

    it('sends an alarm SMS once across concurrent senders while a save answers at once, and records it on the alarm', async () => {
      const { ctx } = server.app;
      const id = (
        await ctx.db
          .insertInto('stranded_alarm')
          .values({
            kind: 'car',
            presence_id: -(900 + (dialect === 'postgres' ? 5000 : 0)),
            level_type: 1,
            entry_time: '2026-05-01 06:10:00',
            alarm_time: '2026-05-01 08:30:00',
            create_time: '2026-05-01 08:30:00',
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
      await ctx.db.transaction().execute(async (trx) => {
        const f = await raiseStrandedAlarmNotifications(trx, ctx, {
          kind: 'car',
          alarmId: id,
          subject: '粤L66666',
          visitArea: 1,
          alarmTime: '2026-05-01 08:30:00',
          black: false,
          gate: '西门车辆道闸1',
          entryTime: '2026-05-01 06:10:00',
        });
        await trx.updateTable('stranded_alarm').set(f).where('id', '=', id).execute();
      });
      const before = calls.length;
      hang = true;
      const first = sendAlarmSms(ctx, id);
      await waitForCall(before + 1);
      expect(await promptWrite()).toBeLessThan(3000);
      // Another sender (this or another server) finds nothing to claim, at once.
      expect(await sendAlarmSms(ctx, id)).toBe(false);
      expect(await first).toBe(true);
      hang = false;
      const sent = calls.slice(before);
      expect(sent.map((m) => m.phone).sort()).toEqual(['13800000001', '13800000007']);
      expect(await sendAlarmSms(ctx, id)).toBe(false);
      expect(calls.length).toBe(before + 2);
      expect(await ctx.db.selectFrom('stranded_alarm').select(['sms_send', 'sms_state', 'sms_error_response']).where('id', '=', id).executeTakeFirstOrThrow()).toEqual({
        sms_send: 1,
        sms_state: 0,
        sms_error_response: null,
      });
      expect(await ctx.db.selectFrom('outbox_message').select(['state', 'error']).where('origin', '=', 'stranded_alarm').where('origin_id', '=', id).execute()).toEqual([
        { state: OutboxState.SENT, error: null },
      ]);
      // Settled rows go in the hourly cleanup once past their keeping time, waiting ones never.
      expect(await purgeSettledSms(ctx.db, ctx.now() + KEEP_SETTLED_MS + 60_000)).toBeGreaterThanOrEqual(2);
      expect(await ctx.db.selectFrom('outbox_message').select('message_id').where('state', 'in', [OutboxState.SENT, OutboxState.FAILED]).execute()).toEqual([]);
    });
  });
}
