import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { enumLabel } from '../../domain/enums';
import { ErrorCode } from '../../domain/errors';
import {
  nodeRule,
  processConfigApi,
  processDefinitionLabels,
  processLabels,
  processNodeLabels,
  type ChainNodeRow,
  type ProcessDefinitionRow,
  type ProcessNodeCreate,
  type ProcessNodeRow,
  type ProcessRow,
} from '../../domain/schemas/process-config';
import type { AppContext } from '../core/context';
import { AppError, notFound, ok } from '../core/errors';
import { containsText, pageOf } from '../core/paging';
import type { Db } from '../core/repository';
import { route } from '../core/route';
import { runningUsing } from '../workflow/chain';

/**
 * 审批流程配置 (spec 002 §2, §3, §5-§8; DESIGN.md §4): processes, process
 * definitions and process nodes. The engine copies a process's chain onto
 * each instance at submit (server/workflow/chain.ts), so everything here may
 * change while applications are under way: an edit applies to later
 * submissions. What the rules below keep: one process in force per process
 * type; a definition's chain changes only while no application on it is in
 * review (the running-instance rule, issue 24), and the check and the change
 * are one transaction that a submission of it waits for; a node or definition
 * that a live definition or process, or a running instance, uses cannot be
 * deleted.
 *
 * Deletes soft-delete the row first and then look for users of it, inside one
 * transaction: on PostgreSQL a save that references the row locks it
 * (`FOR UPDATE`) before checking it is live, so a delete and a save that
 * race cannot both succeed.
 */

const invalid = (labels: Record<string, string>, field: string, message: string) =>
  new AppError(ErrorCode.VALIDATION, `${labels[field]}：${message}`, { errors: [{ field, label: labels[field], message }] });
const conflict = (message: string, field?: string, labels?: Record<string, string>) =>
  new AppError(ErrorCode.STATE_CONFLICT, message, field && labels ? { errors: [{ field, label: labels[field], message }] } : undefined);

const quoteList = (names: string[]) => names.map((n) => `“${n}”`).join('、');

/** Rows of `table` by id, locked on PostgreSQL: step one of a save that must not race a delete of what it references. */
function lockLive(trx: Db, ctx: AppContext, table: 'process_node' | 'process_definition' | 'sys_role', key: 'process_node_id' | 'process_definition_id' | 'role_id', ids: number[]) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const q = (trx as any).selectFrom(table).select([key, 'name']).where(key, 'in', ids).where('deleted', '=', 0);
  return (ctx.dialect === 'postgres' ? q.forUpdate() : q).execute() as Promise<Array<Record<string, number | string>>>;
}

async function creatorNames(db: Db, ids: Array<number | null>): Promise<Map<number, string>> {
  const wanted = [...new Set(ids.filter((i): i is number => i !== null))];
  if (!wanted.length) return new Map();
  const rows = await db.selectFrom('sys_user').select(['user_id', 'user_name']).where('user_id', 'in', wanted).execute();
  return new Map(rows.map((r) => [r.user_id, r.user_name]));
}

/** The chains of some definitions, in order. */
async function chainsOf(db: Db, definitionIds: number[]): Promise<Map<number, ChainNodeRow[]>> {
  const out = new Map<number, ChainNodeRow[]>(definitionIds.map((id) => [id, []]));
  if (!definitionIds.length) return out;
  const rows = await db
    .selectFrom('process_definition_node')
    .select(['definition_node_id', 'process_definition_id', 'process_node_id', 'sort', 'name'])
    .where('process_definition_id', 'in', definitionIds)
    .orderBy('process_definition_id')
    .orderBy('sort')
    .execute();
  for (const r of rows) out.get(r.process_definition_id)?.push({ definitionNodeId: r.definition_node_id, processNodeId: r.process_node_id, sort: r.sort, name: r.name });
  return out;
}

/** The names of the nodes a chain is to hold, locked against their delete; 400 naming any that is gone. */
async function chainNodeNames(trx: Db, ctx: AppContext, ids: number[]): Promise<Map<number, string>> {
  const nodes = await lockLive(trx, ctx, 'process_node', 'process_node_id', ids);
  const names = new Map(nodes.map((n) => [Number(n.process_node_id), String(n.name)]));
  const missing = ids.filter((n) => !names.has(n));
  if (missing.length) throw invalid(processDefinitionLabels, 'processNodeIds', `所选节点不存在或已被删除（${missing.join('、')}）`);
  return names;
}

/** Writes a definition's chain in the order chosen. */
async function writeChain(trx: Db, definitionId: number, ids: number[], names: Map<number, string>) {
  await trx
    .insertInto('process_definition_node')
    .values(ids.map((process_node_id, i) => ({ process_definition_id: definitionId, process_node_id, sort: i + 1, name: names.get(process_node_id)! })))
    .execute();
}

// ---------------------------------------------------------------- nodes

async function nodeRows(db: Db, filter: { name?: string }): Promise<ProcessNodeRow[]> {
  let q = db
    .selectFrom('process_node as n')
    .leftJoin('sys_role as r', 'r.role_id', 'n.role_id')
    .select([
      'n.process_node_id',
      'n.name',
      'n.countersign',
      'n.company_check',
      'n.overtime_auto_check',
      'n.overtime_hours',
      'n.remark',
      'n.role_id',
      'r.name as role_name',
      'n.create_user_id',
      'n.create_time',
      'n.update_time',
    ])
    .where('n.deleted', '=', 0);
  if (filter.name) q = q.where(containsText('n.name', filter.name));
  const rows = await q.orderBy('n.process_node_id').limit(1000).execute();
  if (!rows.length) return [];
  const ids = rows.map((r) => r.process_node_id);
  const [departs, definitions, creators] = await Promise.all([
    db
      .selectFrom('process_node_depart as nd')
      .leftJoin('sys_department as d', 'd.depart_id', 'nd.depart_id')
      .select(['nd.process_node_id', 'nd.depart_id', 'd.name'])
      .where('nd.process_node_id', 'in', ids)
      .orderBy('nd.depart_id')
      .execute(),
    db
      .selectFrom('process_definition_node as dn')
      .innerJoin('process_definition as pd', 'pd.process_definition_id', 'dn.process_definition_id')
      .select(['dn.process_node_id', 'pd.process_definition_id', 'pd.name'])
      .where('dn.process_node_id', 'in', ids)
      .where('pd.deleted', '=', 0)
      .orderBy('pd.process_definition_id')
      .execute(),
    creatorNames(
      db,
      rows.map((r) => r.create_user_id),
    ),
  ]);
  return rows.map((r) => {
    const own = departs.filter((d) => d.process_node_id === r.process_node_id);
    const defs = new Map(definitions.filter((d) => d.process_node_id === r.process_node_id).map((d) => [d.process_definition_id, d.name]));
    return {
      process_node_id: r.process_node_id,
      name: r.name,
      countersign: r.countersign,
      company_check: r.company_check,
      overtime_auto_check: r.overtime_auto_check,
      overtime_hours: r.overtime_hours,
      remark: r.remark,
      role_id: r.role_id,
      role: r.role_name === null ? null : { role_id: r.role_id, name: r.role_name },
      departList: own.map((d) => ({ depart_id: d.depart_id, name: d.name ?? String(d.depart_id) })),
      departIds: own.map((d) => d.depart_id),
      definitions: [...defs].map(([process_definition_id, name]) => ({ process_definition_id, name })),
      create_user_id: r.create_user_id,
      create_user_name: r.create_user_id === null ? '系统' : (creators.get(r.create_user_id) ?? ''),
      create_time: r.create_time,
      update_time: r.update_time,
    };
  });
}

/** The role and departments a node names must be live. */
async function checkNodeRefs(trx: Db, ctx: AppContext, v: ProcessNodeCreate, departIds: number[]) {
  const role = await lockLive(trx, ctx, 'sys_role', 'role_id', [v.roleId]);
  if (!role.length) throw invalid(processNodeLabels, 'roleId', '所选角色不存在或已被删除');
  if (departIds.length) {
    const found = await trx.selectFrom('sys_department').select('depart_id').where('depart_id', 'in', departIds).where('deleted', '=', 0).execute();
    if (found.length !== departIds.length) throw invalid(processNodeLabels, 'departIds', '所选部门不存在或已被删除');
  }
}

function nodeColumns(v: ProcessNodeCreate) {
  const rule = nodeRule(v);
  return {
    row: {
      name: v.name,
      role_id: v.roleId,
      countersign: rule.countersign,
      company_check: rule.company_check,
      overtime_auto_check: rule.overtime_auto_check,
      overtime_hours: rule.overtime_hours,
      remark: v.remark,
    },
    departIds: rule.departIds,
  };
}

// ---------------------------------------------------------------- definitions

async function definitionRows(db: Db, filter: { name?: string }): Promise<ProcessDefinitionRow[]> {
  let q = db.selectFrom('process_definition').select(['process_definition_id', 'name', 'remark', 'create_user_id', 'create_time', 'update_time']).where('deleted', '=', 0);
  if (filter.name) q = q.where(containsText('name', filter.name));
  const rows = await q.orderBy('process_definition_id').limit(1000).execute();
  if (!rows.length) return [];
  const ids = rows.map((r) => r.process_definition_id);
  const [chains, processes, creators] = await Promise.all([
    chainsOf(db, ids),
    db.selectFrom('process').select(['process_id', 'name', 'type', 'process_definition_id']).where('process_definition_id', 'in', ids).where('deleted', '=', 0).orderBy('type').execute(),
    creatorNames(
      db,
      rows.map((r) => r.create_user_id),
    ),
  ]);
  return rows.map((r) => {
    const chain = chains.get(r.process_definition_id) ?? [];
    const creator = r.create_user_id === null ? '系统' : (creators.get(r.create_user_id) ?? '');
    return {
      process_definition_id: r.process_definition_id,
      name: r.name,
      remark: r.remark,
      processNodeIds: chain.map((n) => n.processNodeId).join(','),
      definitionNodeList: chain,
      processes: processes.filter((p) => p.process_definition_id === r.process_definition_id).map((p) => ({ process_id: p.process_id, name: p.name, type: p.type })),
      create_user_id: r.create_user_id,
      createUser: { user_name: creator },
      create_user_name: creator,
      create_time: r.create_time,
      update_time: r.update_time,
    };
  });
}

// ---------------------------------------------------------------- processes

/** The one live process of a type other than `except`, if any. */
const processOfType = (db: Db, type: number, except?: number) => {
  let q = db.selectFrom('process').select(['process_id', 'name']).where('type', '=', type).where('deleted', '=', 0);
  if (except !== undefined) q = q.where('process_id', '!=', except);
  return q.executeTakeFirst();
};

const typeTaken = (type: number, name: string) => conflict(`类型“${enumLabel('processType', type)}”已有流程“${name}”，每种类型只能有一个流程，请编辑该流程或先删除它`, 'type', processLabels);

export async function processConfigRoutes(app: FastifyInstance) {
  const { ctx } = app;
  const { process, definition, node } = processConfigApi;
  const { db } = ctx;

  // ------------------------------------------------------------ nodes

  // Read by any role holder, like departments and roles: the definition form picks from it, and it holds nothing secret.
  route(app, node.all, async (req) => ok(await nodeRows(db, { name: req.body.name })));

  route(app, node.save, async (req) => {
    const v = req.body;
    const { row, departIds } = nodeColumns(v);
    const now = ctx.time();
    const id = await db.transaction().execute(async (trx) => {
      await checkNodeRefs(trx, ctx, v, departIds);
      const { process_node_id } = await trx
        .insertInto('process_node')
        .values({ ...row, create_user_id: req.auth!.userId, create_time: now, update_time: now })
        .returning('process_node_id')
        .executeTakeFirstOrThrow();
      if (departIds.length)
        await trx
          .insertInto('process_node_depart')
          .values(departIds.map((depart_id) => ({ process_node_id, depart_id })))
          .execute();
      return process_node_id;
    });
    return ok({ process_node_id: id }, '创建成功！');
  });

  route(app, node.edit, async (req) => {
    const v = req.body;
    const id = v.processNodeId;
    const { row, departIds } = nodeColumns(v);
    await db.transaction().execute(async (trx) => {
      const live = await lockLive(trx, ctx, 'process_node', 'process_node_id', [id]);
      if (!live.length) notFound('流程节点');
      await checkNodeRefs(trx, ctx, v, departIds);
      await trx
        .updateTable('process_node')
        .set({ ...row, update_time: ctx.time() })
        .where('process_node_id', '=', id)
        .execute();
      await trx.deleteFrom('process_node_depart').where('process_node_id', '=', id).execute();
      if (departIds.length)
        await trx
          .insertInto('process_node_depart')
          .values(departIds.map((depart_id) => ({ process_node_id: id, depart_id })))
          .execute();
      // Chains show the node by name; instances keep the name they were submitted with (their own copy).
      await trx.updateTable('process_definition_node').set({ name: v.name }).where('process_node_id', '=', id).execute();
    });
    return ok(null, '编辑成功！');
  });

  route(app, node.delete, async (req) => {
    const id = req.body.processNodeId;
    await db.transaction().execute(async (trx) => {
      const node = await trx.selectFrom('process_node').select('name').where('process_node_id', '=', id).where('deleted', '=', 0).executeTakeFirst();
      if (!node) notFound('流程节点');
      await trx.updateTable('process_node').set({ deleted: 1, update_time: ctx.time() }).where('process_node_id', '=', id).where('deleted', '=', 0).execute();
      const defs = await trx
        .selectFrom('process_definition_node as dn')
        .innerJoin('process_definition as pd', 'pd.process_definition_id', 'dn.process_definition_id')
        .select('pd.name')
        .distinct()
        .where('dn.process_node_id', '=', id)
        .where('pd.deleted', '=', 0)
        .orderBy('pd.name')
        .execute();
      if (defs.length) throw conflict(`流程节点“${node!.name}”正被流程定义${quoteList(defs.map((d) => d.name))}使用，不能删除；请先删除这些流程定义`);
      const running = await runningUsing(trx, { processNodeId: id });
      if (running) throw conflict(`流程节点“${node!.name}”正被${running}个审核中的申请使用，不能删除；请待这些申请审批结束后再删除`);
    });
    return ok(null, '删除成功！');
  });

  // ------------------------------------------------------------ definitions

  // Read by any role holder: the process form picks from it.
  route(app, definition.all, async (req) => ok(await definitionRows(db, { name: req.body.name })));

  route(app, definition.save, async (req) => {
    const v = req.body;
    const now = ctx.time();
    const id = await db.transaction().execute(async (trx) => {
      const names = await chainNodeNames(trx, ctx, v.processNodeIds);
      const { process_definition_id } = await trx
        .insertInto('process_definition')
        .values({ name: v.name, remark: v.remark, create_user_id: req.auth!.userId, create_time: now, update_time: now })
        .returning('process_definition_id')
        .executeTakeFirstOrThrow();
      await writeChain(trx, process_definition_id, v.processNodeIds, names);
      return process_definition_id;
    });
    return ok({ process_definition_id: id }, '创建成功！');
  });

  route(app, definition.edit, async (req) => {
    const v = req.body;
    const id = v.processDefinitionId;
    await db.transaction().execute(async (trx) => {
      // Locked first: a second administrator's edit waits here, and a submission waits to copy the chain (startInstance takes it shared).
      const live = await lockLive(trx, ctx, 'process_definition', 'process_definition_id', [id]);
      if (!live.length) notFound('流程定义');
      if (v.processNodeIds) {
        const stored = (await chainsOf(trx, [id])).get(id)!.map((n) => n.processNodeId);
        if (stored.join(',') !== v.processNodeIds.join(',')) {
          const running = await runningUsing(trx, { definitionId: id });
          if (running)
            throw conflict(
              `流程定义“${String(live[0]!.name)}”有${running}个审核中的申请，暂不能修改节点；请待这些申请审批结束后再修改，或新建流程定义并在流程中选用它`,
              'processNodeIds',
              processDefinitionLabels,
            );
          const names = await chainNodeNames(trx, ctx, v.processNodeIds);
          await trx.deleteFrom('process_definition_node').where('process_definition_id', '=', id).execute();
          await writeChain(trx, id, v.processNodeIds, names);
        }
      }
      await trx.updateTable('process_definition').set({ name: v.name, remark: v.remark, update_time: ctx.time() }).where('process_definition_id', '=', id).execute();
    });
    return ok(null, '编辑成功！');
  });

  route(app, definition.delete, async (req) => {
    const id = req.body.processDefinitionId;
    await db.transaction().execute(async (trx) => {
      const def = await trx.selectFrom('process_definition').select('name').where('process_definition_id', '=', id).where('deleted', '=', 0).executeTakeFirst();
      if (!def) notFound('流程定义');
      await trx.updateTable('process_definition').set({ deleted: 1, update_time: ctx.time() }).where('process_definition_id', '=', id).where('deleted', '=', 0).execute();
      const users = await trx.selectFrom('process').select('name').where('process_definition_id', '=', id).where('deleted', '=', 0).orderBy('type').execute();
      if (users.length) throw conflict(`流程定义“${def!.name}”正被流程${quoteList(users.map((p) => p.name))}使用，不能删除；请先在这些流程中选用其他流程定义`);
      const running = await runningUsing(trx, { definitionId: id });
      if (running) throw conflict(`流程定义“${def!.name}”正被${running}个审核中的申请使用，不能删除；请待这些申请审批结束后再删除`);
    });
    return ok(null, '删除成功！');
  });

  // ------------------------------------------------------------ processes

  route(app, process.page, async (req) => {
    const q = req.body;
    const base = () => {
      let s = db.selectFrom('process as p').where('p.deleted', '=', 0);
      if (q.name) s = s.where(containsText('p.name', q.name));
      if (q.type !== undefined) s = s.where('p.type', '=', q.type);
      return s;
    };
    const page = await pageOf(
      q,
      () =>
        base()
          .select((eb) => eb.fn.countAll<number>().as('total'))
          .executeTakeFirst(),
      (limit, offset) =>
        base()
          .leftJoin('process_definition as d', 'd.process_definition_id', 'p.process_definition_id')
          .leftJoin('sys_user as u', 'u.user_id', 'p.create_user_id')
          .select([
            'p.process_id',
            'p.uuid',
            'p.name',
            'p.type',
            'p.process_definition_id',
            'p.create_user_id',
            'p.create_time',
            'p.update_time',
            'd.name as definition_name',
            'd.remark as definition_remark',
            'd.create_time as definition_create_time',
            'u.user_name',
          ])
          .orderBy('p.type')
          .orderBy('p.process_id')
          .limit(limit)
          .offset(offset)
          .execute(),
    );
    const chains = await chainsOf(db, [...new Set(page.list.map((p) => p.process_definition_id))]);
    const list: ProcessRow[] = page.list.map((p) => {
      const creator = p.create_user_id === null ? '系统' : (p.user_name ?? '');
      return {
        process_id: p.process_id,
        uuid: p.uuid,
        name: p.name,
        type: p.type,
        process_definition_id: p.process_definition_id,
        process_definition:
          p.definition_name === null
            ? null
            : { name: p.definition_name, remark: p.definition_remark ?? '', create_time: p.definition_create_time ?? '', definitionNodeList: chains.get(p.process_definition_id) ?? [] },
        process_definition_name: p.definition_name ?? '',
        create_user_id: p.create_user_id,
        create_user: { user_name: creator },
        create_user_name: creator,
        create_time: p.create_time,
        update_time: p.update_time,
      };
    });
    return ok({ list, total: page.total });
  });

  /** The definition must be live (locked against its delete) and the type free of another live process. */
  const checkProcess = async (trx: Db, v: { type: number; processDefinitionId: number }, except?: number) => {
    const def = await lockLive(trx, ctx, 'process_definition', 'process_definition_id', [v.processDefinitionId]);
    if (!def.length) throw invalid(processLabels, 'processDefinitionId', '所选流程定义不存在或已被删除');
    const other = await processOfType(trx, v.type, except);
    if (other) throw typeTaken(v.type, other.name);
  };

  route(app, process.save, async (req) => {
    const v = req.body;
    const now = ctx.time();
    const id = await db.transaction().execute(async (trx) => {
      await checkProcess(trx, v);
      const { process_id } = await trx
        .insertInto('process')
        .values({ uuid: randomUUID(), name: v.name, type: v.type, process_definition_id: v.processDefinitionId, create_user_id: req.auth!.userId, create_time: now, update_time: now })
        .returning('process_id')
        .executeTakeFirstOrThrow();
      return process_id;
    });
    return ok({ process_id: id }, '创建流程成功！');
  });

  route(app, process.edit, async (req) => {
    const v = req.body;
    await db.transaction().execute(async (trx) => {
      const live = await trx.selectFrom('process').select('process_id').where('process_id', '=', v.processId).where('deleted', '=', 0).executeTakeFirst();
      if (!live) notFound('流程');
      await checkProcess(trx, v, v.processId);
      await trx.updateTable('process').set({ name: v.name, type: v.type, process_definition_id: v.processDefinitionId, update_time: ctx.time() }).where('process_id', '=', v.processId).execute();
    });
    return ok(null, '编辑成功！');
  });

  // Instances keep their own chain, so a process may go while applications are under way; new submissions of its type are refused until another is configured.
  route(app, process.delete, async (req) => {
    const res = await db.updateTable('process').set({ deleted: 1, update_time: ctx.time() }).where('process_id', '=', req.body.processId).where('deleted', '=', 0).executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) notFound('流程');
    return ok(null, '删除成功！');
  });
}
