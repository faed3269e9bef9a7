import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { deadlineText } from '../../domain/approval-deadline';
import { enumLabel } from '../../domain/enums';
import { processApi, processConfigApi, processLabels, type ProcessCreate, type ProcessDefinitionRow, type ProcessNodeRow } from '../../domain/schemas/process-config';
import type { AppContext } from '../core/context';
import { ok } from '../core/errors';
import { containsText } from '../core/paging';
import type { Db, RowValues } from '../core/repository';
import { defineResource, registerResource } from '../core/resource';
import { route } from '../core/route';
import { deadlineColumns, deadlineOf } from '../workflow/chain';
import { chainsOf, conflict, createDefinition, createNode, deleteDefinition, deleteNode, invalid, lockLive, updateDefinition, updateNode } from '../workflow/chain-config';

/**
 * 审批流程配置 (spec 002 §2, §3, §5-§8; DESIGN.md §4): processes, process
 * definitions and process nodes. The engine copies a process's chain onto
 * each instance at submit (server/workflow/chain.ts), so everything here may
 * change while applications are under way: an edit applies to later
 * submissions. Processes are a declared register whose rule (one process in
 * force per process type, on a live definition) is its afterWrite hook; nodes
 * and definitions, whose chains carry the running-instance and "in use"
 * rules, are declared calls over the chain service (server/workflow/chain-config.ts).
 */

async function creatorNames(db: Db, ids: Array<number | null>): Promise<Map<number, string>> {
  const wanted = [...new Set(ids.filter((i): i is number => i !== null))];
  if (!wanted.length) return new Map();
  const rows = await db.selectFrom('sys_user').select(['user_id', 'user_name']).where('user_id', 'in', wanted).execute();
  return new Map(rows.map((r) => [r.user_id, r.user_name]));
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
      ...deadlineColumns.map((c) => `n.${c}` as const),
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
  const escalateRoles = [...new Set(rows.map((r) => r.escalate_role_id).filter((id): id is number => id !== null))];
  const [departs, definitions, creators, roleNames] = await Promise.all([
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
    escalateRoles.length
      ? db
          .selectFrom('sys_role')
          .select(['role_id', 'name'])
          .where('role_id', 'in', escalateRoles)
          .execute()
          .then((rs) => new Map(rs.map((r) => [r.role_id, r.name])))
      : new Map<number, string>(),
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
      deadline_value: r.deadline_value,
      deadline_unit: r.deadline_unit,
      remind_times: r.remind_times,
      remind_interval: r.remind_interval,
      escalate_role_id: r.escalate_role_id,
      auto_action: r.auto_action,
      deadline_text: deadlineText(deadlineOf(r), (id) => roleNames.get(id) ?? ''),
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

// ---------------------------------------------------------------- definitions

async function definitionRows(db: Db, filter: { name?: string }): Promise<ProcessDefinitionRow[]> {
  let q = db.selectFrom('process_definition').select(['process_definition_id', 'name', 'remark', 'skip_repeat', 'create_user_id', 'create_time', 'update_time']).where('deleted', '=', 0);
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
      skip_repeat: r.skip_repeat,
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

/** The definition (name, remark, chain) and creator of each process on a page. */
async function processDetails(rows: RowValues[], db: Db): Promise<RowValues[]> {
  const defIds = [...new Set(rows.map((r) => Number(r.process_definition_id)))];
  const [defs, chains, creators] = await Promise.all([
    defIds.length ? db.selectFrom('process_definition').select(['process_definition_id', 'name', 'remark', 'create_time']).where('process_definition_id', 'in', defIds).execute() : [],
    chainsOf(db, defIds),
    creatorNames(
      db,
      rows.map((r) => r.create_user_id as number | null),
    ),
  ]);
  const defOf = new Map(defs.map((d) => [d.process_definition_id, d]));
  return rows.map((p) => {
    const d = defOf.get(Number(p.process_definition_id));
    const creator = p.create_user_id === null ? '系统' : (creators.get(Number(p.create_user_id)) ?? '');
    return {
      ...p,
      process_definition: d ? { name: d.name, remark: d.remark ?? '', create_time: d.create_time ?? '', definitionNodeList: chains.get(d.process_definition_id) ?? [] } : null,
      process_definition_name: d?.name ?? '',
      create_user: { user_name: creator },
      create_user_name: creator,
    };
  });
}

/** 审批流程: a declared register. */
export const processesDef = (ctx: AppContext) => {
  /** The process's definition is live: locked against its delete on PostgreSQL, inside a write's transaction. */
  const assertDefinitionLive = async (db: Db, id: number) => {
    if (!(await lockLive(db, ctx, 'process_definition', 'process_definition_id', [id])).length) throw invalid(processLabels, 'processDefinitionId', '所选流程定义不存在或已被删除');
  };
  return defineResource({
    contract: processApi,
    table: 'process',
    softDelete: 'deleted',
    columns: ['process_id', 'uuid', 'name', 'type', 'process_definition_id', 'create_user_id', 'create_time', 'update_time'],
    orderBy: [
      ['type', 'asc'],
      ['process_id', 'asc'],
    ],
    readable: async (_db, auth) => auth.permissions.has('menu:process'),
    filters: { name: { column: 'name', match: 'contains' }, type: { column: 'type', match: 'equals' } },
    decorate: processDetails,
    stamps: { createUser: 'create_user_id' },
    toRow: (values, { mode }) => {
      const v = values as ProcessCreate;
      return { ...(mode === 'create' ? { uuid: randomUUID() } : {}), name: v.name, type: v.type, process_definition_id: v.processDefinitionId };
    },
    // The definition must be live and the type free of another live process (a unique index keeps the type so under a race too).
    check: async (values, w, db) => {
      const v = values as ProcessCreate;
      await assertDefinitionLive(db, v.processDefinitionId);
      const other = await processOfType(db, v.type, w.id);
      if (other) throw typeTaken(v.type, other.name);
    },
    // Again in the write's transaction, locked: a delete of the definition meanwhile waits, or is seen.
    afterWrite: async (trx, values) => assertDefinitionLive(trx, (values as ProcessCreate).processDefinitionId),
  });
};

export async function processConfigRoutes(app: FastifyInstance) {
  const { ctx } = app;
  const { definition, node } = processConfigApi;
  const { db } = ctx;

  // Read by any role holder, like departments and roles: the definition form picks from it, and it holds nothing secret.
  route(app, node.all, async (req) => ok(await nodeRows(db, { name: req.body.name })));
  route(app, node.save, async (req) => ok({ process_node_id: await createNode(ctx, req.auth!.userId, req.body) }, '创建成功！'));
  route(app, node.edit, async (req) => {
    await updateNode(ctx, req.body.processNodeId, req.body);
    return ok(null, '编辑成功！');
  });
  route(app, node.delete, async (req) => {
    await deleteNode(ctx, req.body.processNodeId);
    return ok(null, '删除成功！');
  });

  // Read by any role holder: the process form picks from it.
  route(app, definition.all, async (req) => ok(await definitionRows(db, { name: req.body.name })));
  route(app, definition.save, async (req) => ok({ process_definition_id: await createDefinition(ctx, req.auth!.userId, req.body) }, '创建成功！'));
  route(app, definition.edit, async (req) => {
    await updateDefinition(ctx, req.body.processDefinitionId, req.body);
    return ok(null, '编辑成功！');
  });
  route(app, definition.delete, async (req) => {
    await deleteDefinition(ctx, req.body.processDefinitionId);
    return ok(null, '删除成功！');
  });

  await registerResource(app, processesDef(ctx));
}
