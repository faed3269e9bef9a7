import type { FastifyInstance } from 'fastify';
import { enums, isEnumName } from '../../domain/enums';
import { ErrorCode } from '../../domain/errors';
import { formatInZone } from '../../domain/time';
import { AppError, ok } from '../core/errors';

export async function commonRoutes(app: FastifyInstance) {
  const startedAt = formatInZone(Date.now(), app.ctx.config.tz);

  app.get<{ Params: { name: string } }>('/common/enum/:name', { config: { permission: 'role' } }, async (req) => {
    const { name } = req.params;
    if (!isEnumName(name)) throw new AppError(ErrorCode.NOT_FOUND, `枚举不存在：${name}`);
    return ok(enums[name]);
  });

  // Every code table in one answer: what the PWA loads after sign-in, instead of one call per table.
  app.get('/common/enums', { config: { permission: 'role' } }, async () => ok(enums));

  app.get('/system/version', { config: { permission: 'public' } }, async () =>
    ok({
      version: process.env.npm_package_version ?? '0.1.0',
      startedAt,
      database: app.ctx.dialect === 'postgres' ? 'PostgreSQL' : 'SQLite',
      node: process.version,
    }),
  );
}
