import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { type Kysely, type SelectQueryBuilder, type Transaction } from 'kysely';
import { AppState, queues, TaskState, type AppointmentKind, type QueueName } from '../../../domain/appointments';
import { ErrorCode } from '../../../domain/errors';
import { flattenPermissions } from '../../../domain/permissions';
import {
  amendBody as carAmendBody,
  canAmendBody as carCanAmendBody,
  carTaskQuery,
  checkBody,
} from '../../../domain/schemas/car-application';
import {
  amendBody as personAmendBody,
  canAmendBody as personCanAmendBody,
  personTaskQuery,
} from '../../../domain/schemas/person-application';
import { idField, labelled } from '../../../domain/schemas/common';
import { carVisitErrors, personVisitErrors, type FieldError } from '../../../domain/visit-rules';
import type { AuthContext } from '../../core/context';
import { AppError, fail, ok } from '../../core/errors';
import { containsText, pageOf } from '../../core/paging';
import type { ZodTypeProvider } from '../../core/route-schema';
import type { DB } from '../../db/schema';
import { decideTasks } from '../../workflow/decide-tasks';
import { lockSubjectRow, processInfo } from '../../workflow/engine';
import { kinds } from './kinds';
import { loadApplication } from './service';

/**
 * The seven approval queues of spec 000 §2 (pages, checks, task detail) and
 * the approver's visit-date amend. Each queue is one row of `queuePaths`; the
 * routes are registered in a loop, with the codes of domain `queues`.
 */

type AnyDb = Kysely<any> | Transaction<any>;
type AnySelect = SelectQueryBuilder<any, any, any>;

const taskIdQuery = labelled(z.object({ id: idField('审批任务ID') }), { id: '审批任务ID' });

/** The spec 000 §7 paths of each queue (under /api). */
const queuePaths: Record<QueueName, { page: string; check: string }> = {
  car_task: { page: '/carApplications/task/page', check: '/carApplications/task/check' },
  car_zxzxc: { page: '/carApplications/zxzxc_task/page', check: '/carApplications/zxzxc_task/check' },
  car_bus: { page: '/carApplications/bus_task/page', check: '/carApplications/bus_task/check' },
  car_chemicals: { page: '/carApplications/chemicals_task/page', check: '/carApplications/chemicals_task/check' },
  car_final: { page: '/carApplications/shdd_final/taskPage', check: '/carApplications/shdd_final/taskCheck' },
  person_task: { page: '/personApplications/task/page', check: '/personApplications/task/check' },
  person_final: { page: '/personApplications/shdd_final/taskPage', check: '/personApplications/shdd_final/taskCheck' },
};

/** What the queues add to the kinds of ./kinds: the queue filters, the amend bodies, the wrapper's key. */
const queueKinds = {
  car: { ...kinds.car, wrapper: 'carApplication', query: carTaskQuery, canAmendBody: carCanAmendBody, amendBody: carAmendBody, jsonColumns: ['dump_truck_file', 'cargo_info'] },
  person: { ...kinds.person, wrapper: 'personApplication', query: personTaskQuery, canAmendBody: personCanAmendBody, amendBody: personAmendBody, jsonColumns: [] as string[] },
};

const queuesOf = (kind: AppointmentKind) => (Object.keys(queues) as QueueName[]).filter((q) => queues[q].kind === kind);

const permissionNames = new Map(flattenPermissions().map((n) => [n.code, n.name]));
const missing = (code: string) => {
  const name = permissionNames.get(code);
  return new AppError(ErrorCode.FORBIDDEN, `没有操作权限：缺少权限 ${code}${name ? `（${name}）` : ''}`);
};

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

const taskColumns = ['t.process_task_id', 't.process_instance_id', 't.ref_id', 't.queue', 't.user_id', 't.state', 't.result', 't.remark', 't.submit_time', 't.approve_time', 'd.name as node_name'] as const;

type TaskFields = { process_task_id: number; process_instance_id: number; ref_id: number; queue: string | null; user_id: number; state: number; result: number | null; remark: string; submit_time: string; approve_time: string | null; node_name: string | null };

/** The spec 000 §3 task wrapper around one application. */
function wrap(kind: AppointmentKind, task: TaskFields, application: Record<string, unknown>) {
  return {
    ref_id: task.ref_id,
    process_task_id: task.process_task_id,
    process_instance_id: task.process_instance_id,
    submit_time: task.submit_time,
    state: task.state,
    // The application's own status beside the task's state: vehicle screens gate "review" on the task, person screens on the application.
    approval_status: (application.state as number | undefined) ?? null,
    result: task.result,
    remark: task.remark,
    approve_time: task.approve_time,
    node_name: task.node_name,
    [queueKinds[kind].wrapper]: application,
  };
}

/** Applications of one kind by id, with the names the queue rows show. */
async function applicationsById(db: AnyDb, kind: AppointmentKind, ids: number[]): Promise<Map<number, Record<string, unknown>>> {
  if (ids.length === 0) return new Map();
  const k = queueKinds[kind];
  let q = db
    .selectFrom(`${k.table} as a`)
    .leftJoin('sys_department as dep', 'dep.depart_id', 'a.interviewee_depart_id')
    .selectAll('a')
    .select('dep.name as interviewee_depart_name')
    .where(`a.${k.key}`, 'in', ids);
  if (kind === 'car') q = q.leftJoin('vehicle_type as vt', 'vt.id', 'a.vehicle_type_id').select('vt.name as vehicle_type_name');
  const rows = await q.execute();
  return new Map(rows.map((r: Record<string, unknown>) => [r[k.key] as number, parseJsonColumns(r, k.jsonColumns)]));
}

export async function queueRoutes(appInstance: FastifyInstance) {
  const app = appInstance.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx;
  const anyDb = db as unknown as Kysely<any>;

  for (const name of Object.keys(queuePaths) as QueueName[]) {
    const queue = queues[name];
    const kind = queue.kind as AppointmentKind;
    const k = queueKinds[kind];
    const paths = queuePaths[name];

    app.post(paths.page, { config: { permission: queue.list }, schema: { summary: `${queue.title}：待我审批（分页）`, body: k.query } }, async (req) => {
      const q = req.body as Record<string, unknown> & { size: number; pn: number };
      const me = req.auth!.userId;
      // Driven by process_task_queue (user_id, queue, state, process_task_id); the application joins by primary key,
      // and only when a filter reads it: the bare count then stays inside the index.
      const appFilters: Array<(s: AnySelect) => AnySelect> = [];
      for (const f of k.textFilters) {
        const v = q[f.field];
        if (typeof v === 'string' && v) appFilters.push((s) => s.where(containsText(`a.${f.field}`, f.upper ? v.toUpperCase() : v)));
      }
      for (const f of ['visitor_type', 'visit_area'] as const) {
        if (q[f] !== undefined) appFilters.push((s) => s.where(`a.${f}`, '=', q[f]));
      }
      // The department filter is shown only with the queue's showDept code; without it the value is ignored, not refused.
      if (q.interviewee_depart_id !== undefined && req.auth!.permissions.has(queue.showDept)) appFilters.push((s) => s.where('a.interviewee_depart_id', '=', q.interviewee_depart_id));
      const tasks = (withApplication: boolean) => {
        let s: AnySelect = anyDb.selectFrom('process_task as t').where('t.user_id', '=', me).where('t.queue', '=', name).where('t.state', '=', TaskState.PENDING);
        if (q.begin_time) s = s.where('t.submit_time', '>=', q.begin_time);
        if (q.end_time) s = s.where('t.submit_time', '<=', q.end_time);
        if (!withApplication) return s;
        // A pending task's application is under review, and such an application cannot be deleted: no is_deleted test needed.
        s = s.innerJoin(`${k.table} as a`, `a.${k.key}`, 't.ref_id');
        return appFilters.reduce((acc, f) => f(acc), s);
      };
      const page = await pageOf(
        q,
        () => tasks(appFilters.length > 0).select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirst() as Promise<{ total: number } | undefined>,
        (limit, offset) =>
          tasks(appFilters.length > 0)
            .innerJoin('process_definition_node as d', 'd.definition_node_id', 't.definition_node_id')
            .select([...taskColumns])
            .orderBy('t.process_task_id', 'desc')
            .limit(limit)
            .offset(offset)
            .execute() as Promise<TaskFields[]>,
      );
      const apps = await applicationsById(anyDb, kind, page.list.map((t) => t.ref_id));
      return ok({ list: page.list.map((t) => wrap(kind, t, apps.get(t.ref_id) ?? {})), total: page.total });
    });

    app.post(paths.check, { config: { permission: queue.check, operation: queue.title }, schema: { summary: `${queue.title}：审核（可批量）`, body: checkBody } }, async (req) => {
      const body = req.body;
      if (new Set(body.taskIds).size > 1 && !req.auth!.permissions.has(queue.batch)) throw missing(queue.batch);
      return ok(await decideTasks(db, app.ctx, { taskIds: body.taskIds, userId: req.auth!.userId, result: body.result, remark: body.remark, queues: [name] }), '审核成功！');
    });
  }

  for (const kind of ['car', 'person'] as const) {
    const k = queueKinds[kind];
    const kindQueues = queuesOf(kind);

    /** One of the caller's tasks of this kind; 404 for anyone else's. */
    const ownTask = async (auth: AuthContext, taskId: number) => {
      const task = (await anyDb
        .selectFrom('process_task as t')
        .innerJoin('process_definition_node as d', 'd.definition_node_id', 't.definition_node_id')
        .select([...taskColumns])
        .where('t.process_task_id', '=', taskId)
        .where('t.user_id', '=', auth.userId)
        .where('t.queue', 'in', kindQueues)
        .executeTakeFirst()) as TaskFields | undefined;
      if (!task) fail(ErrorCode.NOT_FOUND, `审批任务${taskId}不存在或不属于您`);
      return task!;
    };

    // 'role' at the guard: which code applies depends on the queue the task is in, checked below.
    app.get(`${k.path}/task/detail`, { config: { permission: 'role' }, schema: { summary: `${k.noun}审批任务详情`, querystring: taskIdQuery } }, async (req) => {
      const { id } = req.query;
      const task = await ownTask(req.auth!, id);
      const q = queues[task.queue as QueueName];
      if (!req.auth!.permissions.has(q.list) && !req.auth!.permissions.has(q.check)) throw missing(q.list);
      const application = await loadApplication(db, kind, task.ref_id);
      return ok({ ...wrap(kind, task, application as unknown as Record<string, unknown>), processInfo: await processInfo(db, task.process_instance_id) });
    });

    /**
     * Whether the caller may amend the visit dates: they hold a pending task of
     * the instance, the check code of that task's queue, and the application is
     * under review. Answers the reason as a status for amend.
     */
    const amendCheck = async (trx: AnyDb, auth: AuthContext, applicationId: number, instanceId: number): Promise<{ ok: boolean; missingCode?: string }> => {
      const row = await trx
        .selectFrom(`${k.table} as a`)
        .innerJoin('process_task as t', (j) => j.onRef('t.process_instance_id', '=', 'a.process_instance_id'))
        .select(['t.queue', 'a.state'])
        .where(`a.${k.key}`, '=', applicationId)
        .where('a.is_deleted', '=', 0)
        .where('a.process_instance_id', '=', instanceId)
        .where('t.user_id', '=', auth.userId)
        .where('t.state', '=', TaskState.PENDING)
        .where('t.queue', 'in', kindQueues)
        .executeTakeFirst();
      if (!row || row.state !== AppState.REVIEW) return { ok: false };
      const code = queues[row.queue as QueueName].check;
      return auth.permissions.has(code) ? { ok: true } : { ok: false, missingCode: code };
    };

    app.post(`${k.path}/canAmend`, { config: { permission: 'role' }, schema: { summary: `能否修改${k.noun}的来访时间`, body: k.canAmendBody } }, async (req) => {
      const b = req.body as Record<string, number>;
      return ok((await amendCheck(anyDb, req.auth!, b[k.key]!, b.process_instance_id!)).ok);
    });

    app.post(`${k.path}/amend`, { config: { permission: 'role', operation: '修改来访时间' }, schema: { summary: `审批中修改${k.noun}的来访时间`, body: k.amendBody } }, async (req) => {
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
        if (verdict.missingCode) throw missing(verdict.missingCode);
        if (!verdict.ok) fail(ErrorCode.STATE_CONFLICT, '只有待您审核且处于“审核中”的申请可以修改来访时间');
        const current = await t.selectFrom(`${k.table}`).selectAll().where(k.key, '=', id).executeTakeFirstOrThrow();
        const errors = await amendErrors(t as unknown as Transaction<DB>, kind, current, begin, end, app.ctx.time());
        if (errors.length) {
          const list = errors.map((e) => ({ field: e.field, label: k.labels[e.field] ?? e.field, message: e.message }));
          const first = list[0]!;
          fail(ErrorCode.VALIDATION, first.message.includes(first.label) ? first.message : `${first.label}：${first.message}`, { errors: list });
        }
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
  if (kind === 'car') {
    const model = await trx.selectFrom('vehicle_type').select('name').where('id', '=', current.vehicle_type_id as number).executeTakeFirst();
    return carVisitErrors({ visitor_type: current.visitor_type as number, visitor_begin_time: begin, visitor_end_time: end }, model ?? null, now).filter((e) => e.field !== 'visitor_begin_time');
  }
  return personVisitErrors({ visitor_type: current.visitor_type as number, visit_begin_time: begin, visit_end_time: end }, now).filter((e) => e.field !== 'visit_begin_time');
}
