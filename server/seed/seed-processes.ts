import { randomUUID } from 'node:crypto';
import { ProcessType } from '../../domain/appointments';
import { NO_DEADLINE, overtimeFieldsOf, overtimeRule } from '../../domain/approval-deadline';
import type { AppContext } from '../core/context';
import { deadlineColumnsOf } from '../workflow/chain';

const rule = (n: NodeSeed) => (n.overtimeHours ? overtimeRule(n.overtimeHours) : NO_DEADLINE);

interface NodeSeed {
  key: string;
  name: string;
  role: string;
  departs?: string[];
  companyCheck?: 1;
  countersign?: 1;
  overtimeHours?: number;
  remark: string;
}

/** The demo park's approval nodes: the visited enterprise, the hazardous-goods department, the squad's final review. */
const nodes: NodeSeed[] = [
  { key: 'company', name: '被访企业审核', role: 'enterprise_reviewer', companyCheck: 1, remark: '被访企业的审核员审核' },
  { key: 'company_overtime', name: '被访企业审核（24小时未审自动通过）', role: 'enterprise_reviewer', companyCheck: 1, overtimeHours: 24, remark: '人员来访：被访企业24小时内未审核则自动通过' },
  { key: 'hazmat', name: '危化品安全管理部审核', role: 'hazard_reviewer', departs: ['HAZMAT'], remark: '危化品、重型自卸货车、中大型客车专项审核' },
  { key: 'squad', name: '石化大队终审', role: 'squad_reviewer', departs: ['SQUAD'], remark: '园区安保终审' },
];

const processes: Array<{ type: number; name: string; chain: string[] }> = [
  { type: ProcessType.PERSON, name: '人员预约审批', chain: ['company_overtime', 'squad'] },
  { type: ProcessType.CAR, name: '车辆预约审批', chain: ['company', 'squad'] },
  { type: ProcessType.HEAVY_DUMP, name: '重型自卸货车预约审批', chain: ['company', 'hazmat', 'squad'] },
  { type: ProcessType.BUS, name: '中大型客车预约审批', chain: ['company', 'hazmat', 'squad'] },
  { type: ProcessType.CHEMICALS, name: '危险化学品车辆预约审批', chain: ['company', 'hazmat', 'squad'] },
  // A registration visits no department: a visited-enterprise node would never find its reviewer.
  { type: ProcessType.REGISTRATION, name: '车辆备案审批', chain: ['hazmat', 'squad'] },
  { type: ProcessType.CAR_LIST, name: '车辆黑白名单审批', chain: ['squad'] },
  { type: ProcessType.PERSON_LIST, name: '人员黑白名单审批', chain: ['squad'] },
  { type: ProcessType.WAYBILL, name: '运输运单审批', chain: ['hazmat', 'squad'] },
];

/** One process per process type (DESIGN.md §3), seeded once with the demo park. */
export async function seedProcesses(ctx: AppContext): Promise<void> {
  const { db } = ctx;
  if (await db.selectFrom('process').select('process_id').limit(1).executeTakeFirst()) return;
  const now = ctx.time();
  // Looked up before the transaction: on SQLite the transaction holds the only connection.
  const roleIds = new Map<string, number>();
  for (const n of nodes) roleIds.set(n.role, (await db.selectFrom('sys_role').select('role_id').where('code', '=', n.role).where('deleted', '=', 0).executeTakeFirstOrThrow()).role_id);
  const departIds = new Map<string, number>();
  for (const code of nodes.flatMap((n) => n.departs ?? []))
    departIds.set(code, (await db.selectFrom('sys_department').select('depart_id').where('code', '=', code).where('deleted', '=', 0).executeTakeFirstOrThrow()).depart_id);

  await db.transaction().execute(async (trx) => {
    const nodeIds = new Map<string, { id: number; name: string }>();
    for (const n of nodes) {
      const { process_node_id } = await trx
        .insertInto('process_node')
        .values({
          name: n.name,
          countersign: n.countersign ?? 0,
          company_check: n.companyCheck ?? 0,
          ...overtimeFieldsOf(rule(n)),
          ...deadlineColumnsOf(rule(n)),
          role_id: roleIds.get(n.role)!,
          remark: n.remark,
          create_user_id: null,
          create_time: now,
          update_time: now,
        })
        .returning('process_node_id')
        .executeTakeFirstOrThrow();
      for (const code of n.departs ?? [])
        await trx
          .insertInto('process_node_depart')
          .values({ process_node_id, depart_id: departIds.get(code)! })
          .execute();
      nodeIds.set(n.key, { id: process_node_id, name: n.name });
    }
    for (const p of processes) {
      const { process_definition_id } = await trx
        .insertInto('process_definition')
        .values({ name: p.name, remark: p.chain.map((k) => nodeIds.get(k)!.name).join(' → '), create_user_id: null, create_time: now, update_time: now })
        .returning('process_definition_id')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('process_definition_node')
        .values(p.chain.map((k, i) => ({ process_definition_id, process_node_id: nodeIds.get(k)!.id, sort: i + 1, name: nodeIds.get(k)!.name })))
        .execute();
      await trx.insertInto('process').values({ uuid: randomUUID(), name: p.name, type: p.type, process_definition_id, create_user_id: null, create_time: now, update_time: now }).execute();
    }
  });
}
