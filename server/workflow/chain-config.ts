import { ErrorCode } from '../../domain/errors';
import { nodeRule, processDefinitionLabels, processNodeLabels, type ChainNodeRow, type ProcessDefinitionCreate, type ProcessNodeCreate } from '../../domain/schemas/process-config';
import type { AppContext } from '../core/context';
import { AppError, notFound } from '../core/errors';
import type { Db } from '../core/repository';
import { deadlineColumnsOf, runningUsing } from './chain';

/**
 * The configuration side of the chains (spec 002 §2, §5-§8; DESIGN.md §4):
 * process nodes and process definitions, the ordered chains of nodes the
 * engine copies onto each instance at submit (chain.ts). What these rules
 * keep: a definition's chain changes only while no application on it is in
 * review (the running-instance rule, issue 24), and the check and the change
 * are one transaction that a submission of it waits for; a node or
 * definition that a live definition or process, or a running instance, uses
 * cannot be deleted; what a node names (its role, its departments) is live.
 *
 * Deletes soft-delete the row first and then look for users of it, inside one
 * transaction: on PostgreSQL a save that references the row locks it
 * (`FOR UPDATE`) before checking it is live, so a delete and a save that
 * race cannot both succeed.
 */

export const invalid = (labels: Record<string, string>, field: string, message: string) =>
  new AppError(ErrorCode.VALIDATION, `${labels[field]}：${message}`, { errors: [{ field, label: labels[field], message }] });
export const conflict = (message: string, field?: string, labels?: Record<string, string>) =>
  new AppError(ErrorCode.STATE_CONFLICT, message, field && labels ? { errors: [{ field, label: labels[field], message }] } : undefined);

const quoteList = (names: string[]) => names.map((n) => `“${n}”`).join('、');

/** Rows of `table` by id, locked on PostgreSQL: step one of a save that must not race a delete of what it references. */
export function lockLive(trx: Db, ctx: AppContext, table: 'process_node' | 'process_definition' | 'sys_role', key: 'process_node_id' | 'process_definition_id' | 'role_id', ids: number[]) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const q = (trx as any).selectFrom(table).select([key, 'name']).where(key, 'in', ids).where('deleted', '=', 0);
  return (ctx.dialect === 'postgres' ? q.forUpdate() : q).execute() as Promise<Array<Record<string, number | string>>>;
}

/** The chains of some definitions, in order. */
export async function chainsOf(db: Db, definitionIds: number[]): Promise<Map<number, ChainNodeRow[]>> {
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

/** The role and departments a node names must be live. */
async function checkNodeRefs(trx: Db, ctx: AppContext, v: ProcessNodeCreate, departIds: number[]) {
  const role = await lockLive(trx, ctx, 'sys_role', 'role_id', [v.roleId]);
  if (!role.length) throw invalid(processNodeLabels, 'roleId', '所选角色不存在或已被删除');
  const escalate = nodeRule(v).deadline.escalateRoleId;
  if (escalate !== null && !(await lockLive(trx, ctx, 'sys_role', 'role_id', [escalate])).length) throw invalid(processNodeLabels, 'escalateRoleId', '所选到期升级角色不存在或已被删除');
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
      ...deadlineColumnsOf(rule.deadline),
      remark: v.remark,
    },
    departIds: rule.departIds,
  };
}

// ---------------------------------------------------------------- nodes

/** A new node with its departments; answers its id. */
export async function createNode(ctx: AppContext, userId: number, v: ProcessNodeCreate): Promise<number> {
  const { row, departIds } = nodeColumns(v);
  const now = ctx.time();
  return ctx.db.transaction().execute(async (trx) => {
    await checkNodeRefs(trx, ctx, v, departIds);
    const { process_node_id } = await trx
      .insertInto('process_node')
      .values({ ...row, create_user_id: userId, create_time: now, update_time: now })
      .returning('process_node_id')
      .executeTakeFirstOrThrow();
    if (departIds.length)
      await trx
        .insertInto('process_node_depart')
        .values(departIds.map((depart_id) => ({ process_node_id, depart_id })))
        .execute();
    return process_node_id;
  });
}

/** An edit of a node: it applies to applications submitted afterwards (instances keep their copy). */
export async function updateNode(ctx: AppContext, id: number, v: ProcessNodeCreate): Promise<void> {
  const { row, departIds } = nodeColumns(v);
  await ctx.db.transaction().execute(async (trx) => {
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
}

/** A node goes unless a live definition's chain or a running instance holds it. */
export async function deleteNode(ctx: AppContext, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
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
}

// ---------------------------------------------------------------- definitions

/** A new definition with its chain in the order chosen; answers its id. */
export async function createDefinition(ctx: AppContext, userId: number, v: ProcessDefinitionCreate): Promise<number> {
  const now = ctx.time();
  return ctx.db.transaction().execute(async (trx) => {
    const names = await chainNodeNames(trx, ctx, v.processNodeIds);
    const { process_definition_id } = await trx
      .insertInto('process_definition')
      .values({ name: v.name, remark: v.remark, skip_repeat: v.skipRepeat ?? 1, create_user_id: userId, create_time: now, update_time: now })
      .returning('process_definition_id')
      .executeTakeFirstOrThrow();
    await writeChain(trx, process_definition_id, v.processNodeIds, names);
    return process_definition_id;
  });
}

/** An edit of a definition: another chain replaces the stored one only while no application on it is in review. */
export async function updateDefinition(ctx: AppContext, id: number, v: { name: string; remark: string; skipRepeat?: number; processNodeIds?: number[] }): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
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
    await trx
      .updateTable('process_definition')
      .set({ name: v.name, remark: v.remark, ...(v.skipRepeat === undefined ? {} : { skip_repeat: v.skipRepeat }), update_time: ctx.time() })
      .where('process_definition_id', '=', id)
      .execute();
  });
}

/** A definition goes unless a live process or a running instance uses it. */
export async function deleteDefinition(ctx: AppContext, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const def = await trx.selectFrom('process_definition').select('name').where('process_definition_id', '=', id).where('deleted', '=', 0).executeTakeFirst();
    if (!def) notFound('流程定义');
    await trx.updateTable('process_definition').set({ deleted: 1, update_time: ctx.time() }).where('process_definition_id', '=', id).where('deleted', '=', 0).execute();
    const users = await trx.selectFrom('process').select('name').where('process_definition_id', '=', id).where('deleted', '=', 0).orderBy('type').execute();
    if (users.length) throw conflict(`流程定义“${def!.name}”正被流程${quoteList(users.map((p) => p.name))}使用，不能删除；请先在这些流程中选用其他流程定义`);
    const running = await runningUsing(trx, { definitionId: id });
    if (running) throw conflict(`流程定义“${def!.name}”正被${running}个审核中的申请使用，不能删除；请待这些申请审批结束后再删除`);
  });
}
