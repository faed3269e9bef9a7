import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { InstanceState, TaskResult, TaskState } from '../../domain/appointments';
import { ProcessEventKind, TaskOrigin } from '../../domain/approval-events';
import { ErrorCode } from '../../domain/errors';
import { approvalQueues, type ApprovalQueueName } from '../../domain/registers';
import { SignerMode, taskActionApi, taskActionLabels, type CandidateRow } from '../../domain/schemas/task-actions';
import type { AppContext, AuthContext } from '../core/context';
import { AppError, fail, ok } from '../core/errors';
import type { Db } from '../core/repository';
import { route } from '../core/route';
import type { DB } from '../db/schema';
import { instanceNode, type ChainNode } from './chain';
import { addSignerTask, decide, describeSettled, handOverTask, lockInstance, requireTask, suspendTask } from './engine';
import { recordEvents } from './events';
import { missingCode } from './queue-routes';

/**
 * 转交 and 加签 (docs/approvals.md): what an approver may do with their own
 * pending task besides deciding it. Each runs under the engine's lock order
 * (the application, then its instance) and checks who may be chosen on the
 * server: a hand-over goes to another holder of the node's role in the
 * node's departments; an added signer must be able to review this kind of
 * application (hold its queue's list code). Never the applicant (separation
 * of duties), never the caller, never someone already approving there.
 */

type Purpose = 'transfer' | 'signer';

interface OwnTask {
  task: { process_task_id: number; process_instance_id: number; definition_node_id: number; sort: number; process_type: number; queue: string | null; ref_id: number; user_id: number };
  inst: { process_instance_id: number; process_type: number; ref_id: number; create_time: string; applicant_user_id: number; interviewee_depart_id: number | null };
  node: ChainNode;
}

const notYours = (taskId: number) => fail(ErrorCode.NOT_FOUND, `审批任务${taskId}不存在或不属于您`);

/** The caller's pending task at its instance's current node, under the lock order's locks; 404 for anybody else's, 409 once settled. */
async function lockOwnTask(trx: Db, ctx: AppContext, taskId: number, auth: AuthContext): Promise<OwnTask> {
  const read = () =>
    trx
      .selectFrom('process_task')
      .select(['process_task_id', 'process_instance_id', 'definition_node_id', 'sort', 'process_type', 'queue', 'ref_id', 'user_id', 'state'])
      .where('process_task_id', '=', taskId)
      .executeTakeFirst();
  const seen = await read();
  if (!seen || seen.user_id !== auth.userId) notYours(taskId);
  const queue = seen!.queue ? approvalQueues[seen!.queue as ApprovalQueueName] : undefined;
  if (queue && !auth.permissions.has(queue.check)) throw missingCode(queue.check);
  const inst = await lockInstance(trx, ctx, seen!.process_instance_id, { processType: seen!.process_type, refId: seen!.ref_id });
  const task = (await read())!;
  if (task.state !== TaskState.PENDING) fail(ErrorCode.STATE_CONFLICT, await describeSettled(trx, taskId));
  if (inst.state !== InstanceState.RUNNING || inst.current_sort !== task.sort) fail(ErrorCode.STATE_CONFLICT, '审批流程已不在该节点，不能再转交或加签');
  const node = await instanceNode(trx, inst.process_instance_id, task.sort);
  if (!node) fail(ErrorCode.STATE_CONFLICT, '审批流程节点不存在，请联系管理员');
  return { task, inst, node: node! };
}

/** Who may be chosen for `purpose` at the task's node: enabled users, by the rules above; `only` narrows to one user (the check of a choice). */
async function candidates(db: Db, own: OwnTask, purpose: Purpose, callerId: number, only?: number): Promise<CandidateRow[]> {
  const { task, inst, node } = own;
  let q = (db as Kysely<DB>)
    .selectFrom('sys_user as u')
    .leftJoin('sys_department as d', 'd.depart_id', 'u.depart_id')
    .select(['u.user_id', 'u.user_name', 'd.name as depart_name'])
    .where('u.status', '=', 1)
    .where('u.deleted', '=', 0)
    .where('u.user_id', 'not in', [inst.applicant_user_id, callerId])
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('process_task as o')
            .select('o.process_task_id')
            .where('o.process_instance_id', '=', task.process_instance_id)
            .where('o.sort', '=', task.sort)
            .where('o.state', 'in', [TaskState.PENDING, TaskState.WAITING])
            .whereRef('o.user_id', '=', 'u.user_id'),
        ),
      ),
    );
  const holdsRole = (roleId: number) =>
    q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('sys_user_role as ur')
          .innerJoin('sys_role as r', 'r.role_id', 'ur.role_id')
          .select('ur.role_id')
          .whereRef('ur.user_id', '=', 'u.user_id')
          .where('ur.role_id', '=', roleId)
          .where('r.status', '=', 1)
          .where('r.deleted', '=', 0),
      ),
    );
  const queue = task.queue ? approvalQueues[task.queue as ApprovalQueueName] : undefined;
  if (purpose === 'transfer' || !queue) {
    q = holdsRole(node.role_id);
    if (purpose === 'transfer') {
      // The node's department scope: the visited enterprise for its check, else its departments.
      const departs = node.company_check === 1 ? (inst.interviewee_depart_id ? [inst.interviewee_depart_id] : []) : node.departIds;
      if (!departs.length) return [];
      q = q.where('u.depart_id', 'in', departs);
    }
  } else {
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('sys_user_role as ur')
          .innerJoin('sys_role as r', 'r.role_id', 'ur.role_id')
          .innerJoin('sys_role_permission as rp', 'rp.role_id', 'r.role_id')
          .innerJoin('sys_permission as p', 'p.permission_id', 'rp.permission_id')
          .select('ur.role_id')
          .whereRef('ur.user_id', '=', 'u.user_id')
          .where('r.status', '=', 1)
          .where('r.deleted', '=', 0)
          .where('p.code', '=', queue.list)
          .where('p.status', '=', 1)
          .where('p.deleted', '=', 0),
      ),
    );
  }
  if (only !== undefined) q = q.where('u.user_id', '=', only);
  const rows = await q.orderBy('u.user_id').limit(200).execute();
  return rows.map((r) => ({ user_id: r.user_id, user_name: r.user_name, depart_name: r.depart_name ?? '' }));
}

/** The one user chosen, if they may be; 400 naming the field otherwise. */
async function chosen(trx: Db, own: OwnTask, purpose: Purpose, callerId: number, userId: number): Promise<CandidateRow> {
  const [user] = await candidates(trx, own, purpose, callerId, userId);
  if (user) return user;
  const message =
    purpose === 'transfer'
      ? '所选人员不能接收此任务：须持有该节点的审核角色、在节点的部门范围内，且不是申请人本人或已在此节点审批'
      : '所选人员不能加签：须能审核此类申请，且不是申请人本人或已在此节点审批';
  throw new AppError(ErrorCode.VALIDATION, `${taskActionLabels.userId}：${message}`, { errors: [{ field: 'userId', label: taskActionLabels.userId, message }] });
}

export async function taskActionRoutes(app: FastifyInstance) {
  const { ctx } = app;
  const { db } = ctx;

  route(app, taskActionApi.candidates, async (req) => {
    const { taskId, purpose } = req.body;
    // Read under the same checks as the actions (a plain transaction: nothing is written).
    const list = await db.transaction().execute(async (trx) => candidates(trx, await lockOwnTask(trx, ctx, taskId, req.auth!), purpose, req.auth!.userId));
    return ok(list);
  });

  route(app, taskActionApi.transfer, async (req) => {
    const { taskId, userId, reason } = req.body;
    const auth = req.auth!;
    const id = await db.transaction().execute(async (trx) => {
      const own = await lockOwnTask(trx, ctx, taskId, auth);
      const to = await chosen(trx, own, 'transfer', auth.userId, userId);
      const depart = await trx.selectFrom('sys_user').select('depart_id').where('user_id', '=', to.user_id).executeTakeFirstOrThrow();
      const created = await handOverTask(trx, ctx, taskId, auth.userId, { ...to, depart_id: depart.depart_id }, reason);
      await recordEvents(trx, ctx, [
        {
          process_instance_id: own.task.process_instance_id,
          process_task_id: created,
          sort: own.task.sort,
          kind: ProcessEventKind.TRANSFER,
          user_id: auth.userId,
          text: `${auth.userName}转交给${to.user_name}：${reason}`,
        },
      ]);
      return created;
    });
    return ok({ process_task_id: id }, '转交成功');
  });

  route(app, taskActionApi.addSigner, async (req) => {
    const { taskId, userId, mode, remark } = req.body;
    const auth = req.auth!;
    await db.transaction().execute(async (trx) => {
      const own = await lockOwnTask(trx, ctx, taskId, auth);
      const signer = await chosen(trx, own, 'signer', auth.userId, userId);
      const { task, inst } = own;
      const place = { ...inst, sort: task.sort, definition_node_id: task.definition_node_id, queue: task.queue, taskId };
      let text: string;
      if (mode === SignerMode.AFTER) {
        await decide(trx, ctx, { taskId, userId: auth.userId, result: TaskResult.APPROVE, remark: remark || '同意', addAfter: signer.user_id });
        text = `后加签：${auth.userName}已同意，再由${signer.user_name}审核`;
      } else if (mode === SignerMode.BEFORE) {
        if (!(await suspendTask(trx, taskId, auth.userId))) fail(ErrorCode.STATE_CONFLICT, await describeSettled(trx, taskId));
        await addSignerTask(trx, ctx, place, signer.user_id, TaskOrigin.ADDED_BEFORE);
        text = `前加签：先由${signer.user_name}审核，通过后回到${auth.userName}`;
      } else {
        await requireTask(trx, taskId);
        await addSignerTask(trx, ctx, place, signer.user_id, TaskOrigin.ADDED_ALONGSIDE);
        text = `并加签：${signer.user_name}与${auth.userName}都须审核通过`;
      }
      await recordEvents(trx, ctx, [
        {
          process_instance_id: task.process_instance_id,
          process_task_id: taskId,
          sort: task.sort,
          kind: ProcessEventKind.ADD_SIGNER,
          user_id: auth.userId,
          text: remark && mode !== SignerMode.AFTER ? `${text}（${remark}）` : text,
        },
      ]);
    });
    return ok(null, '加签成功');
  });
}
