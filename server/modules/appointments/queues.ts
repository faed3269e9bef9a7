import type { FastifyInstance } from 'fastify';
import { type Kysely, type Transaction } from 'kysely';
import { appointmentQueueCalls, kindCalls } from '../../../domain/appointment-kinds';
import { AppState, queueNames, queues, type AppointmentKind, type QueueName } from '../../../domain/appointments';
import { ErrorCode } from '../../../domain/errors';
import type { FieldError } from '../../../domain/visit-rules';
import type { AuthContext } from '../../core/context';
import { fail, ok } from '../../core/errors';
import type { AnySelect, Db } from '../../core/repository';
import { ruleFailure } from '../../core/validate';
import { route } from '../../core/route';
import type { DB } from '../../db/schema';
import { lockSubjectRow, processInfo } from '../../workflow/engine';
import { pendingTaskOn } from '../../workflow/subject-actions';
import { missingCode, queueRoutes as approvalQueueRoutes, taskColumns, textFilterConditions, wrapTask, type TaskFields } from '../../workflow/queue-routes';
import { kinds } from './kinds';
import { applicationsByKeys, assertRegistered, loadApplication, visitModelOf, type ApplicationRecord } from './service';

/**
 * The seven approval queues of spec 000 §2 (pages, checks, task detail) and
 * the approver's visit-date amend. Each queue's calls are declared in domain
 * (appointmentQueueCalls, kindCalls); the routes are registered in a loop.
 */

type AnyDb = Kysely<any> | Transaction<any>;

const queuesOf = (kind: AppointmentKind) => (Object.keys(queues) as QueueName[]).filter((q) => queues[q].kind === kind);

/** JSON text columns come back as objects, as the application forms send them. */
function parseJsonColumns<T extends Record<string, unknown>>(row: T, columns: readonly string[]): T {
  const out: Record<string, unknown> = { ...row };
  for (const c of columns) {
    const v = out[c];
    if (typeof v === 'string') {
      try {
        out[c] = v ? JSON.parse(v) : null;
      } catch {
        out[c] = null;
      }
    }
  }
  return out as T;
}

export async function queueRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const anyDb = db as unknown as Kysely<any>;

  for (const name of queueNames) {
    const queue = queues[name];
    const kind = queue.kind as AppointmentKind;
    const k = kinds[kind];
    approvalQueueRoutes(app, {
      name,
      table: k.table,
      calls: appointmentQueueCalls[name],
      batch: queue.batch,
      wrapper: k.wrapper,
      rowFilters: (q, auth) => [
        ...textFilterConditions(k.textFilters, q),
        ...(['visitor_type', 'visit_area'] as const).flatMap((f) => (q[f] !== undefined ? [(s: AnySelect) => s.where(`a.${f}`, '=', q[f])] : [])),
        // The department filter is shown only with the queue's showDept code; without it the value is ignored, not refused.
        ...(q.interviewee_depart_id !== undefined && auth.permissions.has(queue.showDept) ? [(s: AnySelect) => s.where('a.interviewee_depart_id', '=', q.interviewee_depart_id)] : []),
      ],
      rowsById: async (ctx, ids) => {
        const rows = await applicationsByKeys(ctx, kind, ids);
        return new Map(rows.map((r) => [r[kinds[kind].key] as number, parseJsonColumns(r, kinds[kind].jsonColumns)]));
      },
    });
  }

  for (const kind of ['car', 'person'] as const) {
    const k = kinds[kind];
    const calls = kindCalls[kind];
    const kindQueues = queuesOf(kind);

    /** One of the caller's tasks of this kind; 404 for anyone else's. */
    const ownTask = async (auth: AuthContext, taskId: number) => {
      const task = (await anyDb
        .selectFrom('process_task as t')
        .innerJoin('process_instance_node as d', (j) => j.onRef('d.process_instance_id', '=', 't.process_instance_id').onRef('d.sort', '=', 't.sort'))
        .select([...taskColumns])
        .where('t.process_task_id', '=', taskId)
        .where('t.user_id', '=', auth.userId)
        .where('t.queue', 'in', kindQueues)
        .executeTakeFirst()) as TaskFields | undefined;
      if (!task) fail(ErrorCode.NOT_FOUND, `审批任务${taskId}不存在或不属于您`);
      return task!;
    };

    // 'role' at the guard: which code applies depends on the queue the task is in, checked below.
    route(app, calls.taskDetail, async (req) => {
      const { id } = req.query;
      const task = await ownTask(req.auth!, id);
      const q = queues[task.queue as QueueName];
      if (!req.auth!.permissions.has(q.list) && !req.auth!.permissions.has(q.check)) throw missingCode(q.list);
      const application = await loadApplication(db, kind, task.ref_id);
      // The wrapper's key is the kind's: this side holds the wrapped row as a plain record.
      return ok({ ...wrapTask(k.table, k.wrapper, task, application as unknown as Record<string, unknown>), processInfo: await processInfo(db, task.process_instance_id) } as never);
    });

    /**
     * Whether the caller may amend the visit dates: they hold a pending task of
     * the instance, the check code of that task's queue, and the application is
     * under review. Answers the reason as a status for amend.
     */
    const amendCheck = async (trx: AnyDb, auth: AuthContext, applicationId: number, instanceId: number): Promise<{ ok: boolean; missingCode?: string }> => {
      const task = await pendingTaskOn(trx as unknown as Db, k.table, applicationId, instanceId, auth.userId, kindQueues);
      if (!task || task.status !== AppState.REVIEW) return { ok: false };
      const code = queues[task.queue as QueueName].check;
      return auth.permissions.has(code) ? { ok: true } : { ok: false, missingCode: code };
    };

    route(app, calls.canAmend, async (req) => {
      const b = req.body as Record<string, number>;
      return ok((await amendCheck(anyDb, req.auth!, b[k.key]!, b.process_instance_id!)).ok);
    });

    route(app, calls.amend, async (req) => {
      const b = req.body as Record<string, string | number>;
      const id = b[k.key] as number;
      const begin = b[k.begin] as string;
      const end = b[k.end] as string;
      const auth = req.auth!;
      await db.transaction().execute(async (trx) => {
        const t = trx as unknown as Transaction<any>;
        // The lock order of engine.ts: the application row before its tasks are read, so a decision cannot settle the task in between.
        await lockSubjectRow(trx, app.ctx, k.table, id);
        const verdict = await amendCheck(t, auth, id, b.process_instance_id as number);
        if (verdict.missingCode) throw missingCode(verdict.missingCode);
        if (!verdict.ok) fail(ErrorCode.STATE_CONFLICT, '只有待您审核且处于“审核中”的申请可以修改来访时间');
        const current = await t.selectFrom(`${k.table}`).selectAll().where(k.key, '=', id).executeTakeFirstOrThrow();
        const errors = await amendErrors(t as unknown as Transaction<DB>, kind, current, begin, end, app.ctx.time());
        if (errors.length) throw ruleFailure(errors, k.labels);
        await assertRegistered(t as unknown as Transaction<DB>, k, { ...current, [k.begin]: begin, [k.end]: end } as ApplicationRecord);
        await t
          .updateTable(k.table)
          .set({ [k.begin]: begin, [k.end]: end, update_user_name: auth.userName, update_time: app.ctx.time() })
          .where(k.key, '=', id)
          .execute();
      });
      return ok(null, '编辑成功！');
    });
  }
}

/**
 * The visit rules of the form that still apply when an approver changes the
 * dates: order and the longest span. The earliest-start rules do not: an
 * approver may shorten a visit that is already close.
 */
async function amendErrors(trx: Transaction<DB>, kind: AppointmentKind, current: Record<string, unknown>, begin: string, end: string, now: string): Promise<FieldError[]> {
  const k = kinds[kind];
  const errors = k.visitRules.errors({ visitor_type: current.visitor_type as number, begin, end }, await visitModelOf(trx, kind, current), now);
  return errors.filter((e) => e.field !== k.begin);
}
