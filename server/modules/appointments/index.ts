import type { FastifyInstance } from 'fastify';
import { applicationRoutes } from './applications';
import { exportRoutes } from './export';
import { queueRoutes } from './queues';
import { labelRoutes } from './label';
import { importRoutes } from './imports';

/** Person and vehicle appointments: applications, history, export, approval queues, flags and imports. */
export async function appointmentRoutes(app: FastifyInstance) {
  await applicationRoutes(app);
  await exportRoutes(app);
  await app.register(queueRoutes);
  await app.register(labelRoutes);
  await app.register(importRoutes);
}
