import type { Kysely, Transaction } from 'kysely';
import { InstanceState } from '../../domain/appointments';
import { DeadlineUnit, type AutoAction, type DeadlineRule } from '../../domain/approval-deadline';
import type { DB } from '../db/schema';

type Db = Kysely<DB> | Transaction<DB>;

export { InstanceState };

/**
 * The chain an instance follows (DESIGN.md §4, migration 015). Submitting
 * copies the process's definition with each node's candidates rule and
 * overtime limit into process_instance_node; the engine, the queues and the
 * process view read only that copy afterwards. So an administrator's edit of a
 * node, a definition or a process applies to submissions from then on, while
 * an instance already under way (or rejected or revoked, and resumed later)
 * finishes on the chain it started with.
 */

export interface ChainNode {
  sort: number;
  definition_node_id: number;
  process_node_id: number;
  name: string;
  role_id: number;
  departIds: number[];
  countersign: number;
  company_check: number;
  overtime_auto_check: number;
  overtime_hours: number;
  deadline: DeadlineRule;
}

/** The deadline columns of a node row (migration 041). */
export interface DeadlineColumns {
  deadline_value: number | null;
  deadline_unit: number | null;
  remind_times: number | null;
  remind_interval: number | null;
  escalate_role_id: number | null;
  auto_action: number | null;
}
export const deadlineColumns = ['deadline_value', 'deadline_unit', 'remind_times', 'remind_interval', 'escalate_role_id', 'auto_action'] as const;

export function deadlineOf(r: DeadlineColumns): DeadlineRule {
  return {
    value: r.deadline_value ?? 0,
    unit: r.deadline_unit === DeadlineUnit.WORKING_DAYS ? DeadlineUnit.WORKING_DAYS : DeadlineUnit.HOURS,
    remindTimes: r.remind_times ?? 0,
    remindIntervalHours: r.remind_interval ?? 0,
    escalateRoleId: r.escalate_role_id ?? null,
    autoAction: (r.auto_action ?? 0) as AutoAction,
  };
}

export function deadlineColumnsOf(d: DeadlineRule) {
  return {
    deadline_value: d.value,
    deadline_unit: d.unit,
    remind_times: d.remindTimes,
    remind_interval: d.remindIntervalHours,
    escalate_role_id: d.escalateRoleId,
    auto_action: d.autoAction,
  };
}

/** The definition's chain as configured now: what a submission copies. */
export async function configuredChain(db: Db, definitionId: number): Promise<ChainNode[]> {
  const rows = await db
    .selectFrom('process_definition_node as d')
    .innerJoin('process_node as n', 'n.process_node_id', 'd.process_node_id')
    .select(['d.sort', 'd.definition_node_id', 'n.process_node_id', 'd.name', 'n.role_id', 'n.countersign', 'n.company_check', 'n.overtime_auto_check', 'n.overtime_hours'])
    .select(deadlineColumns.map((c) => `n.${c}` as const))
    .where('d.process_definition_id', '=', definitionId)
    .orderBy('d.sort')
    .execute();
  if (!rows.length) return [];
  const departs = await db
    .selectFrom('process_node_depart')
    .select(['process_node_id', 'depart_id'])
    .where(
      'process_node_id',
      'in',
      rows.map((r) => r.process_node_id),
    )
    .orderBy('depart_id')
    .execute();
  return rows.map(({ deadline_value, deadline_unit, remind_times, remind_interval, escalate_role_id, auto_action, ...r }) => ({
    ...r,
    deadline: deadlineOf({ deadline_value, deadline_unit, remind_times, remind_interval, escalate_role_id, auto_action }),
    // A visited-enterprise node reviews in the application's department, never in configured ones.
    departIds: r.company_check === 1 ? [] : departs.filter((d) => d.process_node_id === r.process_node_id).map((d) => d.depart_id),
  }));
}

/** Copies the chain onto the instance (in the submit's transaction). */
export async function copyChain(trx: Db, instanceId: number, chain: ChainNode[]): Promise<void> {
  await trx
    .insertInto('process_instance_node')
    .values(
      chain.map((n) => ({
        process_instance_id: instanceId,
        sort: n.sort,
        definition_node_id: n.definition_node_id,
        process_node_id: n.process_node_id,
        name: n.name,
        role_id: n.role_id,
        depart_ids: JSON.stringify(n.departIds),
        countersign: n.countersign,
        company_check: n.company_check,
        overtime_auto_check: n.overtime_auto_check,
        overtime_hours: n.overtime_hours,
        ...deadlineColumnsOf(n.deadline),
      })),
    )
    .execute();
}

const parseDeparts = (text: string): number[] => {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.map(Number).filter((n) => Number.isInteger(n) && n > 0) : [];
  } catch {
    return [];
  }
};

/** A node of the chain as a decision's one read joins it (engine.ts decisionRead): its columns, sort and name prefixed, null past a chain's end. */
export interface JoinedNode {
  node_sort: number | null;
  definition_node_id: number | null;
  process_node_id: number | null;
  node_name: string | null;
  role_id: number | null;
  depart_ids: string | null;
  countersign: number | null;
  company_check: number | null;
  overtime_auto_check: number | null;
  overtime_hours: number | null;
  deadline_value: number | null;
  deadline_unit: number | null;
  remind_times: number | null;
  remind_interval: number | null;
  escalate_role_id: number | null;
  auto_action: number | null;
}

export function chainNodeOf(r: JoinedNode): ChainNode {
  return {
    sort: r.node_sort!,
    definition_node_id: r.definition_node_id!,
    process_node_id: r.process_node_id!,
    name: r.node_name!,
    role_id: r.role_id!,
    departIds: parseDeparts(r.depart_ids ?? '[]'),
    countersign: r.countersign ?? 0,
    company_check: r.company_check ?? 0,
    overtime_auto_check: r.overtime_auto_check ?? 0,
    overtime_hours: r.overtime_hours ?? 0,
    deadline: deadlineOf(r),
  };
}

const chainColumns = [
  'sort',
  'definition_node_id',
  'process_node_id',
  'name',
  'role_id',
  'depart_ids',
  'countersign',
  'company_check',
  'overtime_auto_check',
  'overtime_hours',
  ...deadlineColumns,
] as const;

type StoredNode = { [K in (typeof chainColumns)[number]]: K extends 'name' | 'depart_ids' ? string : K extends 'escalate_role_id' ? number | null : number };
const nodeOfStored = ({ depart_ids, deadline_value, deadline_unit, remind_times, remind_interval, escalate_role_id, auto_action, ...rest }: StoredNode): ChainNode => ({
  ...rest,
  departIds: parseDeparts(depart_ids),
  deadline: deadlineOf({ deadline_value, deadline_unit, remind_times, remind_interval, escalate_role_id, auto_action }),
});

/** The instance's own node at `sort`, as copied at submit. */
export async function instanceNode(db: Db, instanceId: number, sort: number): Promise<ChainNode | undefined> {
  const row = await db
    .selectFrom('process_instance_node')
    .select([...chainColumns])
    .where('process_instance_id', '=', instanceId)
    .where('sort', '=', sort)
    .executeTakeFirst();
  return row ? nodeOfStored(row) : undefined;
}

/**
 * The instance's own chain, in order, as copied at submit: a decision reads it
 * once for the node decided, the next node and whether that one is the last
 * (a few rows, where asking for each apart cost a round trip each).
 */
export async function instanceChain(db: Db, instanceId: number): Promise<ChainNode[]> {
  const rows = await db
    .selectFrom('process_instance_node')
    .select([...chainColumns])
    .where('process_instance_id', '=', instanceId)
    .orderBy('sort')
    .execute();
  return rows.map(nodeOfStored);
}

/** One node of an instance's own chain as the process view shows it (spec 002's node fields: role, departList, countersign, company_check). */
export interface ChainNodeView {
  sort: number;
  name: string;
  definitionNodeId: number;
  processNodeId: number;
  countersign: number;
  company_check: number;
  role: { role_id: number; name: string };
  /** Empty for a visited-enterprise node: it reviews in the application's department. */
  departList: Array<{ depart_id: number; name: string }>;
}

/**
 * The instance's chain in order, done and still to come (the process view's
 * processNodeList): names and rules as copied at submit, role and department
 * names as they are called now.
 */
export async function instanceChainView(db: Db, instanceId: number): Promise<ChainNodeView[]> {
  const chain = await instanceChain(db, instanceId);
  if (!chain.length) return [];
  const departIds = [...new Set(chain.flatMap((n) => n.departIds))];
  const [roles, departs] = await Promise.all([
    db
      .selectFrom('sys_role')
      .select(['role_id', 'name'])
      .where('role_id', 'in', [...new Set(chain.map((n) => n.role_id))])
      .execute(),
    departIds.length ? db.selectFrom('sys_department').select(['depart_id', 'name']).where('depart_id', 'in', departIds).execute() : Promise.resolve([]),
  ]);
  const roleName = new Map(roles.map((r) => [r.role_id, r.name]));
  const departName = new Map(departs.map((d) => [d.depart_id, d.name]));
  return chain.map((n) => ({
    sort: n.sort,
    name: n.name,
    definitionNodeId: n.definition_node_id,
    processNodeId: n.process_node_id,
    countersign: n.countersign,
    company_check: n.company_check,
    role: { role_id: n.role_id, name: roleName.get(n.role_id) ?? '' },
    departList: n.departIds.map((depart_id) => ({ depart_id, name: departName.get(depart_id) ?? String(depart_id) })),
  }));
}

/**
 * How many running instances (审核中) use a configured node or definition: such
 * a node or definition cannot be deleted. Rejected and revoked instances keep
 * their own copy and resume on it, so they do not hold the configuration.
 */
export async function runningUsing(db: Db, what: { processNodeId: number } | { definitionId: number }): Promise<number> {
  const row =
    'processNodeId' in what
      ? await db
          .selectFrom('process_instance_node as c')
          .innerJoin('process_instance as i', 'i.process_instance_id', 'c.process_instance_id')
          .select((eb) => eb.fn.count<number>('i.process_instance_id').distinct().as('n'))
          .where('c.process_node_id', '=', what.processNodeId)
          .where('i.state', '=', InstanceState.RUNNING)
          .executeTakeFirst()
      : await db
          .selectFrom('process_instance')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('process_definition_id', '=', what.definitionId)
          .where('state', '=', InstanceState.RUNNING)
          .executeTakeFirst();
  return Number(row?.n ?? 0);
}
