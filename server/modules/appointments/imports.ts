import multipart from '@fastify/multipart';
import ExcelJS from 'exceljs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ErrorCode } from '../../../domain/errors';
import { enums, type EnumName } from '../../../domain/enums';
import { carApplicationLabels } from '../../../domain/schemas/car-application';
import { addDays, addMonths, dateOf } from '../../../domain/visit-rules';
import { AppError, fail, ok } from '../../core/errors';
import type { RouteSchema, ZodTypeProvider } from '../../core/route-schema';
import { detectFileType } from '../files';
import { saveApplication } from './service';

/**
 * Owner (业主, visitor_type 4) and construction (施工, visitor_type 1) vehicle
 * imports of spec 000 §2: a template per import, and an upload that checks
 * every row with the reservation form's own rules and saves all rows as
 * drafts of the caller, or none.
 */

export const IMPORT_MAX_BYTES = 5 * 1024 * 1024;
export const IMPORT_MAX_ROWS = 500;
/** The example row's remark; a row that still carries it is skipped, so a template filled below the example imports cleanly. */
export const EXAMPLE_REMARK = '示例行，导入时自动忽略，可删除';

type Lookup = 'vehicleType' | 'department';

interface DeclaredColumn {
  key: string;
  /** Defaults to the field's label in carApplicationLabels: the import names a column as the form names the field. */
  header?: string;
  required: boolean;
  width: number;
  /** A code table whose labels the cell holds. */
  table?: EnumName;
  /** A live table whose names the cell holds. */
  lookup?: Lookup;
  /** The name of the 说明 column listing the choices. */
  choices?: string;
}

const declaredColumns: DeclaredColumn[] = [
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
  { key: 'visitor_begin_time', required: true, width: 14 },
  { key: 'visitor_end_time', required: true, width: 14 },
  { key: 'interviewee_name', required: true, width: 12 },
  { key: 'interviewee_phone', required: true, width: 14 },
  { key: 'interviewee_depart_id', required: true, width: 30, lookup: 'department', choices: '被访部门' },
  { key: 'vehicle_license_number', required: false, width: 18 },
  { key: 'engine_number', required: false, width: 18 },
  { key: 'remark', required: false, width: 30 },
];

type Column = DeclaredColumn & { header: string };
const columns: Column[] = declaredColumns.map((c) => ({ ...c, header: c.header ?? carApplicationLabels[c.key]! }));

/** Field → header text, so an error names the column the person sees. */
const headerOf = new Map(columns.map((c) => [c.key, c.header]));

const imports = {
  proprietor: {
    visitorType: 4,
    sheet: '业主车辆',
    file: '业主车辆导入模板.xlsx',
    templatePath: '/carApplications/template/getProprietor',
    importPath: '/carApplications/import/proprietor',
    permission: 'carApply:proprietorImport',
    operation: '业主车辆导入',
    /** Longest example span that the owner rules allow comfortably. */
    exampleMonths: 6,
    content: '业主车辆日常通勤',
  },
  build: {
    visitorType: 1,
    sheet: '施工车辆',
    file: '施工车辆导入模板.xlsx',
    templatePath: '/carApplications/template/getBuild',
    importPath: '/carApplications/import/build',
    permission: 'carApply:buildImport',
    operation: '施工车辆导入',
    exampleMonths: 0,
    content: '厂区检修施工',
  },
} as const;

type ImportKind = keyof typeof imports;

const XLSX_MIME = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

async function choicesOf(app: FastifyInstance): Promise<Record<Lookup, Array<{ id: number; name: string }>>> {
  const { db } = app.ctx;
  const [vehicleType, department] = await Promise.all([
    db.selectFrom('vehicle_type').select(['id', 'name']).where('deleted', '=', 0).orderBy('id').execute(),
    db.selectFrom('sys_department').select(['depart_id as id', 'name']).where('deleted', '=', 0).orderBy('depart_id').execute(),
  ]);
  return { vehicleType, department };
}

async function buildTemplate(app: FastifyInstance, kind: ImportKind): Promise<Buffer> {
  const def = imports[kind];
  const lookups = await choicesOf(app);
  const today = dateOf(app.ctx.time());
  const begin = addDays(today, 5);
  const end = def.exampleMonths ? addMonths(begin, def.exampleMonths) : addDays(begin, 20);
  const enterprise = lookups.department.find((d) => d.name.includes('有限公司')) ?? lookups.department[0];
  const example: Record<string, string> = {
    license_plate: '粤L12345',
    license_plate_color: '蓝色',
    vehicle_type_id: lookups.vehicleType[0]?.name ?? '',
    applicant_name: '张三',
    visitor_idcard_type: '第二代居民身份证',
    applicant_idcard: '441302199001011231',
    applicant_gender: '男',
    applicant_phone: '13800138000',
    visit_area: '化工区',
    visitor_company: '惠州示例工程有限公司',
    visitor_content: def.content,
    visitor_begin_time: begin,
    visitor_end_time: end,
    interviewee_name: '李强',
    interviewee_phone: '13800000003',
    interviewee_depart_id: enterprise?.name ?? '',
    vehicle_license_number: '',
    engine_number: '',
    remark: EXAMPLE_REMARK,
  };

  const wb = new ExcelJS.Workbook();
  wb.creator = '园区出入管理系统';
  const ws = wb.addWorksheet(def.sheet, { views: [{ state: 'frozen', ySplit: 1 }] });
  ws.columns = columns.map((c) => ({ header: c.required ? `*${c.header}` : c.header, key: c.key, width: c.width, style: { numFmt: '@' } }));
  const head = ws.getRow(1);
  head.font = { bold: true };
  head.alignment = { vertical: 'middle', horizontal: 'center' };
  head.eachCell((cell) => {
    cell.fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFE6F0FF' } };
  });
  const ex = ws.addRow(columns.map((c) => example[c.key] ?? ''));
  ex.font = { italic: true, color: { argb: 'FF888888' } };

  // 说明: one column per code table, then the notes.
  const help = wb.addWorksheet('说明');
  const lists: Array<{ title: string; values: string[] }> = [
    { title: '车牌颜色', values: enums.plateColor.map((o) => o.label) },
    { title: '证件类型', values: enums.idcardType.map((o) => o.label) },
    { title: '性别', values: enums.gender.map((o) => o.label) },
    { title: '园区', values: enums.visitArea.map((o) => o.label) },
    { title: '车型', values: lookups.vehicleType.map((v) => v.name) },
    { title: '被访部门', values: lookups.department.map((d) => d.name) },
  ];
  lists.forEach((l, i) => {
    const col = help.getColumn(i + 1);
    col.width = Math.max(12, ...l.values.map((v) => v.length * 2 + 2));
    help.getCell(1, i + 1).value = l.title;
    help.getCell(1, i + 1).font = { bold: true };
    l.values.forEach((v, j) => (help.getCell(j + 2, i + 1).value = v));
  });
  const notesCol = lists.length + 2;
  help.getColumn(notesCol).width = 70;
  const notes = [
    '填写说明',
    `1. 每行一辆车，导入后为您名下的草稿（申请类型：${enums.carVisitorType.find((o) => o.value === def.visitorType)?.label}），确认后再逐条提交审核。`,
    '2. 带 * 的列必填；车牌颜色、证件类型、性别、园区、车型、被访部门请填写左侧列出的值。',
    '3. 来访时间填写日期，格式 YYYY-MM-DD（如 2026-06-01），开始时间须晚于后天。',
    '4. 所有行按预约表单的规则校验，任何一行有错误时整份文件都不会导入，请按提示修改后重新上传。',
    `5. 第2行为示例（备注为“${EXAMPLE_REMARK}”），导入时忽略；每次最多导入${IMPORT_MAX_ROWS}行。`,
  ];
  notes.forEach((n, j) => {
    help.getCell(j + 1, notesCol).value = n;
    if (j === 0) help.getCell(j + 1, notesCol).font = { bold: true };
  });

  // Drop-down choices in the data sheet, read from 说明.
  columns.forEach((c, i) => {
    if (!c.choices) return;
    const li = lists.findIndex((l) => l.title === c.choices);
    const letter = String.fromCharCode(65 + li);
    const last = lists[li]!.values.length + 1;
    const target = ws.getColumn(i + 1).letter;
    (ws as unknown as { dataValidations: { add(range: string, v: ExcelJS.DataValidation): void } }).dataValidations.add(`${target}2:${target}${IMPORT_MAX_ROWS + 2}`, {
      type: 'list',
      allowBlank: !c.required,
      formulae: [`'说明'!$${letter}$2:$${letter}$${Math.max(2, last)}`],
      showErrorMessage: true,
      errorTitle: c.header,
      error: `请从列表中选择${c.header}`,
    });
  });

  return Buffer.from(await wb.xlsx.writeBuffer());
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A cell as the text a person typed; dates become 'YYYY-MM-DD' (with the time when it is not midnight). */
export function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) {
    // exceljs gives the sheet's wall-clock time as UTC.
    const d = `${value.getUTCFullYear()}-${pad(value.getUTCMonth() + 1)}-${pad(value.getUTCDate())}`;
    const h = value.getUTCHours(), m = value.getUTCMinutes(), s = value.getUTCSeconds();
    return h || m || s ? `${d} ${pad(h)}:${pad(m)}:${pad(s)}` : d;
  }
  if (typeof value === 'object') {
    if ('richText' in value) return value.richText.map((r) => r.text).join('').trim();
    if ('result' in value) return cellText(value.result as ExcelJS.CellValue);
    if ('text' in value) return String(value.text).trim();
    return '';
  }
  return String(value).trim();
}

/** Dates typed with / or . read like the form's dashes. */
const normaliseDate = (s: string) => s.replace(/^(\d{4})[/.](\d{1,2})[/.](\d{1,2})/, (_m, y, mo, d) => `${y}-${pad(+mo)}-${pad(+d)}`);

interface RowError {
  row: number;
  field: string;
  label: string;
  message: string;
}

const rowErrorText = (e: RowError) => (e.label ? `第${e.row}行 ${e.label}：${e.message}` : `第${e.row}行 ${e.message}`);

async function readUpload(req: FastifyRequest): Promise<Buffer> {
  if (!req.isMultipart()) fail(ErrorCode.VALIDATION, '请选择要导入的文件');
  let data: Buffer;
  let truncated = false;
  try {
    const part = await req.file({ throwFileSizeLimit: false });
    if (!part) fail(ErrorCode.VALIDATION, '请选择要导入的文件');
    if (part!.fieldname !== 'file') {
      part!.file.resume();
      fail(ErrorCode.VALIDATION, '请以 file 字段上传导入文件');
    }
    req.auditParams = { file: part!.filename };
    const chunks: Buffer[] = [];
    for await (const chunk of part!.file) chunks.push(chunk as Buffer);
    data = Buffer.concat(chunks);
    truncated = part!.file.truncated;
  } catch (err) {
    if (err instanceof AppError) throw err;
    if ((err as { statusCode?: number }).statusCode === 413) fail(ErrorCode.PAYLOAD_TOO_LARGE, '一次只能导入一个文件');
    throw new AppError(ErrorCode.VALIDATION, '上传的内容不完整，请重试');
  }
  if (truncated || data!.length > IMPORT_MAX_BYTES) fail(ErrorCode.PAYLOAD_TOO_LARGE, `导入文件不能超过${IMPORT_MAX_BYTES / 1024 / 1024}MB`);
  if (data!.length === 0) fail(ErrorCode.VALIDATION, '请选择要导入的文件');
  if (detectFileType(data!)?.ext !== 'xlsx') fail(ErrorCode.UNSUPPORTED_MEDIA, '请上传由导入模板填写的 .xlsx 文件');
  return data!;
}

export async function importRoutes(appInstance: FastifyInstance) {
  const app = appInstance.withTypeProvider<ZodTypeProvider>();
  // Scoped to this plugin: only the import routes parse multipart bodies.
  if (!app.hasContentTypeParser('multipart/form-data')) {
    await app.register(multipart, { limits: { fileSize: IMPORT_MAX_BYTES, files: 1, fields: 5, parts: 10 } });
  }

  const sendXlsx = (reply: FastifyReply, file: string, data: Buffer) =>
    reply
      .type(XLSX_MIME)
      .header('Content-Disposition', `attachment; filename="template.xlsx"; filename*=UTF-8''${encodeURIComponent(file)}`)
      .header('Cache-Control', 'no-store')
      .send(data);

  for (const kind of Object.keys(imports) as ImportKind[]) {
    const def = imports[kind];

    app.get(def.templatePath, { config: { permission: def.permission }, schema: { summary: `下载${def.sheet}导入模板（.xlsx）`, querystring: z.object({}) } }, async (_req, reply) =>
      sendXlsx(reply, def.file, await buildTemplate(appInstance, kind)),
    );

    const importSchema: RouteSchema = { summary: def.operation, multipart: { file: `按导入模板填写的 .xlsx 文件（≤${IMPORT_MAX_BYTES / 1024 / 1024}MB，≤${IMPORT_MAX_ROWS}行）` } };
    app.post(def.importPath, { config: { permission: def.permission, operation: def.operation }, schema: importSchema }, async (req) => {
      const data = await readUpload(req);
      const wb = new ExcelJS.Workbook();
      try {
        await wb.xlsx.load(data as unknown as ArrayBuffer);
      } catch {
        fail(ErrorCode.VALIDATION, '无法读取导入文件，请使用导入模板填写后上传');
      }
      const ws = wb.worksheets.find((w) => w.name !== '说明') ?? wb.worksheets[0];
      if (!ws) fail(ErrorCode.VALIDATION, '导入文件中没有数据');

      // Columns are found by their header, so a person may reorder them.
      const at = new Map<string, number>();
      ws!.getRow(1).eachCell((cell, col) => {
        const h = cellText(cell.value).replace(/^[*＊\s]+/, '').trim();
        const c = columns.find((x) => x.header === h);
        if (c && !at.has(c.key)) at.set(c.key, col);
      });
      const absent = columns.filter((c) => c.required && !at.has(c.key)).map((c) => c.header);
      if (absent.length) fail(ErrorCode.VALIDATION, `导入文件缺少列：${absent.join('、')}，请下载最新的导入模板`);

      const rows: Array<{ row: number; cells: Record<string, string> }> = [];
      ws!.eachRow({ includeEmpty: false }, (r, n) => {
        if (n === 1) return;
        const cells: Record<string, string> = {};
        for (const c of columns) cells[c.key] = at.has(c.key) ? cellText(r.getCell(at.get(c.key)!).value) : '';
        if (Object.values(cells).every((v) => v === '')) return;
        if (cells.remark === EXAMPLE_REMARK) return;
        rows.push({ row: n, cells });
      });
      if (rows.length === 0) fail(ErrorCode.VALIDATION, '导入文件中没有数据，请从第2行开始填写');
      if (rows.length > IMPORT_MAX_ROWS) fail(ErrorCode.VALIDATION, `一次最多导入${IMPORT_MAX_ROWS}条，当前${rows.length}条，请分批导入`);

      const lookups = await choicesOf(app);
      const byName = (list: Array<{ id: number; name: string }>) => {
        const m = new Map<string, number[]>();
        for (const x of list) m.set(x.name.trim(), [...(m.get(x.name.trim()) ?? []), x.id]);
        return m;
      };
      const names: Record<Lookup, Map<string, number[]>> = { vehicleType: byName(lookups.vehicleType), department: byName(lookups.department) };

      const errors: RowError[] = [];
      const ids: number[] = [];
      const auth = req.auth!;
      try {
        await app.ctx.db.transaction().execute(async (trx) => {
          for (const { row, cells } of rows) {
            const values: Record<string, unknown> = { visitor_type: def.visitorType };
            let mapped = true;
            for (const c of columns) {
              const text = cells[c.key]!;
              if (text === '') continue;
              if (c.table) {
                const hit = enums[c.table].find((o) => o.label === text || String(o.value) === text);
                if (!hit) {
                  errors.push({ row, field: c.key, label: c.header, message: `“${text}”不是可选的值，请按“说明”表填写` });
                  mapped = false;
                } else values[c.key] = hit.value;
              } else if (c.lookup) {
                const hit = names[c.lookup].get(text);
                if (!hit) {
                  errors.push({ row, field: c.key, label: c.header, message: `“${text}”不存在，请按“说明”表填写` });
                  mapped = false;
                } else if (hit.length > 1) {
                  errors.push({ row, field: c.key, label: c.header, message: `“${text}”有重名，请联系管理员` });
                  mapped = false;
                } else values[c.key] = hit[0];
              } else {
                values[c.key] = c.key === 'visitor_begin_time' || c.key === 'visitor_end_time' ? normaliseDate(text) : text;
              }
            }
            try {
              const id = await saveApplication(trx, app.ctx, auth, 'car', values);
              ids.push(id);
            } catch (err) {
              if (!(err instanceof AppError) || err.status >= 500) throw err;
              const list = (err.data as { errors?: Array<{ field?: string; label?: string; message: string }> } | null)?.errors;
              if (list?.length) {
                for (const e of list) {
                  const field = e.field ?? '';
                  // A code the sheet could not map is reported once, by the mapping message, not again as "required".
                  if (!mapped && errors.some((x) => x.row === row && x.field === field)) continue;
                  errors.push({ row, field, label: headerOf.get(field) ?? carApplicationLabels[field] ?? e.label ?? field, message: e.message });
                }
              } else errors.push({ row, field: '', label: '', message: err.message });
            }
          }
          // All or nothing: any broken row rolls back every saved one.
          if (errors.length) throw new AppError(ErrorCode.VALIDATION, `导入失败，共${errors.length}处错误`);
        });
      } catch (err) {
        if (err instanceof AppError && errors.length) {
          const sorted = [...errors].sort((a, b) => a.row - b.row);
          throw new AppError(ErrorCode.VALIDATION, `导入失败，共${errors.length}处错误`, { errors: sorted.map(rowErrorText), details: sorted });
        }
        throw err;
      }
      return ok({ ids, count: ids.length }, `导入成功，共${ids.length}条`);
    });
  }
}
