import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { enums, isEnumName } from '../../domain/enums';
import { ErrorCode } from '../../domain/errors';
import { formatInZone } from '../../domain/time';
import { AppError, ok } from '../core/errors';
import type { ZodTypeProvider } from '../core/route-schema';

export async function commonRoutes(appInstance: FastifyInstance) {
  const app = appInstance.withTypeProvider<ZodTypeProvider>();
  const startedAt = formatInZone(Date.now(), app.ctx.config.tz);

  app.get('/common/enum/:name', { config: { permission: 'role' }, schema: { summary: '一个代码表的选项', querystring: z.object({}) } }, async (req) => {
    const { name } = req.params as { name: string };
    if (!isEnumName(name)) throw new AppError(ErrorCode.NOT_FOUND, `枚举不存在：${name}`);
    return ok(enums[name]);
  });

  // Every code table in one answer: what the PWA loads after sign-in, instead of one call per table.
  app.get('/common/enums', { config: { permission: 'role' }, schema: { summary: '全部代码表', querystring: z.object({}) } }, async () => ok(enums));

  app.get('/system/version', { config: { permission: 'public' }, schema: { summary: '系统版本与运行信息', querystring: z.object({}) } }, async () =>
    ok({
      version: process.env.npm_package_version ?? '0.1.0',
      startedAt,
      database: app.ctx.dialect === 'postgres' ? 'PostgreSQL' : 'SQLite',
      node: process.version,
    }),
  );
}
