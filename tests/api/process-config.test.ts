import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDeadlines } from '../../server/workflow/deadlines';
import { ProcessType } from '../../domain/appointments';
import type { Page } from '../../domain/envelope';
import type { ProcessDefinitionRow, ProcessNodeRow, ProcessRow } from '../../domain/schemas/process-config';
import { instanceChain } from '../../server/db/migrations/015-instance-chain';
import { idNumber, personApplicationBody } from './fixtures';
import { Client, dialects, startServer, type Reply, type TestServer } from './harness';

/**
 * Approval-process configuration over HTTP (spec 002 §2-§8) and the engine's
 * rule that an instance finishes on the chain it started with (DESIGN.md §4).
 */

interface TaskRow {
  process_task_id: number;
  process_instance_id: number;
  node_name: string;
  personApplication: { application_number: string };
}
type Errors = { errors: Array<{ field: string; message: string }> };

const queuePath = {
  person_task: { page: '/personApplications/task/page', check: '/personApplications/task/check' },
  person_final: { page: '/personApplications/shdd_final/taskPage', check: '/personApplications/shdd_final/taskCheck' },
} as const;

for (const dialect of await dialects()) {
  describe(`approval-process configuration (${dialect})`, () => {
    let server: TestServer;
    const as: Record<string, Client> = {};
    const role: Record<string, number> = {};
    const depart: Record<string, number> = {};
    let today = '';
    let idSeq = 0;

    beforeAll(async () => {
      server = await startServer(dialect);
      for (const a of ['admin', 'contact', 'reviewer', 'squad']) as[a] = await new Client(server).as(a);
      const { db } = server.app.ctx;
      for (const r of await db.selectFrom('sys_role').select(['role_id', 'code']).execute()) role[r.code] = r.role_id;
      for (const d of await db.selectFrom('sys_department').select(['depart_id', 'code']).execute()) depart[d.code] = d.depart_id;
      today = server.app.ctx.time().slice(0, 10);
    });
    afterAll(async () => server?.close());

    const admin = () => as.admin!;
    const nodes = async () => (await admin().post<ProcessNodeRow[]>('/processNode/all', {})).body.data;
    const nodeNamed = async (name: string) => (await nodes()).find((n) => n.name === name)!;
    const definitions = async () => (await admin().post<ProcessDefinitionRow[]>('/processDefinition/all', {})).body.data;
    const processes = async () => (await admin().post<Page<ProcessRow>>('/process/all', { size: 100, pn: 1 })).body.data.list;
    const processOf = async (type: number) => (await processes()).find((p) => p.type === type)!;

    const expect400 = (r: Reply, msg: string, field: string) => {
      expect(r.status, `${msg}: ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body.msg).toContain(msg);
      expect((r.body.data as Errors).errors.map((e) => e.field)).toContain(field);
    };

    /** A submitted person appointment of the contact visiting 中海壳牌. */
    async function submitPerson(): Promise<{ id: number; number: string; instance: number }> {
      const saved = await as.contact!.post<{ id: number }>(
        '/personApplications/save',
        personApplicationBody({ today, visitor_idcard: idNumber(++idSeq, '07'), interviewee_depart_id: depart.CNOOC_SHELL! }),
      );
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      const id = saved.body.data.id;
      const pushed = await as.contact!.post('/personApplications/push', { id });
      expect(pushed.body, JSON.stringify(pushed.body)).toMatchObject({ success: true });
      const row = await server.app.ctx.db.selectFrom('person_application').select(['application_number', 'process_instance_id']).where('person_application_id', '=', id).executeTakeFirstOrThrow();
      return { id, number: row.application_number, instance: row.process_instance_id! };
    }

    const taskOf = async (who: string, queue: keyof typeof queuePath, number: string) => {
      const r = await as[who]!.post<Page<TaskRow>>(queuePath[queue].page, { size: 50, pn: 1, application_number: number });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data.list.find((t) => t.personApplication.application_number === number);
    };
    const approve = async (who: string, queue: keyof typeof queuePath, number: string) => {
      const t = await taskOf(who, queue, number);
      expect(t, `${who} has ${number} in ${queue}`).toBeTruthy();
      const r = await as[who]!.post(queuePath[queue].check, { taskIds: String(t!.process_task_id) });
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true });
      return t!;
    };
    const personState = async (id: number) => (await server.app.ctx.db.selectFrom('person_application').select('state').where('person_application_id', '=', id).executeTakeFirstOrThrow()).state;
    const chainOf = async (id: number) =>
      (await as.contact!.post<{ processNodeList: Array<{ name: string }> }>('/v2/personApplications/check/process/info', { id })).body.data.processNodeList.map((n) => n.name);

    // ---------------------------------------------------------------- reads

    it('lists the seeded configuration: one process per type, its definition and chain, nodes with role and departments', async () => {
      const list = await processes();
      expect(list.map((p) => p.type)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      const person = list[0]!;
      expect(person).toMatchObject({ name: '人员预约审批', process_definition: { name: '人员预约审批' }, create_user: { user_name: '系统' } });
      expect(person.process_definition!.definitionNodeList.map((n) => n.name)).toEqual(['被访企业审核（24小时未审自动通过）', '石化大队终审']);
      const paged = await admin().post<Page<ProcessRow>>('/process/all', { size: 2, pn: 2 });
      expect(paged.body.data.total).toBe(9);
      expect(paged.body.data.list.map((p) => p.type)).toEqual([3, 4]);
      expect((await admin().post<Page<ProcessRow>>('/process/all', { type: 5 })).body.data.list.map((p) => p.name)).toEqual(['危险化学品车辆预约审批']);
      expect((await admin().post<Page<ProcessRow>>('/process/all', { name: '黑白' })).body.data.total).toBe(2);

      const squad = await nodeNamed('石化大队终审');
      expect(squad).toMatchObject({ company_check: 0, countersign: 0, role: { role_id: role.squad_reviewer, name: '石化大队审核员' }, departList: [{ depart_id: depart.SQUAD }] });
      expect(squad.definitions.length).toBe(9);
      expect(await nodeNamed('被访企业审核（24小时未审自动通过）')).toMatchObject({ company_check: 1, overtime_auto_check: 1, overtime_hours: 24, departList: [] });

      const defs = await definitions();
      const personDef = defs.find((d) => d.name === '人员预约审批')!;
      expect(personDef.processNodeIds.split(',').map(Number)).toEqual(personDef.definitionNodeList.map((n) => n.processNodeId));
      expect(personDef.processes).toEqual([{ process_id: person.process_id, name: '人员预约审批', type: 1 }]);
      expect((await admin().post<ProcessDefinitionRow[]>('/processDefinition/all', { name: '客车' })).body.data.map((d) => d.name)).toEqual(['中大型客车预约审批']);
    });

    it('declares its permission codes: writes need the spec codes, the process list its menu, reads of nodes and definitions a role', async () => {
      const contact = as.contact!;
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['/process/all', {}, 'menu:process'],
        ['/process/save', { name: 'x', type: 1, processDefinitionId: 1 }, 'process:add'],
        ['/process/update', { processId: 1, name: 'x', type: 1, processDefinitionId: 1 }, 'process:edit'],
        ['/process/delete', { processId: 1 }, 'process:delete'],
        ['/v2/processNode/save', {}, 'processNode:add'],
        ['/v2/processNode/update', {}, 'processNode:edit'],
        ['/processNode/delete', { processNodeId: 1 }, 'processNode:delet'],
        ['/v2/processDefinition/save', {}, 'menu:processDefinition'],
        ['/processDefinition/update', {}, 'menu:processDefinition'],
        ['/processDefinition/delete', { processDefinitionId: 1 }, 'menu:processDefinition'],
      ];
      for (const [url, body, code] of cases) {
        const r = await contact.post(url, body);
        expect(r.status, url).toBe(403);
        expect(r.body.msg, url).toContain(code);
      }
      expect((await contact.post('/processNode/all', {})).status).toBe(200);
      expect((await contact.post('/processDefinition/all', {})).status).toBe(200);
      expect((await new Client(server).post('/processNode/all', {})).status).toBe(401);
    });

    // ---------------------------------------------------------------- the process view

    it('answers the instance’s whole chain in the process view: done, current and still to come (processNodeList)', async () => {
      type View = {
        processInstance: { state: number; current_sort: number; create_time: string };
        processNodeList: Array<{
          sort: number;
          name: string;
          company_check: number;
          countersign: number;
          role: { role_id: number; name: string };
          departList: Array<{ depart_id: number; name: string }>;
        }>;
        processTaskList: Array<{ state: number; processDefinitionNode: { sort: number } }>;
      };
      const view = async (id: number) => (await as.contact!.post<View>('/v2/personApplications/check/process/info', { id })).body.data;
      const app = await submitPerson();
      const submitted = await view(app.id);
      expect(submitted.processInstance).toMatchObject({ state: 0, current_sort: 1 });
      expect(submitted.processNodeList).toMatchObject([
        { sort: 1, name: '被访企业审核（24小时未审自动通过）', company_check: 1, countersign: 0, role: { role_id: role.enterprise_reviewer, name: '企业审核员' }, departList: [] },
        {
          sort: 2,
          name: '石化大队终审',
          company_check: 0,
          countersign: 0,
          role: { role_id: role.squad_reviewer, name: '石化大队审核员' },
          departList: [{ depart_id: depart.SQUAD, name: '石化大队' }],
        },
      ]);
      // Only the first node has tasks yet: the second is known from the chain alone.
      expect(new Set(submitted.processTaskList.map((t) => t.processDefinitionNode.sort))).toEqual(new Set([1]));

      await approve('reviewer', 'person_task', app.number);
      const second = await view(app.id);
      expect(second.processInstance.current_sort).toBe(2);
      expect(second.processNodeList.map((n) => n.sort)).toEqual([1, 2]);
      expect(second.processTaskList.filter((t) => t.state === 0).map((t) => t.processDefinitionNode.sort)).toEqual([2]);
    });

    // ---------------------------------------------------------------- nodes

    it('validates a node with the spec messages; the visited-enterprise check clears departments and countersign on the server too', async () => {
      const valid = { name: '测试节点', departIds: [depart.HAZMAT], roleId: role.hazard_reviewer, countersign: 0, companyCheck: 0, overtimeAutoCheck: 0, remark: '' };
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ name: '' }, '请输入节点名称', 'name'],
        [{ name: '节'.repeat(31) }, '不能超过30个文字', 'name'],
        [{ countersign: undefined }, '请选择是否会签', 'countersign'],
        [{ companyCheck: 3 }, '请选择被访企业审核', 'companyCheck'],
        [{ overtimeAutoCheck: null }, '请选择是否开启超时自动审核', 'overtimeAutoCheck'],
        [{ departIds: [] }, '请选择关联部门', 'departIds'],
        [{ departIds: 'a,b' }, '关联部门不正确', 'departIds'],
        [{ roleId: undefined }, '请选择关联角色', 'roleId'],
        [{ overtimeAutoCheck: 1 }, '请输入超时时限', 'overtimeHours'],
        [{ overtimeAutoCheck: 1, overtimeHours: 721 }, '超时时限范围为1-720小时', 'overtimeHours'],
        [{ remark: '备'.repeat(81) }, '备注不能超过80个字符', 'remark'],
        [{ roleId: 999999 }, '所选角色不存在或已被删除', 'roleId'],
        [{ departIds: [999999] }, '所选部门不存在或已被删除', 'departIds'],
      ];
      for (const [patch, msg, field] of cases) expect400(await admin().post('/v2/processNode/save', { ...valid, ...patch }), msg, field);

      const company = await admin().post<{ process_node_id: number }>('/v2/processNode/save', { ...valid, name: '企业会签测试', companyCheck: 1, countersign: 1, departIds: '' + depart.HAZMAT });
      expect(company.body).toMatchObject({ success: true, msg: '创建成功！' });
      // No departments are needed with the check, and none are kept.
      expect(await nodeNamed('企业会签测试')).toMatchObject({ company_check: 1, countersign: 0, departList: [], create_user_name: '系统管理员' });
      const id = company.body.data.process_node_id;
      const edited = await admin().post('/v2/processNode/update', {
        ...valid,
        processNodeId: id,
        name: '企业会签测试二',
        countersign: 1,
        departIds: `${depart.HAZMAT},${depart.SQUAD}`,
        overtimeAutoCheck: 1,
        overtimeHours: '6',
      });
      expect(edited.body).toMatchObject({ success: true, msg: '编辑成功！' });
      expect(await nodeNamed('企业会签测试二')).toMatchObject({
        company_check: 0,
        countersign: 1,
        overtime_auto_check: 1,
        overtime_hours: 6,
        departIds: [depart.HAZMAT, depart.SQUAD].sort((a, b) => a! - b!),
      });
      expect((await admin().post('/v2/processNode/update', { ...valid, processNodeId: 999999 })).status).toBe(404);
      const del = await admin().post('/processNode/delete', { processNodeId: id });
      expect(del.body).toMatchObject({ success: true, msg: '删除成功！' });
      expect((await admin().post('/processNode/delete', { processNodeId: id })).status).toBe(404);
      expect((await nodes()).some((n) => n.process_node_id === id)).toBe(false);
    });

    // ---------------------------------------------------------------- definitions

    it('validates a definition, keeps its chain fixed on edit, and refuses to delete one or its nodes while in use', async () => {
      expect400(await admin().post('/v2/processDefinition/save', { name: '', processNodeIds: '1' }), '请输入流程定义名称', 'name');
      expect400(await admin().post('/v2/processDefinition/save', { name: '定'.repeat(31), processNodeIds: '1' }), '不能超过30个文字', 'name');
      expect400(await admin().post('/v2/processDefinition/save', { name: '空链', processNodeIds: '' }), '未创建流程，请将节点添加到右侧', 'processNodeIds');
      expect400(await admin().post('/v2/processDefinition/save', { name: '空链', processNodeIds: [] }), '未创建流程，请将节点添加到右侧', 'processNodeIds');
      const squad = await nodeNamed('石化大队终审');
      expect400(await admin().post('/v2/processDefinition/save', { name: '重复', processNodeIds: `${squad.process_node_id},${squad.process_node_id}` }), '同一节点不能重复选择', 'processNodeIds');
      expect400(await admin().post('/v2/processDefinition/save', { name: '不存在', processNodeIds: '999999' }), '所选节点不存在或已被删除', 'processNodeIds');

      const n = await admin().post<{ process_node_id: number }>('/v2/processNode/save', {
        name: '临时节点',
        departIds: [depart.HAZMAT],
        roleId: role.hazard_reviewer,
        countersign: 0,
        companyCheck: 0,
        overtimeAutoCheck: 0,
      });
      const nodeId = n.body.data.process_node_id;
      const saved = await admin().post<{ process_definition_id: number }>('/v2/processDefinition/save', { name: '临时定义', remark: '测试', processNodeIds: `${nodeId},${squad.process_node_id}` });
      expect(saved.body).toMatchObject({ success: true, msg: '创建成功！' });
      const defId = saved.body.data.process_definition_id;
      const def = (await definitions()).find((d) => d.process_definition_id === defId)!;
      expect(def).toMatchObject({ name: '临时定义', remark: '测试', processNodeIds: `${nodeId},${squad.process_node_id}`, processes: [], createUser: { user_name: '系统管理员' } });
      expect(def.definitionNodeList.map((x) => [x.sort, x.name])).toEqual([
        [1, '临时节点'],
        [2, '石化大队终审'],
      ]);

      // Name and remark change with the chain sent as it is, or without it.
      const edit = await admin().post('/processDefinition/update', { processDefinitionId: defId, name: '临时定义二', remark: '', processNodeIds: def.processNodeIds });
      expect(edit.body).toMatchObject({ success: true, msg: '编辑成功！' });
      expect((await admin().post('/processDefinition/update', { processDefinitionId: defId, name: '只改名' })).body.success).toBe(true);
      expect((await definitions()).find((d) => d.process_definition_id === defId)!.processNodeIds).toBe(def.processNodeIds);
      // A changed chain is checked like a new one.
      expect400(await admin().post('/processDefinition/update', { processDefinitionId: defId, name: '只改名', processNodeIds: '999999' }), '所选节点不存在或已被删除', 'processNodeIds');
      expect400(await admin().post('/processDefinition/update', { processDefinitionId: defId, name: '只改名', processNodeIds: [] }), '未创建流程，请将节点添加到右侧', 'processNodeIds');

      // A node that a live definition uses stays.
      const nodeDel = await admin().post('/processNode/delete', { processNodeId: nodeId });
      expect(nodeDel.status).toBe(409);
      expect(nodeDel.body.msg).toBe('流程节点“临时节点”正被流程定义“只改名”使用，不能删除；请先删除这些流程定义');
      // Renaming a node renames it in the chains that hold it.
      await admin().post('/v2/processNode/update', {
        processNodeId: nodeId,
        name: '临时节点改',
        departIds: [depart.HAZMAT],
        roleId: role.hazard_reviewer,
        countersign: 0,
        companyCheck: 0,
        overtimeAutoCheck: 0,
      });
      expect((await definitions()).find((d) => d.process_definition_id === defId)!.definitionNodeList[0]!.name).toBe('临时节点改');

      // A definition that a live process uses stays.
      const personDef = (await processOf(ProcessType.PERSON)).process_definition_id;
      const defDel = await admin().post('/processDefinition/delete', { processDefinitionId: personDef });
      expect(defDel.status).toBe(409);
      expect(defDel.body.msg).toBe('流程定义“人员预约审批”正被流程“人员预约审批”使用，不能删除；请先在这些流程中选用其他流程定义');

      expect((await admin().post('/processDefinition/delete', { processDefinitionId: defId })).body).toMatchObject({ success: true, msg: '删除成功！' });
      expect((await admin().post('/processDefinition/delete', { processDefinitionId: defId })).status).toBe(404);
      expect((await admin().post('/processNode/delete', { processNodeId: nodeId })).body).toMatchObject({ success: true, msg: '删除成功！' });
      // A deleted node can no longer be chained.
      expect400(await admin().post('/v2/processDefinition/save', { name: '删除的节点', processNodeIds: `${nodeId}` }), '所选节点不存在或已被删除', 'processNodeIds');
    });

    // ---------------------------------------------------------------- processes

    it('validates a process, keeps one process per type, and refuses a submit of a type without one', async () => {
      const person = await processOf(ProcessType.PERSON);
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ name: '' }, '请输入流程名', 'name'],
        [{ name: '流'.repeat(31) }, '不能超过30个文字', 'name'],
        [{ type: undefined }, '请选择类型', 'type'],
        [{ type: 99 }, '请选择类型', 'type'],
        [{ processDefinitionId: '' }, '请选择流程定义', 'processDefinitionId'],
        [{ processDefinitionId: 999999 }, '所选流程定义不存在或已被删除', 'processDefinitionId'],
      ];
      const valid = { name: '人员预约审批（新）', type: ProcessType.PERSON, processDefinitionId: person.process_definition_id };
      for (const [patch, msg, field] of cases) expect400(await admin().post('/process/save', { ...valid, ...patch }), msg, field);

      const dup = await admin().post('/process/save', valid);
      expect(dup.status).toBe(409);
      expect(dup.body.msg).toBe('类型“人员预约”已有流程“人员预约审批”，每种类型只能有一个流程，请编辑该流程或先删除它');
      const car = await processOf(ProcessType.CAR);
      const moved = await admin().post('/process/update', { processId: car.process_id, name: car.name, type: ProcessType.PERSON, processDefinitionId: car.process_definition_id });
      expect(moved.status).toBe(409);
      expect(moved.body.msg).toContain('类型“人员预约”已有流程');

      // No process in force: the submit is refused and says what to do.
      expect((await admin().post('/process/delete', { processId: person.process_id })).body).toMatchObject({ success: true, msg: '删除成功！' });
      const saved = await as.contact!.post<{ id: number }>(
        '/personApplications/save',
        personApplicationBody({ today, visitor_idcard: '441302198503152048', interviewee_depart_id: depart.CNOOC_SHELL! }),
      );
      const refused = await as.contact!.post('/personApplications/push', { id: saved.body.data.id });
      expect(refused.status).toBe(409);
      expect(refused.body.msg).toBe('未配置“人员预约”审批流程，无法提交，请联系管理员在“审批流程”中配置');
      expect(await personState(saved.body.data.id)).toBe(0);

      const created = await admin().post<{ process_id: number }>('/process/save', valid);
      expect(created.body).toMatchObject({ success: true, msg: '创建流程成功！' });
      expect(await processOf(ProcessType.PERSON)).toMatchObject({ name: '人员预约审批（新）', create_user: { user_name: '系统管理员' } });
      const renamed = await admin().post('/process/update', { ...valid, processId: created.body.data.process_id, name: '人员预约审批' });
      expect(renamed.body).toMatchObject({ success: true, msg: '编辑成功！' });
      expect((await as.contact!.post('/personApplications/push', { id: saved.body.data.id })).body).toMatchObject({ success: true });
      expect((await admin().post('/process/update', { ...valid, processId: 999999 })).status).toBe(404);
      expect((await admin().post('/process/delete', { processId: person.process_id })).status).toBe(404);
    });

    it('of two administrators configuring one type at once, exactly one succeeds (migration 002’s unique index on live types)', async () => {
      const waybill = await processOf(ProcessType.WAYBILL);
      expect((await admin().post('/process/delete', { processId: waybill.process_id })).body.success).toBe(true);
      const body = (n: number) => ({ name: `运输运单审批${n}`, type: ProcessType.WAYBILL, processDefinitionId: waybill.process_definition_id });
      const answers = await Promise.all([1, 2, 3, 4].map((n) => admin().post('/process/save', body(n))));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 200)) expect(a.status).toBe(409);
      const live = await server.app.ctx.db.selectFrom('process').select('process_id').where('type', '=', ProcessType.WAYBILL).where('deleted', '=', 0).execute();
      expect(live).toHaveLength(1);
    });

    // ---------------------------------------------------------------- the running-instance rule

    it('edits a definition’s nodes while none of its applications is in review, 409 naming how many otherwise; the next submission follows the new chain', async () => {
      const company = await nodeNamed('被访企业审核（24小时未审自动通过）');
      const squadNode = await nodeNamed('石化大队终审');
      const person = await processOf(ProcessType.PERSON);
      const useDefinition = async (definitionId: number) =>
        expect((await admin().post('/process/update', { processId: person.process_id, name: person.name, type: person.type, processDefinitionId: definitionId })).body).toMatchObject({
          success: true,
        });
      const extra = await admin().post<{ process_node_id: number }>('/v2/processNode/save', {
        name: '石化大队编辑复核',
        departIds: [depart.SQUAD],
        roleId: role.squad_reviewer,
        countersign: 0,
        companyCheck: 0,
        overtimeAutoCheck: 0,
      });
      const two = [company.process_node_id, squadNode.process_node_id];
      const three = [company.process_node_id, extra.body.data.process_node_id, squadNode.process_node_id];
      // The squad approves its two nodes one after the other here: 相同审核人自动通过 off, so each is its own step.
      const d = await admin().post<{ process_definition_id: number }>('/v2/processDefinition/save', { name: '人员预约可编辑', processNodeIds: two, skipRepeat: 0 });
      const defId = d.body.data.process_definition_id;
      const chainNow = async () => (await definitions()).find((x) => x.process_definition_id === defId)!.definitionNodeList.map((n) => n.name);
      await useDefinition(defId);
      try {
        // One application in review on it: the chain stays.
        const running = await submitPerson();
        const refused = await admin().post('/processDefinition/update', { processDefinitionId: defId, name: '人员预约可编辑', processNodeIds: three });
        expect(refused.status).toBe(409);
        expect(refused.body.msg).toBe('流程定义“人员预约可编辑”有1个审核中的申请，暂不能修改节点；请待这些申请审批结束后再修改，或新建流程定义并在流程中选用它');
        expect((refused.body.data as Errors).errors.map((e) => e.field)).toEqual(['processNodeIds']);
        expect(await chainNow()).toEqual(['被访企业审核（24小时未审自动通过）', '石化大队终审']);
        // Its name may still change.
        expect((await admin().post('/processDefinition/update', { processDefinitionId: defId, name: '人员预约可编辑', remark: '改备注' })).body.success).toBe(true);

        // Approved to the end, it no longer holds the definition.
        await approve('reviewer', 'person_task', running.number);
        await approve('squad', 'person_final', running.number);
        const edited = await admin().post('/processDefinition/update', { processDefinitionId: defId, name: '人员预约可编辑', processNodeIds: three.join(',') });
        expect(edited.body).toMatchObject({ success: true, msg: '编辑成功！' });
        expect(await chainNow()).toEqual(['被访企业审核（24小时未审自动通过）', '石化大队编辑复核', '石化大队终审']);
        expect((await definitions()).find((x) => x.process_definition_id === defId)!.processNodeIds).toBe(three.join(','));
        // The finished application keeps the chain it ran on; the next submission follows the new one.
        expect(await chainOf(running.id)).toEqual(['被访企业审核（24小时未审自动通过）', '石化大队终审']);
        const next = await submitPerson();
        expect(await chainOf(next.id)).toEqual(['被访企业审核（24小时未审自动通过）', '石化大队编辑复核', '石化大队终审']);
        await approve('reviewer', 'person_task', next.number);
        expect((await approve('squad', 'person_task', next.number)).node_name).toBe('石化大队编辑复核');
        await approve('squad', 'person_final', next.number);
        expect(await personState(next.id)).toBe(2);

        // A submission racing an edit: either the edit waits for it and is refused, or the submission waits and copies the edited chain.
        const [raced, edit] = await Promise.all([submitPerson(), admin().post('/processDefinition/update', { processDefinitionId: defId, name: '人员预约可编辑', processNodeIds: two })]);
        if (edit.status === 200) expect(await chainOf(raced.id)).toEqual(['被访企业审核（24小时未审自动通过）', '石化大队终审']);
        else {
          expect(edit.status).toBe(409);
          expect(await chainOf(raced.id)).toEqual(['被访企业审核（24小时未审自动通过）', '石化大队编辑复核', '石化大队终审']);
        }
        expect((await as.contact!.post('/personApplications/revoke', { id: raced.id, reason: '测试结束' })).body).toMatchObject({ success: true });
      } finally {
        await useDefinition(person.process_definition_id);
      }
    });

    it('an instance finishes on the chain it started with; a new submission follows the new chain', async () => {
      const { db } = server.app.ctx;
      const company = await nodeNamed('被访企业审核（24小时未审自动通过）');
      const squadNode = await nodeNamed('石化大队终审');
      const person = await processOf(ProcessType.PERSON);
      const useDefinition = async (definitionId: number) =>
        expect((await admin().post('/process/update', { processId: person.process_id, name: person.name, type: person.type, processDefinitionId: definitionId })).body).toMatchObject({
          success: true,
        });
      // The chain in force before the change: the seeded one, as a definition of this test's own.
      const two = await admin().post<{ process_definition_id: number }>('/v2/processDefinition/save', {
        name: '人员预约二级审批',
        processNodeIds: [company.process_node_id, squadNode.process_node_id],
      });
      await useDefinition(two.body.data.process_definition_id);

      const before = await submitPerson();
      // Rejected before the change and resumed after it: it also keeps its chain.
      const stopped = await submitPerson();
      const first = await taskOf('reviewer', 'person_task', stopped.number);
      const rejected = await as.reviewer!.post(queuePath.person_task.check, { taskIds: String(first!.process_task_id), result: 2, remark: '材料不全' });
      expect(rejected.body).toMatchObject({ success: true });
      expect(await personState(stopped.id)).toBe(3);

      // The administrator puts a new node between the enterprise and the squad, and shortens the enterprise's overtime limit.
      const n = await admin().post<{ process_node_id: number }>('/v2/processNode/save', {
        name: '石化大队人员复核',
        departIds: [depart.SQUAD],
        roleId: role.squad_reviewer,
        countersign: 0,
        companyCheck: 0,
        overtimeAutoCheck: 0,
        remark: '新增的复核',
      });
      const d = await admin().post<{ process_definition_id: number }>('/v2/processDefinition/save', {
        name: '人员预约三级审批',
        processNodeIds: [company.process_node_id, n.body.data.process_node_id, squadNode.process_node_id],
        // The squad's two nodes are two steps of its own here (相同审核人自动通过 off).
        skipRepeat: 0,
      });
      await useDefinition(d.body.data.process_definition_id);
      const editCompany = await admin().post('/v2/processNode/update', {
        processNodeId: company.process_node_id,
        name: '被访企业审核（1小时）',
        departIds: [],
        roleId: company.role_id,
        countersign: 0,
        companyCheck: 1,
        overtimeAutoCheck: 1,
        overtimeHours: 1,
        remark: company.remark,
      });
      expect(editCompany.body.success).toBe(true);

      const after = await submitPerson();
      expect(await chainOf(before.id)).toEqual(['被访企业审核（24小时未审自动通过）', '石化大队终审']);
      expect(await chainOf(after.id)).toEqual(['被访企业审核（1小时）', '石化大队人员复核', '石化大队终审']);

      // The queue shows each task under the name its instance was submitted with.
      expect((await taskOf('reviewer', 'person_task', before.number))!.node_name).toBe('被访企业审核（24小时未审自动通过）');
      expect((await taskOf('reviewer', 'person_task', after.number))!.node_name).toBe('被访企业审核（1小时）');

      // The overtime limit is the instance's own: 24 hours before the edit, 1 hour after it.
      const due = async (instance: number) =>
        (await db.selectFrom('process_task').select('due_at').where('process_instance_id', '=', instance).where('state', '=', 0).executeTakeFirstOrThrow()).due_at!;
      const dueBefore = await due(before.instance);
      const dueAfter = await due(after.instance);
      expect(dueAfter - server.app.ctx.now()).toBeLessThanOrEqual(3_600_000);
      expect(dueBefore - server.app.ctx.now()).toBeGreaterThan(23 * 3_600_000);
      // Two hours on, only the new instance's enterprise node has run out.
      await runDeadlines(server.app.ctx, server.app.ctx.now() + 2 * 3_600_000).then((r) => r.decided);
      expect(await taskOf('reviewer', 'person_task', after.number)).toBeUndefined();
      expect(await taskOf('reviewer', 'person_task', before.number)).toBeTruthy();

      // The old instance goes from the enterprise straight to the squad's final review, as it started.
      await approve('reviewer', 'person_task', before.number);
      expect(await taskOf('squad', 'person_task', before.number)).toBeUndefined();
      await approve('squad', 'person_final', before.number);
      expect(await personState(before.id)).toBe(2);

      // The new one meets the new node in the squad's review queue, then the final review.
      const middle = await approve('squad', 'person_task', after.number);
      expect(middle.node_name).toBe('石化大队人员复核');
      await approve('squad', 'person_final', after.number);
      expect(await personState(after.id)).toBe(2);

      // Resumed after the change, the rejected one restarts at its own first node and still skips the new node.
      expect((await as.squad!.post('/personApplications/returnSubmit', { personApplicationId: stopped.id })).body).toMatchObject({ success: true });
      expect(await chainOf(stopped.id)).toEqual(['被访企业审核（24小时未审自动通过）', '石化大队终审']);
      expect((await taskOf('reviewer', 'person_task', stopped.number))!.node_name).toBe('被访企业审核（24小时未审自动通过）');
      await approve('reviewer', 'person_task', stopped.number);
      expect(await taskOf('squad', 'person_final', stopped.number)).toBeTruthy();

      // The old definition is still used by that running instance: it cannot go until the instance ends.
      const oldDef = two.body.data.process_definition_id;
      const inUse = await admin().post('/processDefinition/delete', { processDefinitionId: oldDef });
      expect(inUse.status).toBe(409);
      expect(inUse.body.msg).toBe('流程定义“人员预约二级审批”正被1个审核中的申请使用，不能删除；请待这些申请审批结束后再删除');
      await approve('squad', 'person_final', stopped.number);
      expect(await personState(stopped.id)).toBe(2);
      expect((await admin().post('/processDefinition/delete', { processDefinitionId: oldDef })).body).toMatchObject({ success: true, msg: '删除成功！' });
    });

    it('refuses to delete a node that a running instance still follows (its definitions gone another way)', async () => {
      const { db } = server.app.ctx;
      const running = await submitPerson();
      const companyNode = (await db.selectFrom('process_instance_node').select('process_node_id').where('process_instance_id', '=', running.instance).where('sort', '=', 1).executeTakeFirstOrThrow())
        .process_node_id;
      // Definitions deleted before this rule existed: only the instance still uses the node.
      const holders = await db.selectFrom('process_definition_node').select('process_definition_id').where('process_node_id', '=', companyNode).execute();
      const ids = holders.map((h) => h.process_definition_id);
      await db.updateTable('process_definition').set({ deleted: 1 }).where('process_definition_id', 'in', ids).execute();
      try {
        const r = await admin().post('/processNode/delete', { processNodeId: companyNode });
        expect(r.status).toBe(409);
        expect(r.body.msg).toMatch(/^流程节点“被访企业审核（1小时）”正被\d+个审核中的申请使用，不能删除；请待这些申请审批结束后再删除$/);
        expect((await nodes()).some((n) => n.process_node_id === companyNode)).toBe(true);
      } finally {
        await db.updateTable('process_definition').set({ deleted: 0 }).where('process_definition_id', 'in', ids).execute();
      }
    });

    it('migration 015 gives instances submitted before it a copy of the configuration they were following', async () => {
      const { db } = server.app.ctx;
      const snapshot = async () =>
        (
          await db
            .selectFrom('process_instance_node')
            .select(['process_instance_id', 'sort', 'definition_node_id', 'process_node_id', 'name', 'role_id', 'depart_ids', 'countersign', 'company_check', 'overtime_auto_check', 'overtime_hours'])
            .orderBy('process_instance_id')
            .orderBy('sort')
            .execute()
        ).map((r) => JSON.stringify(r));
      // Only instances whose chain is still configured as it was can be compared with a rebuild from today's configuration: the tests above changed the person chain.
      const current = await db.selectFrom('process_instance').select('process_instance_id').where('process_type', '!=', ProcessType.PERSON).execute();
      const ids = new Set(current.map((c) => c.process_instance_id));
      const kept = (await snapshot()).filter((r) => ids.has(JSON.parse(r).process_instance_id));
      expect(kept.length).toBeGreaterThan(10);

      await db.schema.dropTable('process_instance_node').execute();
      await db.schema.dropIndex('process_instance_definition').execute();
      await instanceChain(server.app.ctx.dialect).up(db as never);
      const rebuilt = (await snapshot()).filter((r) => ids.has(JSON.parse(r).process_instance_id));
      expect(rebuilt).toEqual(kept);
      // Departments travel as a JSON array on both databases.
      const squadRow = await db.selectFrom('process_instance_node').select('depart_ids').where('name', '=', '石化大队终审').limit(1).executeTakeFirstOrThrow();
      expect(JSON.parse(squadRow.depart_ids)).toEqual([depart.SQUAD]);
    });
  });
}
