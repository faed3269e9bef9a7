import type { FastifyInstance } from 'fastify';
import { enums, isEnumName } from '../../domain/enums';
import { commonApi, enumParams } from '../../domain/schemas/common-api';
import { ErrorCode } from '../../domain/errors';
import { formatInZone } from '../../domain/time';
import { AppError, ok } from '../core/errors';
import { route } from '../core/route';

export async function commonRoutes(app: FastifyInstance) {
  const startedAt = formatInZone(Date.now(), app.ctx.config.tz);

  route(
    app,
    commonApi.enum,
    async (req) => {
      const { name } = req.params as { name: string };
      if (!isEnumName(name)) throw new AppError(ErrorCode.NOT_FOUND, `枚举不存在：${name}`);
      return ok(enums[name]);
    },
    { params: enumParams },
  );

  // Every code table in one answer: what the PWA loads after sign-in, instead of one call per table.
  route(app, commonApi.enums, async () => ok(enums));

  route(app, commonApi.version, async () =>
    ok({
      version: process.env.npm_package_version ?? '0.1.0',
      startedAt,
      database: app.ctx.dialect === 'postgres' ? 'PostgreSQL' : 'SQLite',
      node: process.version,
    }),
  );
}
