import type { FastifyInstance } from 'fastify';
import { ErrorCode } from '../../../domain/errors';
import { retentionApi, type RetentionPolicyAnswer } from '../../../domain/schemas/retention';
import type { AppContext } from '../../core/context';
import { AppError, ok } from '../../core/errors';
import { route } from '../../core/route';
import { registerRetentionMetrics } from './metrics';
import { policyClasses, readPolicy, savePolicy } from './policy';
import { lastRunProof, previewRetention, RetentionBusyError, runRetention } from './run';

/**
 * 数据保留 (domain/schemas/retention.ts): the policy with the last run's
 * proof, saving it (every value checked by the shared schema before any is
 * saved; the call's operation name puts it in the operation log), the
 * preview, and 立即清理, which runs while the caller waits and answers the
 * proof; a second run while one goes, from any server, is a 409.
 */

async function policyAnswer(ctx: AppContext): Promise<RetentionPolicyAnswer> {
  return { classes: policyClasses(await readPolicy(ctx.db)), last_run: await lastRunProof(ctx.db) };
}

export async function retentionRoutes(app: FastifyInstance) {
  const { ctx } = app;
  registerRetentionMetrics(app);

  route(app, retentionApi.policy, async () => ok(await policyAnswer(ctx)));

  route(app, retentionApi.save, async (req) => {
    const auth = req.auth!;
    await ctx.db.transaction().execute((trx) => savePolicy(trx, req.body, { id: auth.userId, name: auth.userName }, ctx.time()));
    return ok(await policyAnswer(ctx), '保存成功！');
  });

  route(app, retentionApi.preview, async (req) => ok(await previewRetention(ctx, req.body)));

  route(app, retentionApi.run, async (req) => {
    const auth = req.auth!;
    try {
      return ok(await runRetention(ctx, { kind: 'manual', user: { id: auth.userId, name: auth.userName } }), '清理完成');
    } catch (err) {
      if (err instanceof RetentionBusyError) throw new AppError(ErrorCode.STATE_CONFLICT, err.message);
      throw err;
    }
  });
}
