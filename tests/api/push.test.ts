import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushPayload } from '../../domain/notifications';
import type { PushDevice } from '../../domain/schemas/notifications';
import { notify } from '../../server/core/notify';
import { pruneSubscriptions, pushStore } from '../../server/modules/push-store';
import { quickApproveKey, readQuickApprove } from '../../server/modules/quick-approve';
import { buildApp } from '../../server/app';
import { carApplicationBody } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';
import { decryptPush, PushServiceStandIn, verifyVapid, type FakeSubscription } from './push-service';

/** Web Push through server-push/ to a push service stand-in that checks the headers and decrypts the payload. */

const subscribeBody = (s: FakeSubscription, label = '测试手机') => ({ endpoint: s.endpoint, keys: s.keys, device_label: label });

for (const dialect of await dialects()) {
  describe(`web push (${dialect})`, () => {
    let server: TestServer;
    let service: PushServiceStandIn;
    const as: Record<string, Client> = {};
    let vapidKey = '';
    let seq = 0;
    let today = '';
    let modelId = 0;
    let departId = 0;

    beforeAll(async () => {
      service = await new PushServiceStandIn().start();
      server = await startServer(dialect);
      for (const a of ['contact', 'reviewer', 'squad']) as[a] = await new Client(server).as(a);
      const { db } = server.app.ctx;
      modelId = (await db.selectFrom('vehicle_type').select('id').where('name', '=', '小型汽车').executeTakeFirstOrThrow()).id;
      departId = (await db.selectFrom('sys_department').select('depart_id').where('code', '=', 'CNOOC_SHELL').executeTakeFirstOrThrow()).depart_id;
      today = server.app.ctx.time().slice(0, 10);
      vapidKey = (await as.reviewer!.get<{ publicKey: string }>('/push/vapidPublicKey')).body.data.publicKey;
      // The demo seed's own notifications go out (to nobody) at start; the tests below count only their own pushes.
      const waiting = async () =>
        Number(
          (
            await db
              .selectFrom('notification')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('push_state', '=', 0)
              .executeTakeFirst()
          )?.n,
        );
      for (let i = 0; (await waiting()) > 0; i++) {
        if (i > 150) throw new Error('the seed notifications were never dispatched');
        await new Promise((r) => setTimeout(r, 100));
      }
    });
    afterAll(async () => {
      await server?.close();
      await service?.stop();
    });

    async function submitCar() {
      const plate = `粤P${String(++seq).padStart(4, '0')}${dialect === 'sqlite' ? 'S' : 'G'}`;
      const saved = await as.contact!.post<{ id: number }>(
        '/v2/carApplications/save',
        carApplicationBody({ today, license_plate: plate, applicant_idcard: '441302199001011231', vehicle_type_id: modelId, interviewee_depart_id: departId }),
      );
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      const id = typeof saved.body.data === 'number' ? (saved.body.data as number) : saved.body.data.id;
      const pushed = await as.contact!.post('/carApplications/push', { id });
      expect(pushed.body, JSON.stringify(pushed.body)).toMatchObject({ success: true });
      const row = await server.app.ctx.db.selectFrom('car_application').select(['application_number', 'license_plate']).where('car_application_id', '=', id).executeTakeFirstOrThrow();
      return { id, plate: row.license_plate, number: row.application_number };
    }

    const devices = async (c: Client) => (await c.get<{ list: PushDevice[] }>('/push/subscriptions')).body.data.list;

    it('refuses a subscription with a field-naming Chinese message', async () => {
      const s = service.subscription('refused');
      const plainHttp = await as.reviewer!.post('/push/subscribe', { ...subscribeBody(s), endpoint: 'http://push.example.com/x' });
      expect(plainHttp.status).toBe(400);
      expect(plainHttp.body).toMatchObject({ success: false, code: 1001, msg: '推送地址必须是 https 地址' });
      const noKeys = await as.reviewer!.post('/push/subscribe', { endpoint: s.endpoint });
      expect(noKeys.status).toBe(400);
      expect(noKeys.body.msg).toBe('推送密钥不能为空');
      const badAuth = await as.reviewer!.post('/push/subscribe', { ...subscribeBody(s), keys: { ...s.keys, auth: 'short' } });
      expect(badAuth.body.msg).toContain('推送认证密钥格式不正确');
      expect((await new Client(server).post('/push/subscribe', subscribeBody(s))).status).toBe(401);
    });

    it('pushes a new task to the candidate: TTL, Urgency, VAPID and an RFC 8291 payload the device can decrypt', async () => {
      const phone = service.subscription('reviewer-phone');
      const r = await as.reviewer!.post('/push/subscribe', subscribeBody(phone, '李强的手机'));
      expect(r.body).toMatchObject({ success: true });
      // Subscribing again from the same browser updates the one row.
      await as.reviewer!.post('/push/subscribe', subscribeBody(phone, '李强的手机'));
      const mine = await devices(as.reviewer!);
      expect(mine.filter((d) => d.endpoint === phone.endpoint)).toEqual([expect.objectContaining({ device_label: '李强的手机', current: true })]);

      const car = await submitCar();
      const push = await service.next('/push/reviewer-phone');
      expect(push.headers.ttl).toBe(String(24 * 3600));
      expect(push.headers.urgency).toBe('high');
      expect(push.headers['content-encoding']).toBe('aes128gcm');
      const vapid = await verifyVapid(push.headers.authorization, service.origin);
      expect(vapid.publicKey).toBe(vapidKey);
      expect(vapid.sub).toMatch(/^mailto:/);
      expect(vapid.exp * 1000).toBeGreaterThan(Date.now());
      expect(vapid.exp * 1000).toBeLessThanOrEqual(Date.now() + 24 * 3600_000);

      const payload = JSON.parse(decryptPush(phone, push.body)) as PushPayload;
      const task = await server.app.ctx.db
        .selectFrom('process_task')
        .select('process_task_id')
        .where('ref_id', '=', car.id)
        .where('process_type', '=', 2)
        .where('user_id', '=', await userId('reviewer'))
        .executeTakeFirstOrThrow();
      expect(payload).toEqual({
        title: '新的审批任务',
        body: `车辆预约审核：${car.plate}（${car.number}）待您审核`,
        url: `/approval/car?open=${task.process_task_id}`,
        tag: `task-${task.process_task_id}`,
        kind: 'task_assigned',
        // 同意 and 查看 (docs/approvals.md): the signed token, and what the service worker needs to queue the decision offline.
        actions: [
          { action: 'approve', title: '同意' },
          { action: 'view', title: '查看' },
        ],
        approve: {
          taskId: task.process_task_id,
          token: expect.any(String),
          userId: await userId('reviewer'),
          queue: 'car_task',
          checkPath: '/carApplications/task/check',
          refId: car.id,
          name: `${car.plate}（${car.number}）`,
        },
      });
      // The token names this task and its approver, and lives as long as the push (its TTL).
      const claims = readQuickApprove(quickApproveKey(server.app.ctx.keys), payload.approve!.token);
      expect(claims).toMatchObject({ taskId: task.process_task_id, userId: await userId('reviewer') });
      expect(claims!.expiresAt).toBeGreaterThan(Date.now() + 24 * 3600_000 - 60_000);
      expect(claims!.expiresAt).toBeLessThanOrEqual(Date.now() + 24 * 3600_000);
      // The device list shows when it last got one: stored once the push service has answered, a moment after it received the push.
      await expect.poll(async () => (await devices(as.reviewer!)).find((d) => d.endpoint === phone.endpoint)!.last_push_time, { timeout: 5000 }).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    });

    it('tells the applicant of the final decision with normal urgency', async () => {
      const phone = service.subscription('contact-phone');
      expect((await as.contact!.post('/push/subscribe', subscribeBody(phone))).body.success).toBe(true);
      const car = await submitCar();
      const decide = async (who: string, page: string, check: string) => {
        const list = (await as[who]!.post<{ list: Array<{ process_task_id: number; ref_id: number }> }>(page, { size: 50, pn: 1, application_number: car.number })).body.data.list;
        const r = await as[who]!.post(check, { taskIds: String(list.find((t) => t.ref_id === car.id)!.process_task_id) });
        expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true });
      };
      await decide('reviewer', '/carApplications/task/page', '/carApplications/task/check');
      await decide('squad', '/carApplications/shdd_final/taskPage', '/carApplications/shdd_final/taskCheck');
      const push = await service.next('/push/contact-phone');
      expect(push.headers.urgency).toBe('normal');
      expect(push.headers.ttl).toBe(String(3 * 24 * 3600));
      // Any other kind carries no buttons and no token.
      expect(JSON.parse(decryptPush(phone, push.body))).toEqual({
        title: '预约已通过',
        body: `车辆预约 ${car.plate}（${car.number}） 已审核通过`,
        url: `/appointments/car?open=${car.id}`,
        tag: `application-car-${car.id}`,
        kind: 'application_decided',
      });
    });

    it('deletes a subscription the push service answers 410 or 404 to, and keeps one that failed for now', async () => {
      const gone = service.subscription('gone');
      const missing = service.subscription('missing');
      const busy = service.subscription('busy');
      service.answer('/push/gone', 410);
      service.answer('/push/missing', 404);
      service.answer('/push/busy', 503);
      const squad2 = await new Client(server).as('squad');
      await as.squad!.post('/push/subscribe', subscribeBody(gone, '旧手机'));
      await as.squad!.post('/push/subscribe', subscribeBody(missing, '旧平板'));
      await squad2.post('/push/subscribe', subscribeBody(busy, '办公电脑'));
      expect((await devices(as.squad!)).length).toBe(3);

      const { ctx } = server.app;
      const squadId = await userId('squad');
      await ctx.db
        .transaction()
        .execute((trx) => notify(trx, ctx, [{ userId: squadId, kind: 'stranded_alarm', title: '车辆滞留告警', body: '测试', url: '/security/stranded-car', tag: 'stranded-car-1' }]));
      await service.next('/push/gone');
      await service.next('/push/missing');
      await service.next('/push/busy');
      await expect.poll(async () => (await devices(as.squad!)).map((d) => d.device_label), { timeout: 5000 }).toEqual(['办公电脑']);
      // Each answer is stored as it comes, in no fixed order: the 503 may land after the removals.
      await expect.poll(async () => (await devices(as.squad!))[0]!.last_push_error, { timeout: 5000 }).toBe('推送服务返回 503');
      // A 503 is retried later rather than dropped.
      const row = await ctx.db
        .selectFrom('notification')
        .select(['push_state', 'push_lease', 'push_attempts'])
        .where('user_id', '=', squadId)
        .where('tag', '=', 'stranded-car-1')
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ push_state: 0, push_attempts: 1 });
      expect(row.push_lease).toBeGreaterThan(Date.now() + 10_000);
    });

    it('stops pushing to a device once its session has signed out, and unsubscribes only the caller’s own devices', async () => {
      const laptop = service.subscription('reviewer-laptop');
      const second = await new Client(server).as('reviewer');
      expect((await second.post('/push/subscribe', subscribeBody(laptop, '笔记本'))).body.success).toBe(true);
      expect((await devices(as.reviewer!)).find((d) => d.endpoint === laptop.endpoint)!.current).toBe(false);
      expect((await second.post('/user/logout', {})).body.success).toBe(true);
      const before = service.count('/push/reviewer-laptop');
      const phoneBefore = service.count('/push/reviewer-phone');
      await submitCar();
      await service.next('/push/reviewer-phone', phoneBefore);
      expect(service.count('/push/reviewer-laptop')).toBe(before);
      // The hourly prune forgets it; the live session's device stays.
      expect(await pruneSubscriptions(server.app.ctx.db, Date.now())).toBeGreaterThanOrEqual(1);
      expect((await devices(as.reviewer!)).map((d) => d.endpoint.split('/').pop())).toEqual(expect.arrayContaining(['reviewer-phone']));
      expect((await devices(as.reviewer!)).some((d) => d.endpoint === laptop.endpoint)).toBe(false);

      // Another person's device id or endpoint removes nothing.
      const phone = (await devices(as.reviewer!)).find((d) => d.endpoint.endsWith('/reviewer-phone'))!;
      expect((await as.contact!.post('/push/unsubscribe', { push_subscription_id: phone.push_subscription_id })).body.data).toEqual({ removed: 0 });
      expect((await as.contact!.post('/push/unsubscribe', { endpoint: phone.endpoint })).body.data).toEqual({ removed: 0 });
      expect((await as.contact!.post('/push/unsubscribe', {})).body.msg).toBe('请提供推送地址或设备ID');
      expect((await as.reviewer!.post('/push/unsubscribe', { endpoint: phone.endpoint })).body.data).toEqual({ removed: 1 });
      expect((await devices(as.reviewer!)).some((d) => d.endpoint === phone.endpoint)).toBe(false);
    });

    it('keeps the subscription keys out of the operation log', async () => {
      const rows = await server.app.ctx.db.selectFrom('sys_operation_log').select(['operation', 'params']).where('operation', '=', '开启推送通知').execute();
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) {
        expect(r.params).not.toContain('p256dh');
        expect(r.params).not.toContain('/push/');
        expect(r.params).not.toContain('push.example.com/x');
      }
    });

    if (dialect === 'postgres') {
      it('lets two servers on one database claim each unsent row exactly once', async () => {
        const { ctx } = server.app;
        const other = await buildApp({ ...ctx.config, seedDemo: false, logLevel: 'warn' });
        try {
          const squadId = await userId('squad');
          // Rows committed by "a server that crashed before pushing", with a lease that runs out an hour from
          // now: the claims below act at that time, while both servers' own dispatchers (real time) leave them alone.
          const later = Date.now() + 3600_000;
          const ids = (
            await ctx.db
              .insertInto('notification')
              .values(
                Array.from({ length: 40 }, (_, i) => ({
                  user_id: squadId,
                  kind: 'task_assigned',
                  title: 't',
                  body: 'b',
                  url: '/',
                  tag: `claim-${i}`,
                  create_time: ctx.time(),
                  created_at: Date.now(),
                  read_at: null,
                  push_lease: later - 1,
                })),
              )
              .returning('notification_id')
              .execute()
          ).map((r) => r.notification_id);
          const claim = (app: typeof other) => pushStore(app.ctx.db, 'postgres').claim(later, later + 2 * 60_000, 15);
          const claims = await Promise.all([claim(server.app), claim(other), claim(server.app), claim(other)]);
          // (The 503 row of an earlier test is due by then too.)
          const claimed = claims
            .flat()
            .map((r) => r.notification_id)
            .filter((id) => ids.includes(id));
          // Four claimers of 15 over 40 rows: SKIP LOCKED lets them share the work instead of colliding, and none twice.
          expect(claimed.sort((a, b) => a - b)).toEqual(ids);
          const attempts = await ctx.db.selectFrom('notification').select('push_attempts').where('notification_id', 'in', ids).execute();
          expect(attempts.map((a) => a.push_attempts)).toEqual(ids.map(() => 1));
          expect(await claim(other)).toEqual([]);
        } finally {
          await other.close();
        }
      });
    }

    const userIds = new Map<string, number>();
    async function userId(account: string) {
      if (!userIds.has(account)) userIds.set(account, (await server.app.ctx.db.selectFrom('sys_user').select('user_id').where('account', '=', account).executeTakeFirstOrThrow()).user_id);
      return userIds.get(account)!;
    }
  });
}
