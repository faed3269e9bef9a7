import type { FastifyInstance } from 'fastify';
import { loadVapidKeys } from '../../server-push/vapid';
import { ok } from '../core/errors';

export async function pushRoutes(app: FastifyInstance) {
  const keys = await loadVapidKeys(app.ctx.db);
  // Subscribing a device needs the application server key; any signed-in user may opt in.
  app.get('/push/vapidPublicKey', { config: { permission: 'signed-in' } }, async () => ok({ publicKey: keys.publicKey }));
}
