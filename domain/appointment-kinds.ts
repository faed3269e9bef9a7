/**
 * The two appointment kinds, declared once (issue 25): what differs between a
 * vehicle and a person appointment on the wire — the path prefix, the key
 * column, the visit-time fields, the permission codes, the noun, the label
 * catalogue and the bodies. The server (modules/appointments/kinds.ts adds
 * its table, export columns and SQL filters) and the client's screens read
 * this; neither writes its own copy.
 */
import { z } from 'zod';
import { appointmentCodes, ProcessType, queues, type AppointmentKind, type QueueName } from './appointments';
import { visitRulesOf } from './visit-rules';
import { binary, col, defineCall, defineUpload, none, pageOf } from './contract';
import { issuedPass } from './pass';
import { queueCalls, taskRowOf, urgeCall } from './schemas/approval-task';
import { processInfoAnswer } from './schemas/process-info';
import {
  amendBody as carAmendBody,
  carApplicationDetail,
  carApplicationRow,
  idBody,
  revokeBody,
  canAmendBody as carCanAmendBody,
  carApplicationEdit,
  carApplicationLabels,
  carApplicationListQuery,
  carApplicationSave,
  carApprovalLabels,
  carLabelLabels,
  carTaskQuery,
  idListField,
  labelBody,
  delayBody as carDelayBody,
  returnBody as carReturnBody,
  returnSubmitBody as carReturnSubmitBody,
} from './schemas/car-application';
import { idField, labelled } from './schemas/common';
import {
  amendBody as personAmendBody,
  canAmendBody as personCanAmendBody,
  delayBody as personDelayBody,
  personApplicationEdit,
  personApplicationLabels,
  personApplicationListQuery,
  personApplicationRow,
  personApplicationSave,
  personTaskQuery,
  returnBody as personReturnBody,
  returnSubmitBody as personReturnSubmitBody,
} from './schemas/person-application';
import { withFullExportReason } from './schemas/pii';

export const appointmentKinds = {
  car: {
    kind: 'car',
    /** '车辆预约': titles, messages, operation names. */
    noun: '车辆预约',
    /** Route prefix under /api (and under /api/v2 for save, edit and process info). */
    prefix: '/carApplications',
    /** Application numbers: CA + date + id. */
    numberPrefix: 'CA',
    /** The key of the row inside a task wrapper (spec 000 §3). */
    wrapper: 'carApplication',
    /** Key column of the row, also the id field of the edit body. */
    key: 'car_application_id',
    /** Id field of the return and returnSubmit bodies (spec 000 §7). */
    returnKey: 'carApplicationId',
    /** The field that names who or what visits, beside the application number in titles: the plate, the visitor. */
    who: 'license_plate',
    /** What a modal shows under it: who applied and from where. */
    whoDetails: ['applicant_name', 'visitor_company'],
    /** How screens and the scan result name things of this kind. */
    words: {
      whoLabel: '申请人',
      subject: '车辆',
      blackListed: '此车辆在黑名单中，禁止入园',
      noApplication: '园区没有这辆车的已提交预约',
      missing: '未能获取车辆预约信息',
    },
    /** Vehicles can be flagged (spec 000 §3 "flag request"); persons cannot. */
    flaggable: true,
    /**
     * Spec 000 §4: what a queue row's review waits for. Vehicle queues gate on the task being pending; person
     * queues also on the application being under review.
     */
    reviewNeedsRowInReview: false,
    /** The visit rules (span, earliest start, type hint): a vehicle's also read its model. */
    visitRules: visitRulesOf.car,
    /** The approval processes (enums.processType) an application of this kind goes through. */
    processTypes: [ProcessType.CAR, ProcessType.HEAVY_DUMP, ProcessType.BUS, ProcessType.CHEMICALS],
    /** Visit-time fields (delay body, amend body, form): visitor_… for cars, visit_… for persons. */
    begin: 'visitor_begin_time',
    end: 'visitor_end_time',
    codes: appointmentCodes.car,
    labels: carApplicationLabels,
    /** The same labels with remark read as the approval opinion (return). */
    approvalLabels: carApprovalLabels,
    /** A row as lists and queues answer it, and the detail (with the drivers and passengers). */
    row: carApplicationRow,
    detail: carApplicationDetail,
    schemas: {
      save: carApplicationSave,
      edit: carApplicationEdit,
      listQuery: carApplicationListQuery,
      taskQuery: carTaskQuery,
      delay: carDelayBody,
      return: carReturnBody,
      returnSubmit: carReturnSubmitBody,
      canAmend: carCanAmendBody,
      amend: carAmendBody,
    },
  },
  person: {
    kind: 'person',
    noun: '人员预约',
    prefix: '/personApplications',
    numberPrefix: 'PA',
    wrapper: 'personApplication',
    key: 'person_application_id',
    returnKey: 'personApplicationId',
    who: 'visitor_name',
    whoDetails: ['visitor_company', 'visitor_phone'],
    words: {
      whoLabel: '访客',
      subject: '人员',
      blackListed: '此人在黑名单中，禁止入园',
      noApplication: '园区没有此人的已提交预约',
      missing: '未能获取人员预约信息',
    },
    flaggable: false,
    reviewNeedsRowInReview: true,
    visitRules: visitRulesOf.person,
    processTypes: [ProcessType.PERSON],
    begin: 'visit_begin_time',
    end: 'visit_end_time',
    codes: appointmentCodes.person,
    labels: personApplicationLabels,
    approvalLabels: personApplicationLabels,
    row: personApplicationRow,
    detail: personApplicationRow,
    schemas: {
      save: personApplicationSave,
      edit: personApplicationEdit,
      listQuery: personApplicationListQuery,
      taskQuery: personTaskQuery,
      delay: personDelayBody,
      return: personReturnBody,
      returnSubmit: personReturnSubmitBody,
      canAmend: personCanAmendBody,
      amend: personAmendBody,
    },
  },
} as const;

/** One kind's declaration, its literal types kept (key, begin, end …). */
export type AppointmentKindDecl<K extends AppointmentKind = AppointmentKind> = (typeof appointmentKinds)[K];

export const appointmentKindList: AppointmentKindDecl[] = [appointmentKinds.car, appointmentKinds.person];

/** The row's id whatever its kind. */
export function rowId(kind: AppointmentKind, row: object): number {
  return Number((row as Record<string, unknown>)[appointmentKinds[kind].key]);
}

export const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The all-history export's title, file and sheet name: '车辆预约总记录'. */
export const exportTitleOf = (kind: AppointmentKind) => `${appointmentKinds[kind].noun}总记录`;

/**
 * The edit route's body: the save form with the application's id as `<key>` (or `id`). Only the id is checked
 * here, and comes out as `<key>`; the form passes through untouched and is parsed by the server's save after the
 * state check, so that a forbidden edit answers 409 whatever the form holds.
 */
export function editBodyOf(kind: AppointmentKind) {
  const k = appointmentKinds[kind];
  const fields = (b: unknown) => (b !== null && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>) : {});
  return labelled(
    z
      .preprocess(
        (b) => {
          const o = fields(b);
          return { ...o, [k.key]: o[k.key] ?? o.id };
        },
        // Open on purpose: the form's fields pass through to the save, which parses them after the state check.
        z.looseObject({ [k.key]: idField(k.labels[k.key] ?? '申请ID') }),
      )
      .describe(`${k.noun}的表单（同新增），另带 ${k.key}（或 id）指明要编辑的申请`),
    k.labels,
  );
}

const taskIdQuery = labelled(z.object({ id: idField('审批任务ID') }), { id: '审批任务ID' });
const savedId = z.object({ id: col.id });

/** Every call of one kind (spec 000 §7), paths from its prefix; the server registers them in a loop, screens call them. */
function callsOf<R extends z.ZodType, D extends z.ZodType>(kind: AppointmentKind, row: R, detail: D) {
  const k = appointmentKinds[kind];
  const { prefix: p, noun, codes: c, schemas } = k;
  const list = (path: string, permission: (typeof c)['list'] | (typeof c)['historyList'] | (typeof c)['allList'], summary: string) =>
    defineCall({ method: 'POST', path, permission, summary, input: schemas.listQuery, answer: pageOf(row) });
  const read = (path: string, permission: (typeof c)['list'] | (typeof c)['historyList'] | (typeof c)['allList'], summary: string) =>
    defineCall({ method: 'GET', path, permission, summary, input: idBody, answer: detail });
  const save = (base: string) =>
    defineCall({ method: 'POST', path: `${base}/save`, permission: c.add, summary: `新增${noun}（草稿）`, operation: `新增${noun}`, input: schemas.save, answer: savedId });
  const edit = (base: string) => defineCall({ method: 'POST', path: `${base}/edit`, permission: c.edit, summary: `编辑${noun}`, operation: `编辑${noun}`, input: editBodyOf(kind), answer: savedId });
  const revoke = (path: string, permission: string, where: string) =>
    defineCall({ method: 'POST', path, permission: permission as typeof c.revoke, summary: `撤销${noun}${where}`, operation: `撤销${noun}${where}`, input: revokeBody, answer: none });
  return {
    list: list(`${p}/list`, c.list, `我的${noun}（分页）`),
    historyList: list(`${p}/history/list`, c.historyList, `${noun}记录：来访本部门及下级部门的（分页）`),
    allList: list(`${p}/all/history/list`, c.allList, `${noun}总记录（分页）`),
    detail: read(`${p}/detail`, c.list, `${noun}详情`),
    historyDetail: read(`${p}/history/detail`, c.historyList, `${noun}详情（预约记录）`),
    allDetail: read(`${p}/all/history/detail`, c.allList, `${noun}详情（预约总记录）`),
    // Fetch for edit: only the applicant edits.
    get: defineCall({ method: 'POST', path: `${p}/get`, permission: c.edit, summary: `${noun}（编辑用）`, input: idBody, answer: detail }),
    save: save(p),
    edit: edit(p),
    /** The v2 spellings the forms use (spec 000 §7). */
    v2Save: save(`/v2${p}`),
    v2Edit: edit(`/v2${p}`),
    delete: defineCall({ method: 'POST', path: `${p}/delete`, permission: c.delete, summary: `删除${noun}`, operation: `删除${noun}`, input: idBody, answer: none }),
    push: defineCall({ method: 'POST', path: `${p}/push`, permission: c.commit, summary: `提交${noun}审核`, operation: `提交${noun}`, input: idBody, answer: none }),
    revoke: revoke(`${p}/revoke`, c.revoke, ''),
    urge: urgeCall(`${p}/urge`, c.revoke, noun),
    historyRevoke: revoke(`${p}/revokeForHis`, c.historyRevoke, '（预约记录）'),
    allRevoke: revoke(`${p}/revokeForAllHis`, c.allRevoke, '（预约总记录）'),
    process: defineCall({ method: 'POST', path: `/v2${p}/check/process/info`, permission: 'role', summary: `${noun}的审批流程`, input: idBody, answer: processInfoAnswer }),
    delay: defineCall({ method: 'POST', path: `${p}/delay`, permission: c.edit, summary: `${noun}延期申请`, operation: `${noun}延期申请`, input: schemas.delay, answer: none }),
    return: defineCall({ method: 'POST', path: `${p}/return`, permission: c.allRevoke, summary: `驳回${noun}（预约总记录）`, operation: `驳回${noun}`, input: schemas.return, answer: none }),
    returnSubmit: defineCall({
      method: 'POST',
      path: `${p}/returnSubmit`,
      permission: c.allRevoke,
      summary: `继续审批${noun}（预约总记录）`,
      operation: `继续审批${noun}`,
      input: schemas.returnSubmit,
      answer: none,
    }),
    export: defineCall({
      method: 'POST',
      path: `${p}/all/history/export`,
      permission: c.allExport,
      summary: `导出${exportTitleOf(kind)}（.xlsx，筛选同总记录列表）`,
      operation: `导出${exportTitleOf(kind)}`,
      input: withFullExportReason(schemas.listQuery),
      answer: binary(XLSX),
    }),
    // 'role' at the guard: which code applies depends on the queue the task is in, checked by the route.
    taskDetail: defineCall({
      method: 'GET',
      path: `${p}/task/detail`,
      permission: 'role',
      summary: `${noun}审批任务详情`,
      input: taskIdQuery,
      answer: taskRowOf(k.wrapper, detail).extend({ processInfo: processInfoAnswer }),
    }),
    canAmend: defineCall({ method: 'POST', path: `${p}/canAmend`, permission: 'role', summary: `能否修改${noun}的来访时间`, input: schemas.canAmend, answer: z.boolean() }),
    // The guard asks for a role only: the server's row rule decides, and answers 404 for rows the caller may not read.
    pass: defineCall({ method: 'GET', path: `${p}/pass`, permission: 'role', summary: `${noun}通行码`, input: idBody, answer: issuedPass }),
    amend: defineCall({ method: 'POST', path: `${p}/amend`, permission: 'role', summary: `审批中修改${noun}的来访时间`, operation: '修改来访时间', input: schemas.amend, answer: none }),
  };
}

export const kindCalls = {
  car: callsOf('car', appointmentKinds.car.row, appointmentKinds.car.detail),
  person: callsOf('person', appointmentKinds.person.row, appointmentKinds.person.detail),
};
export type KindCalls<K extends AppointmentKind = AppointmentKind> = (typeof kindCalls)[K];

const queueCallsOf = (name: QueueName) => {
  const q = queues[name];
  const k = appointmentKinds[q.kind];
  return queueCalls({ title: q.title, list: q.list, check: q.check, paths: q.paths, query: k.schemas.taskQuery as z.ZodType, wrapper: k.wrapper, row: k.row as z.ZodType });
};

/** The seven approval queues' page and check calls (spec 000 §2), from domain `queues`. */
export const appointmentQueueCalls = Object.fromEntries((Object.keys(queues) as QueueName[]).map((name) => [name, queueCallsOf(name)])) as Record<QueueName, ReturnType<typeof queueCallsOf>>;

/** Which marks to read: the vehicles of these applications, or a plate. */
export const queryRemarkBody = labelled(
  z
    .object({
      car_application_ids: z.preprocess((v) => (v === '' || v === null ? undefined : v), idListField('请先选择要查询的车辆').optional()),
      license_plate: z.preprocess((v) => (typeof v === 'string' ? v.trim().toUpperCase() || undefined : (v ?? undefined)), z.string().max(16, { error: '车牌号格式不正确' }).optional()),
    })
    .refine((v) => (v.car_application_ids?.length ?? 0) > 0 || !!v.license_plate, { error: '请先选择要查询的车辆', path: ['car_application_ids'] }),
  { ...carLabelLabels, car_application_ids: '车辆' },
);

/** A live flag of a vehicle as queryRemark answers it, with the model's and the flagger's names. */
export const vehicleFlagRow = z.object({
  id: col.id,
  car_application_id: col.id.nullable(),
  license_plate: col.text,
  vehicle_type_id: col.id.nullable(),
  vehicle_type_name: col.text.nullable(),
  visitor_company: col.text,
  remark: col.text,
  color_id: col.int,
  label_type_id: col.int,
  alarm_id: col.int,
  photo: col.text,
  create_user_id: col.id.nullable(),
  create_user_name: col.text.nullable(),
  create_time: col.time,
});

/** Vehicle flags from the all-history list (spec 000 §3 "flag request"). */
export const labelApi = {
  label: defineCall({ method: 'POST', path: '/label/vehicle/label', permission: appointmentCodes.car.label, summary: '标记车辆', operation: '标记车辆', input: labelBody, answer: none }),
  // Reading why a row is red belongs to viewing the all-history list, so its list code suffices.
  queryRemark: defineCall({
    method: 'POST',
    path: '/label/vehicle/queryRemark',
    permission: appointmentCodes.car.allList,
    summary: '车辆的标记记录（按预约或车牌号）',
    input: queryRemarkBody,
    answer: z.array(vehicleFlagRow),
  }),
};

/** The vehicle imports' limits (spec 000 §2): one file, its rows. */
export const IMPORT_MAX_BYTES = 5 * 1024 * 1024;
export const IMPORT_MAX_ROWS = 500;

const importCalls = (i: { sheet: string; operation: string; template: string; upload: string; permission: 'carApply:proprietorImport' | 'carApply:buildImport' }) => ({
  template: defineCall({ method: 'GET', path: i.template, permission: i.permission, summary: `下载${i.sheet}导入模板（.xlsx）`, input: z.object({}), answer: binary(XLSX) }),
  upload: defineUpload({
    method: 'POST',
    path: i.upload,
    permission: i.permission,
    summary: i.operation,
    operation: i.operation,
    multipart: { file: `按导入模板填写的 .xlsx 文件（≤${IMPORT_MAX_BYTES / 1024 / 1024}MB，≤${IMPORT_MAX_ROWS}行；每人同时一个导入）` },
    // The drafts saved, every row or none.
    answer: z.object({ ids: z.array(col.id), count: col.int }),
  }),
});

/**
 * Owner (业主, visitor_type 4) and construction (施工, visitor_type 1) vehicle
 * imports: a template and an upload each. The server adds the example row and
 * its notes (modules/appointments/imports.ts).
 */
export const carImports = {
  proprietor: {
    visitorType: 4,
    sheet: '业主车辆',
    label: '业主车辆导入',
    file: '业主车辆导入模板.xlsx',
    permission: 'carApply:proprietorImport',
    calls: importCalls({
      sheet: '业主车辆',
      operation: '业主车辆导入',
      template: '/carApplications/template/getProprietor',
      upload: '/carApplications/import/proprietor',
      permission: 'carApply:proprietorImport',
    }),
  },
  build: {
    visitorType: 1,
    sheet: '施工车辆',
    label: '施工车辆导入',
    file: '施工车辆导入模板.xlsx',
    permission: 'carApply:buildImport',
    calls: importCalls({ sheet: '施工车辆', operation: '施工车辆导入', template: '/carApplications/template/getBuild', upload: '/carApplications/import/build', permission: 'carApply:buildImport' }),
  },
} as const;
