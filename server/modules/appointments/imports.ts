import type { FastifyInstance } from 'fastify';
import { carImports, IMPORT_MAX_BYTES, IMPORT_MAX_ROWS } from '../../../domain/appointment-kinds';
import { enums } from '../../../domain/enums';
import { carApplicationLabels } from '../../../domain/schemas/car-application';
import { addDays, addMonths, dateOf } from '../../../domain/visit-rules';
import { ok } from '../../core/errors';
import { route } from '../../core/route';
import {
  acceptXlsxUploads,
  buildTemplate,
  convertRow,
  defineColumns,
  LookupIndex,
  readImport,
  RowErrors,
  saveAllOrNothing,
  sendXlsx,
  type ImportLimits,
  type LookupRows,
} from '../../core/xlsx-import';
import { saveApplication } from './service';
import { EXAMPLE_ID_NUMBER, EXAMPLE_MOBILE } from '../../../domain/personal-data';

/**
 * Owner (业主, visitor_type 4) and construction (施工, visitor_type 1) vehicle
 * imports of spec 000 §2: a template per import, and an upload that checks
 * every row with the reservation form's own rules and saves all rows as
 * drafts of the caller, or none. The workbook handling is core/xlsx-import.ts.
 */

export { IMPORT_MAX_BYTES, IMPORT_MAX_ROWS };
const limits: ImportLimits = { maxBytes: IMPORT_MAX_BYTES, maxRows: IMPORT_MAX_ROWS };
/** The example row's remark; a row that still carries it is skipped, so a template filled below the example imports cleanly. */
export const EXAMPLE_REMARK = '示例行，导入时自动忽略，可删除';

type Lookup = 'vehicleType' | 'department';

// Headers default to the form's labels (carApplicationLabels).
const columns = defineColumns(
  [
    { key: 'license_plate', required: true, width: 14 },
    { key: 'license_plate_color', required: true, width: 14, table: 'plateColor', choices: '车牌颜色' },
    { key: 'vehicle_type_id', required: true, width: 18, lookup: 'vehicleType', choices: '车型' },
    { key: 'applicant_name', required: true, width: 14 },
    { key: 'visitor_idcard_type', required: true, width: 24, table: 'idcardType', choices: '证件类型' },
    { key: 'applicant_idcard', header: '证件号码', required: true, width: 22 },
    { key: 'applicant_gender', required: true, width: 8, table: 'gender', choices: '性别' },
    { key: 'applicant_phone', required: true, width: 14 },
    { key: 'visit_area', required: true, width: 14, table: 'visitArea', choices: '园区' },
    { key: 'visitor_company', required: true, width: 28 },
    { key: 'visitor_content', required: true, width: 24 },
    { key: 'visitor_begin_time', required: true, width: 14, date: true },
    { key: 'visitor_end_time', required: true, width: 14, date: true },
    { key: 'interviewee_name', required: true, width: 12 },
    { key: 'interviewee_phone', required: true, width: 14 },
    { key: 'interviewee_depart_id', required: true, width: 30, lookup: 'department', choices: '被访部门' },
    { key: 'vehicle_license_number', required: false, width: 18 },
    { key: 'engine_number', required: false, width: 18 },
    { key: 'remark', required: false, width: 30 },
  ],
  carApplicationLabels,
);

/** What the template adds to the declaration (domain carImports): the example row's span and visit reason. */
const imports = {
  proprietor: {
    ...carImports.proprietor,
    /** Longest example span that the owner rules allow comfortably. */
    exampleMonths: 6,
    content: '业主车辆日常通勤',
  },
  build: { ...carImports.build, exampleMonths: 0, content: '厂区检修施工' },
} as const;

type ImportKind = keyof typeof imports;

async function choicesOf(app: FastifyInstance): Promise<Record<Lookup, LookupRows>> {
  const { db } = app.ctx;
  const [vehicleType, department] = await Promise.all([
    db.selectFrom('vehicle_type').select(['id', 'name']).where('deleted', '=', 0).orderBy('id').execute(),
    db.selectFrom('sys_department').select(['depart_id as id', 'name']).where('deleted', '=', 0).orderBy('depart_id').execute(),
  ]);
  return { vehicleType, department };
}

async function template(app: FastifyInstance, kind: ImportKind): Promise<Buffer> {
  const def = imports[kind];
  const lookups = await choicesOf(app);
  const today = dateOf(app.ctx.time());
  const begin = addDays(today, 5);
  const end = def.exampleMonths ? addMonths(begin, def.exampleMonths) : addDays(begin, 20);
  const enterprise = lookups.department.find((d) => d.name.includes('有限公司')) ?? lookups.department[0];
  return buildTemplate({
    sheet: def.sheet,
    columns,
    lookups,
    maxRows: IMPORT_MAX_ROWS,
    example: {
      license_plate: '粤L12345',
      license_plate_color: '蓝色',
      vehicle_type_id: lookups.vehicleType[0]?.name ?? '',
      applicant_name: '张三',
      visitor_idcard_type: '第二代居民身份证',
      applicant_idcard: EXAMPLE_ID_NUMBER,
      applicant_gender: '男',
      applicant_phone: EXAMPLE_MOBILE,
      visit_area: '化工区',
      visitor_company: '惠州示例工程有限公司',
      visitor_content: def.content,
      visitor_begin_time: begin,
      visitor_end_time: end,
      interviewee_name: '李强',
      interviewee_phone: EXAMPLE_MOBILE,
      interviewee_depart_id: enterprise?.name ?? '',
      vehicle_license_number: '',
      engine_number: '',
      remark: EXAMPLE_REMARK,
    },
    notes: [
      `1. 每行一辆车，导入后为您名下的草稿（申请类型：${enums.carVisitorType.find((o) => o.value === def.visitorType)?.label}），确认后再逐条提交审核。`,
      '2. 带 * 的列必填；车牌颜色、证件类型、性别、园区、车型、被访部门请填写左侧列出的值。',
      '3. 来访时间填写日期，格式 YYYY-MM-DD（如 2026-06-01），开始时间须晚于后天。',
      '4. 所有行按预约表单的规则校验，任何一行有错误时整份文件都不会导入，请按提示修改后重新上传。',
      `5. 第2行为示例（备注为“${EXAMPLE_REMARK}”），导入时忽略；每次最多导入${IMPORT_MAX_ROWS}行。`,
    ],
  });
}

export async function importRoutes(app: FastifyInstance) {
  await acceptXlsxUploads(app, limits);

  for (const kind of Object.keys(imports) as ImportKind[]) {
    const def = imports[kind];

    route(app, def.calls.template, async (_req, reply) => sendXlsx(reply, def.file, await template(app, kind)));

    route(app, def.calls.upload, async (req) => {
      const rows = await readImport(req, columns, limits, (cells) => cells.remark === EXAMPLE_REMARK);
      const lookups = new LookupIndex(await choicesOf(app));
      const errors = new RowErrors(columns, carApplicationLabels);
      const auth = req.auth!;
      // Each row is saved as the form saves it; a broken one rolls every row back.
      const ids = await saveAllOrNothing(app.ctx.db, errors, async (trx) => {
        const saved: number[] = [];
        for (const r of rows) {
          const { values, errors: cellErrors } = convertRow(r, columns, lookups);
          errors.add(...cellErrors);
          try {
            saved.push(await saveApplication(trx, app.ctx, auth, 'car', { visitor_type: def.visitorType, ...values }));
          } catch (err) {
            errors.addFailure(r.row, err);
          }
        }
        return saved;
      });
      return ok({ ids, count: ids.length }, `导入成功，共${ids.length}条`);
    });
  }
}
