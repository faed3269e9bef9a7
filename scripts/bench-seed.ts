/**
 * Bulk-loads appointments, their process instances and tasks straight into a
 * migrated, demo-seeded SQLite file for `npm run bench`: the API would need
 * hours to file a million applications one by one. The shapes follow what
 * the engine writes, so every list and queue reads realistic rows.
 */
import type Database from 'better-sqlite3';

export interface SeededIds {
  contact: number;
  reviewer: number;
  squad: number;
  cnoocShell: number;
  /** One pending car_task of the reviewer per entry, for the decision benchmark. */
  reviewerCarTasks: number[];
}

const FIXED_TIME = '2026-10-01 08:00:00';
const dayBefore = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);
const plates = '粤京沪浙苏鲁川湘鄂闽';
const companies = ['惠州宇新物流有限公司', '大亚湾顺达运输有限公司', '中建三局第一建设工程有限责任公司', '广东华信设备维保有限公司', '惠州港荃湾码头服务有限公司', '中石化广州工程有限公司'];
const names = ['张伟', '王磊', '刘洋', '陈杰', '杨帆', '黄勇', '赵敏', '周强', '吴军', '徐涛'];

/**
 * `days`: spread the filing over that many park days up to `endDay` (the
 * reports' bench reads a year); without it every row is filed at one time.
 */
export function seedAppointments(raw: Database.Database, total: number, spread?: { endDay: string; days: number }): SeededIds {
  const one = <T>(sql: string, ...args: unknown[]) => raw.prepare(sql).get(...args) as T;
  const userId = (account: string) => one<{ user_id: number }>('select user_id from sys_user where account = ?', account).user_id;
  const departId = (code: string) => one<{ depart_id: number }>('select depart_id from sys_department where code = ?', code).depart_id;
  const ids: SeededIds = { contact: userId('contact'), reviewer: userId('reviewer'), squad: userId('squad'), cnoocShell: departId('CNOOC_SHELL'), reviewerCarTasks: [] };
  const enterprises = ['CNOOC_SHELL', 'YUXIN', 'HZ_PORT', 'QUANWAN', 'HUADE'].map(departId);
  const vehicleTypes = (raw.prepare('select id from vehicle_type where deleted = 0').all() as Array<{ id: number }>).map((v) => v.id);
  const def = (type: number) => one<{ process_id: number; process_definition_id: number }>('select process_id, process_definition_id from process where type = ? and deleted = 0', type);
  const defNodes = (definitionId: number) =>
    raw.prepare('select definition_node_id, sort from process_definition_node where process_definition_id = ? order by sort').all(definitionId) as Array<{ definition_node_id: number; sort: number }>;
  const carProcess = def(2);
  const personProcess = def(1);
  const carNodes = defNodes(carProcess.process_definition_id);
  const personNodes = defNodes(personProcess.process_definition_id);

  const insertCar = raw.prepare(`insert into car_application (application_number, state, process_type, process_instance_id, license_plate, license_plate_color, vehicle_type_id,
    applicant_name, applicant_idcard, applicant_gender, applicant_phone, visitor_idcard_type, visit_area, visitor_type, visitor_company, visitor_content,
    visitor_begin_time, visitor_end_time, interviewee_name, interviewee_phone, interviewee_depart_id, label_status, create_user_id, create_time, update_time)
    values (?, ?, 2, null, ?, 2, ?, ?, '440102199001011234', 0, ?, 1, ?, ?, ?, '送货', '2026-12-01 00:00:00', '2026-12-20 23:59:59', '李强', '13800000003', ?, ?, ?, ?, ?)`);
  const insertPerson = raw.prepare(`insert into person_application (application_number, state, process_instance_id, visitor_name, visitor_gender, visitor_phone, visitor_company,
    visitor_type, visitor_idcard_type, visitor_idcard, visit_content, visit_begin_time, visit_end_time, visit_area, interviewee_name, interviewee_phone, interviewee_depart_id,
    create_user_id, create_time, update_time)
    values (?, ?, null, ?, 0, ?, ?, 2, 1, ?, '设备检修', '2026-12-01 00:00:00', '2026-12-20 23:59:59', ?, '李强', '13800000003', ?, ?, ?, ?)`);
  const insertInstance =
    raw.prepare(`insert into process_instance (process_id, process_definition_id, process_type, ref_id, state, current_sort, applicant_user_id, interviewee_depart_id, create_time, update_time)
    values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const insertTask =
    raw.prepare(`insert into process_task (process_instance_id, definition_node_id, sort, process_type, queue, ref_id, user_id, depart_id, state, result, remark, auto, submit_time, approve_time, due_at)
    values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, null)`);
  const setCarInstance = raw.prepare('update car_application set process_instance_id = ? where car_application_id = ?');
  const setPersonInstance = raw.prepare('update person_application set process_instance_id = ? where person_application_id = ?');

  const cars = Math.round(total * 0.7);
  // States cycle draft, review, review, approved, approved, approved, rejected, revoked.
  const stateOf = (i: number) => [0, 1, 1, 2, 2, 2, 3, 4][i % 8]!;
  const squadDepart = departId('SQUAD');
  const instanceStateOf = { 1: 0, 2: 1, 3: 2, 4: 3 } as Record<number, number>;

  const file = (kind: 'car' | 'person', i: number) => {
    const TIME = spread ? `${dayBefore(spread.endDay, i % spread.days)} 08:00:00` : FIXED_TIME;
    const state = stateOf(i);
    const depart = enterprises[i % enterprises.length]!;
    const owner = i % 20 === 0 ? ids.contact : 1000 + (i % 5000);
    const num = `${kind === 'car' ? 'CA' : 'PA'}20261001${String(i).padStart(8, '0')}`;
    const refId =
      kind === 'car'
        ? Number(
            insertCar.run(
              num,
              state,
              `${plates[i % plates.length]}L${String(i % 100000).padStart(5, '0')}`,
              vehicleTypes[i % vehicleTypes.length],
              names[i % names.length],
              `139${String(i).padStart(8, '0')}`,
              1 + (i % 3),
              1 + (i % 4),
              companies[i % companies.length],
              depart,
              i % 97 === 0 ? 1 : 0,
              owner,
              TIME,
              TIME,
            ).lastInsertRowid,
          )
        : Number(
            insertPerson.run(
              num,
              state,
              names[i % names.length],
              `138${String(i).padStart(8, '0')}`,
              companies[i % companies.length],
              `44010219900101${String(i % 10000).padStart(4, '0')}`,
              1 + (i % 3),
              depart,
              owner,
              TIME,
              TIME,
            ).lastInsertRowid,
          );
    if (state === 0) return;
    const process = kind === 'car' ? carProcess : personProcess;
    const nodes = kind === 'car' ? carNodes : personNodes;
    const type = kind === 'car' ? 2 : 1;
    const atFinal = state === 1 && i % 16 >= 8;
    const sort = state === 2 || atFinal ? nodes.at(-1)!.sort : nodes[0]!.sort;
    const instanceId = Number(insertInstance.run(process.process_id, process.process_definition_id, type, refId, instanceStateOf[state], sort, owner, depart, TIME, TIME).lastInsertRowid);
    (kind === 'car' ? setCarInstance : setPersonInstance).run(instanceId, refId);
    const reviewerOf = depart === ids.cnoocShell ? ids.reviewer : 100 + (i % 50);
    const queues = kind === 'car' ? ['car_task', 'car_final'] : ['person_task', 'person_final'];
    const done = (node: number, user: number, userDepart: number, result: number, remark: string) =>
      insertTask.run(instanceId, nodes[node]!.definition_node_id, nodes[node]!.sort, type, queues[node === 0 ? 0 : 1], refId, user, userDepart, 1, result, remark, TIME, TIME);
    if (state === 1) {
      if (atFinal) done(0, reviewerOf, depart, 1, '同意');
      const node = atFinal ? 1 : 0;
      const user = atFinal ? ids.squad : reviewerOf;
      const taskId = Number(
        insertTask.run(instanceId, nodes[node]!.definition_node_id, nodes[node]!.sort, type, queues[node], refId, user, atFinal ? squadDepart : depart, 0, null, '', TIME, null).lastInsertRowid,
      );
      if (kind === 'car' && !atFinal && user === ids.reviewer) ids.reviewerCarTasks.push(taskId);
    } else if (state === 2) {
      done(0, reviewerOf, depart, 1, '同意');
      done(1, ids.squad, squadDepart, 1, '同意');
    } else if (state === 3) {
      done(0, reviewerOf, depart, 2, '资料不全');
    }
  };

  raw.transaction(() => {
    for (let i = 0; i < cars; i += 1) file('car', i);
    for (let i = 0; i < total - cars; i += 1) file('person', i);
  })();
  copyInstanceChains(raw);
  settleInstances(raw);
  return ids;
}

/**
 * Gives every instance that has none its own copy of its definition's chain,
 * as the engine does at submit (server/workflow/chain.ts) and migration 015
 * did for instances filed before it: the engine and the queues read only the copy.
 */
export function copyInstanceChains(raw: Database.Database): void {
  raw.exec(`insert into process_instance_node (process_instance_id, sort, definition_node_id, process_node_id, name, role_id, depart_ids, countersign, company_check, overtime_auto_check, overtime_hours)
    select i.process_instance_id, d.sort, d.definition_node_id, n.process_node_id, d.name, n.role_id,
      case when n.company_check = 1 then '[]' else coalesce((select json_group_array(depart_id) from (select depart_id from process_node_depart where process_node_id = n.process_node_id order by depart_id)), '[]') end,
      n.countersign, n.company_check, n.overtime_auto_check, n.overtime_hours
    from process_instance i
    join process_definition_node d on d.process_definition_id = i.process_definition_id
    join process_node n on n.process_node_id = d.process_node_id
    where not exists (select 1 from process_instance_node c where c.process_instance_id = i.process_instance_id)`);
}

/**
 * What the engine keeps on each instance beside current_sort (migration 023):
 * its park, where it stands (1 a 企业 node, 2 the last node) and whether a
 * 企业 node passed it, from its chain copy, so that the reports' rollups
 * (kept by triggers through these updates) read as they would after real use.
 */
function settleInstances(raw: Database.Database): void {
  raw.exec(`update process_instance set visit_area = case
      when process_type = 1 then (select a.visit_area from person_application a where a.person_application_id = process_instance.ref_id)
      else (select a.visit_area from car_application a where a.car_application_id = process_instance.ref_id) end,
    stage = case
      when not exists (select 1 from process_instance_node n where n.process_instance_id = process_instance.process_instance_id and n.sort > process_instance.current_sort) then 2
      when exists (select 1 from process_instance_node n where n.process_instance_id = process_instance.process_instance_id and n.sort = process_instance.current_sort and n.company_check = 1) then 1
      else 0 end,
    company_passed = case when exists (select 1 from process_instance_node n where n.process_instance_id = process_instance.process_instance_id and n.company_check = 1
      and (n.sort < process_instance.current_sort or process_instance.state = 1)) then 1 else 0 end`);
}
