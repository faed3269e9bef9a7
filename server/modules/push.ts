import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pushApi } from '../../domain/schemas/notifications';
import { startDispatcher } from '../../server-push/dispatch';
import { loadVapidKeys } from '../../server-push/vapid';
import { ok } from '../core/errors';
import { onNotified } from '../core/notify';
import { route } from '../core/route';
import { listSubscriptions, pushStore, removeSubscription, upsertSubscription } from './push-store';
import { approveGrants } from './quick-approve';

/**
 * An endpoint and its keys are a capability to reach and read one device's
 * pushes: the operation log keeps the push service's host and the label only,
 * also when the body is refused.
 */
function auditOf(body: unknown) {
  const b = (body ?? {}) as { endpoint?: unknown; device_label?: unknown; push_subscription_id?: unknown };
  let host: string | undefined;
  try {
    host = typeof b.endpoint === 'string' ? new URL(b.endpoint).host : undefined;
  } catch {
    host = undefined;
  }
  return { push_service: host, device_label: b.device_label, push_subscription_id: b.push_subscription_id };
}

/** Set before the route's schema runs, so a refused body is logged the same way as an accepted one. */
const auditRawBody = async (req: FastifyRequest) => {
  req.auditParams = auditOf(req.body);
};

/** Web Push (DESIGN.md §2 server-push/): the key, each person's devices, and the dispatcher that sends. */
export async function pushRoutes(app: FastifyInstance) {
  const { ctx } = app;
  const store = pushStore(ctx.db, ctx.dialect);
  const keys = await loadVapidKeys(store);
  // A new task's push carries 同意 with its signed token (modules/quick-approve.ts).
  const dispatcher = startDispatcher({ store, keys, now: () => ctx.now(), time: () => ctx.time(), log: app.log, approveGrant: approveGrants(ctx) });
  const unlisten = onNotified(ctx.db, (_users, push) => {
    if (push) dispatcher.kick();
  });
  app.addHook('preClose', async () => {
    unlisten();
    dispatcher.stop();
    await dispatcher.idle();
  });

  // Subscribing a device needs the application server key; any signed-in user may opt in.
  route(app, pushApi.vapidPublicKey, async () => ok({ publicKey: keys.publicKey }));

  route(app, pushApi.subscriptions, async (req) => {
    const auth = req.auth!;
    const list = await listSubscriptions(ctx.db, auth);
    return ok({ list, total: list.length });
  });

  route(
    app,
    pushApi.subscribe,
    async (req) => {
      const body = req.body;
      const id = await upsertSubscription(ctx.db, req.auth!, body, String(req.headers['user-agent'] ?? ''), ctx.time());
      return ok({ push_subscription_id: id }, '已开启本机推送');
    },
    { preValidation: auditRawBody },
  );

  route(
    app,
    pushApi.unsubscribe,
    async (req) => {
      const body = req.body;
      // Removing a device that is already gone is what the caller wanted: answer success either way.
      const removed = await removeSubscription(ctx.db, req.auth!.userId, body);
      return ok({ removed }, '已关闭推送');
    },
    { preValidation: auditRawBody },
  );
}
