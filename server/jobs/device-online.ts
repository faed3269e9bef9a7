import type { FastifyInstance } from 'fastify';
import { OFFLINE_AFTER_MS } from '../../domain/schemas/device-event';
import { markSilentOffline } from '../modules/devices/ingest';
import { startPeriodic } from './periodic';

/**
 * Online state of the park's devices (DESIGN.md §8): once a minute, devices
 * silent for five minutes go offline. One conditional UPDATE, so servers
 * sharing a PostgreSQL change each device once between them.
 */
export function startDeviceOnlineJob(app: FastifyInstance, everyMs = 60_000): () => void {
  return startPeriodic(app, 'device online state', everyMs, async () => {
    const offline = await markSilentOffline(app.ctx.db, app.ctx.time(), app.ctx.now(), OFFLINE_AFTER_MS);
    if (offline > 0) app.log.info({ offline }, '设备离线');
  });
}
