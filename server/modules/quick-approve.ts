import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { appointmentQueueCalls } from '../../domain/appointment-kinds';
import { TaskResult, TaskState, type QueueName } from '../../domain/appointments';
import { ErrorCode } from '../../domain/errors';
import { QUICK_APPROVE_REMARK, type QuickApproveGrant } from '../../domain/notifications';
import { approvalQueues, type ApprovalQueueName, type RegisterQueueName } from '../../domain/registers';
import { carListApi, personListApi } from '../../domain/schemas/black-white-list';
import { quickApproveApi } from '../../domain/schemas/quick-approve';
import { transportListApi } from '../../domain/schemas/transport-list';
import { vehicleRegistrationApi } from '../../domain/schemas/vehicle-registration';
import type { PushRow } from '../../server-push/store';
import { authenticateUser } from '../core/auth';
import type { AppContext } from '../core/context';
import { derivedKey, signFields, verifiedFields, type ServerKeys } from '../core/crypto';
import { AppError, fail, ok } from '../core/errors';
import { claimForAuthenticatedBody } from '../core/idempotency';
import { unitOfWorkRoute } from '../core/unit-of-work';
import type { Db } from '../core/repository';
import { decideTasks } from '../workflow/decide-tasks';
import { missingCode } from '../workflow/queue-routes';
import { subjects } from '../workflow/subjects';

/**
 * 同意 from a new task's notification (docs/approvals.md). The service worker
 * has no session, so each task_assigned push carries a token the server
 * signed: `taskId.userId.expirySeconds.HMAC-SHA-256`, under a key derived
 * from the server's own private key (core/crypto.ts derivedKey, purpose
 * 'quick-approve'), so every server of the database accepts the others'
 * tokens and no other token of the server passes for one. It expires with
 * the push (its TTL, 24 hours) and allows one thing: approving that task as
 * that user with the opinion '同意', while the user is enabled and holds the
 * task's queue check code, through the queue check's own path (decideTasks).
 */

const PURPOSE = 'quick-approve';
const MSG_INVALID = '通知中的审批凭证无效，请打开应用审核';
const MSG_EXPIRED = '通知中的审批凭证已过期（24小时内有效），请打开应用审核';
const MSG_OTHER_TASK = '审批凭证与审批任务不符，请打开应用审核';
const MSG_DISABLED = '账号已停用，不能在通知中审批';

export interface QuickApproveClaims {
  taskId: number;
  userId: number;
  /** Epoch ms, whole seconds. */
  expiresAt: number;
}

export const quickApproveKey = (keys: ServerKeys): Buffer => derivedKey(keys, PURPOSE);

export const signQuickApprove = (key: Buffer, c: QuickApproveClaims): string => signFields(key, [c.taskId, c.userId, Math.floor(c.expiresAt / 1000)]);

/** The claims of a correctly signed token, expired or not (the caller says which); null when malformed or forged. */
export function readQuickApprove(key: Buffer, token: string): QuickApproveClaims | null {
  const f = verifiedFields(key, token, 3);
  return f ? { taskId: f[0]!, userId: f[1]!, expiresAt: f[2]! * 1000 } : null;
}

/** The check call of each queue: where the page's outbox sends a decision (src/components/approval/review-modal.tsx). */
const registerChecks: Record<RegisterQueueName, string> = {
  car_list: carListApi.task.check.path,
  person_list: personListApi.task.check.path,
  registration: vehicleRegistrationApi.task.check.path,
  transport: transportListApi.task.check.path,
};
export const checkPathOf = (queue: ApprovalQueueName): string => (queue in registerChecks ? registerChecks[queue as RegisterQueueName] : appointmentQueueCalls[queue as QueueName].check.path);

const isQueue = (q: string | null): q is ApprovalQueueName => !!q && Object.prototype.hasOwnProperty.call(approvalQueues, q);

/** The record a task is about, named as its notification names it. */
async function subjectName(db: Db, processType: number, refId: number): Promise<string> {
  const def = subjects[processType];
  if (!def) return '一项申请';
  const row = await (db as unknown as Kysely<any>)
    .selectFrom(def.table)
    .select([...def.nameColumns])
    .where(def.key, '=', refId)
    .executeTakeFirst();
  return row ? def.name(row as Record<string, unknown>) : '一项申请';
}

const taskOf = (db: Db, taskId: number) =>
  db.selectFrom('process_task').select(['process_task_id', 'user_id', 'queue', 'state', 'process_type', 'ref_id']).where('process_task_id', '=', taskId).executeTakeFirst();

/**
 * What a task_assigned push carries for 同意 (server-push/dispatch.ts asks, valid until `expiresAt`): the token and
 * what the service worker needs to leave the decision in the page's outbox when offline. None for a task no longer
 * pending, or not the row's user's.
 */
export function approveGrants(ctx: Pick<AppContext, 'db' | 'keys'>) {
  const key = quickApproveKey(ctx.keys);
  return async (row: Pick<PushRow, 'user_id' | 'tag'>, expiresAt: number): Promise<QuickApproveGrant | null> => {
    const m = /^task-(\d{1,10})$/.exec(row.tag);
    if (!m) return null;
    const task = await taskOf(ctx.db, Number(m[1]));
    if (!task || task.user_id !== row.user_id || task.state !== TaskState.PENDING || !isQueue(task.queue)) return null;
    return {
      taskId: task.process_task_id,
      token: signQuickApprove(key, { taskId: task.process_task_id, userId: row.user_id, expiresAt }),
      userId: row.user_id,
      queue: task.queue,
      checkPath: checkPathOf(task.queue),
      refId: task.ref_id,
      name: await subjectName(ctx.db, task.process_type, task.ref_id),
    };
  };
}

export async function quickApproveRoutes(app: FastifyInstance) {
  const { ctx } = app;
  const key = quickApproveKey(ctx.keys);

  unitOfWorkRoute(
    app,
    quickApproveApi.approve,
    async (req, trx) => {
      const auth = req.auth!;
      const { taskId } = req.body;
      const task = await taskOf(trx, taskId);
      // As the queue's check says it: a task that is not the caller's is not there for them.
      if (!task || task.user_id !== auth.userId || !isQueue(task.queue)) return fail(ErrorCode.NOT_FOUND, `审批任务${taskId}不存在或不属于您`);
      const code = approvalQueues[task.queue].check;
      if (!auth.permissions.has(code)) throw missingCode(code);
      // The queue's check, single task: a task settled meanwhile answers the engine's 409 (已由…审核通过，不能重复审核).
      await decideTasks(trx, ctx, { taskIds: [taskId], userId: auth.userId, result: TaskResult.APPROVE, remark: QUICK_APPROVE_REMARK, queues: [task.queue] });
      return ok({ done: [taskId], name: await subjectName(trx, task.process_type, task.ref_id) }, '已同意');
    },
    {
      // 'public' to the guard (the service worker has no session): the token in the body is this route's check, made once the body
      // is validated and before the work; the caller it names then scopes the Idempotency-Key as a session's user would.
      preHandler: async (req) => {
        const body = req.body as { taskId: number; token: string };
        const claims = readQuickApprove(key, body.token);
        if (!claims) throw new AppError(ErrorCode.UNAUTHENTICATED, MSG_INVALID);
        if (claims.expiresAt <= ctx.now()) throw new AppError(ErrorCode.UNAUTHENTICATED, MSG_EXPIRED);
        if (claims.taskId !== body.taskId) throw new AppError(ErrorCode.FORBIDDEN, MSG_OTHER_TASK);
        const auth = await authenticateUser(app, claims.userId);
        if (!auth) throw new AppError(ErrorCode.ACCOUNT_DISABLED, MSG_DISABLED);
        req.auth = auth;
        claimForAuthenticatedBody(req);
      },
    },
  );
}
