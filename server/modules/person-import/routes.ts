import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import yazl from 'yazl';
import { z } from 'zod';
import { ErrorCode } from '../../../domain/errors';
import { idField, labelled } from '../../../domain/schemas/common';
import { personApplicationLabels } from '../../../domain/schemas/person-application';
import {
  IMPORT_STATE_MESSAGE,
  IMPORT_ZIP_LIMITS,
  ImportStatus,
  importTaskEditable,
  NOT_A_ZIP,
  personImportApi,
  personImportLabels,
  taskName,
  TEMPLATE_FILE,
  type ImportTaskRow,
} from '../../../domain/schemas/person-import';
import { addDays, dateOf } from '../../../domain/visit-rules';
import type { AuthContext } from '../../core/context';
import { AppError, fail, notFound, ok } from '../../core/errors';
import { containsText, pageOf } from '../../core/paging';
import { route } from '../../core/route';
import { afterCommit } from '../../core/transactions';
import { parse } from '../../core/validate';
import { contentDisposition, xlsxExports } from '../../core/xlsx-export';
import { buildTemplate } from '../../core/xlsx-import';
import { importGate } from '../../core/xlsx-off-thread';
import { EXAMPLE_CONTENT, personColumns } from './columns';
import { dropZip, importRunner, importTmpDir, keepZip, TASK_TABLE } from './job';
import { scanZip, ZipRefused } from './zip';
import { EXAMPLE_ID_NUMBER, EXAMPLE_MOBILE } from '../../../domain/personal-data';

/**
 * 人员批量导入 (spec 001 §2, §4, §7): the 7 calls of the spec plus the results
 * file. A user sees and touches only the tasks they created; edit, start and
 * delete only in status 0 or 3 (409 otherwise).
 */

const MB = 1024 * 1024;
type ResultRow = { id: number; row_no: number; name: string; idcard: string; status: number; application_number: string | null; error: string };
const saveFields = labelled(z.object({ name: taskName, id: idField(personImportLabels.id).optional() }), personImportLabels);

/** One task of the caller's, or 404: another user's task reads as absent. */
async function ownTask(app: FastifyInstance, auth: AuthContext, id: number) {
  const task = await app.ctx.db.selectFrom(TASK_TABLE).selectAll().where('id', '=', id).where('create_user_id', '=', auth.userId).executeTakeFirst();
  return task ?? notFound('导入任务');
}

const refuseState = (status: number) => fail(ErrorCode.STATE_CONFLICT, status === ImportStatus.RUNNING ? '该任务正在导入中，请等待导入结束' : IMPORT_STATE_MESSAGE);

interface ReceivedZip {
  fields: Record<string, string>;
  file: { path: string; name: string; size: number } | null;
}

/**
 * The multipart body of a save: the fields, and the `zipFile` part streamed
 * to a temporary file (never held in memory) and cut off past the size limit.
 */
async function receiveZip(req: FastifyRequest, tmpDir: string): Promise<ReceivedZip> {
  if (!req.isMultipart()) fail(ErrorCode.VALIDATION, NOT_A_ZIP);
  const fields: Record<string, string> = {};
  let file: ReceivedZip['file'] = null;
  const partial: string[] = [];
  try {
    for await (const part of req.parts({ throwFileSizeLimit: false } as Parameters<typeof req.parts>[0])) {
      if (part.type === 'field') {
        fields[part.fieldname] = typeof part.value === 'string' ? part.value : String(part.value ?? '');
        continue;
      }
      if (part.fieldname !== 'zipFile') {
        part.file.resume();
        fail(ErrorCode.VALIDATION, '请以 zipFile 字段上传zip文件');
      }
      const target = path.join(tmpDir, `${randomUUID()}.zip.tmp`);
      partial.push(target);
      await pipeline(part.file, fs.createWriteStream(target, { flags: 'wx' }));
      if (part.file.truncated) fail(ErrorCode.PAYLOAD_TOO_LARGE, `zip文件不能超过${IMPORT_ZIP_LIMITS.maxBytes / MB}MB`);
      file = { path: target, name: part.filename || 'import.zip', size: (await fs.promises.stat(target)).size };
    }
    return { fields, file };
  } catch (err) {
    await Promise.all(partial.map((p) => fs.promises.rm(p, { force: true })));
    if (err instanceof AppError) throw err;
    if ((err as { code?: string }).code === 'FST_FILES_LIMIT') fail(ErrorCode.VALIDATION, '一次只能上传一个zip文件');
    if ((err as { statusCode?: number }).statusCode === 413) fail(ErrorCode.PAYLOAD_TOO_LARGE, '上传的表单项过多');
    throw new AppError(ErrorCode.VALIDATION, '上传的内容不完整，请重试');
  }
}

/** The template: the persons' sheet (the form's columns and an example row) and 说明.txt, zipped with UTF-8 names. */
async function template(app: FastifyInstance): Promise<Buffer> {
  const departments = await app.ctx.db.selectFrom('sys_department').select(['depart_id as id', 'name']).where('deleted', '=', 0).orderBy('depart_id').execute();
  const enterprise = departments.find((d) => d.name.includes('有限公司')) ?? departments[0];
  const today = dateOf(app.ctx.time());
  const exampleId = EXAMPLE_ID_NUMBER;
  const sheet = await buildTemplate({
    sheet: '人员信息',
    columns: personColumns,
    lookups: { department: departments },
    maxRows: IMPORT_ZIP_LIMITS.maxEntries,
    example: {
      visitor_name: '张三',
      visitor_gender: '男',
      visitor_nation: '汉族',
      visitor_phone: EXAMPLE_MOBILE,
      visitor_company: '惠州示例工程有限公司',
      visitor_address: '广东省惠州市大亚湾区',
      visitor_type: '临时访客',
      visitor_idcard_type: '第二代居民身份证',
      visitor_idcard: exampleId,
      visit_content: EXAMPLE_CONTENT,
      visit_begin_time: addDays(today, 1),
      visit_end_time: addDays(today, 3),
      visit_area: '化工区',
      interviewee_name: '李强',
      interviewee_phone: '13800000003',
      interviewee_depart_id: enterprise?.name ?? '',
    },
    notes: [
      '1. 每行一位访客；带 * 的列必填；性别、申请类型、证件类型、园区、被访部门请填写左侧列出的值。',
      '2. 来访时间填写日期，格式 YYYY-MM-DD；开始时间不能早于今天，也不能超过1个月后。',
      '3. 每位访客的人脸照片以证件号码命名（如 441302199001011231.jpg），与本表一起打包成 zip 上传。',
      `4. 第2行为示例（来访事由为“${EXAMPLE_CONTENT}”），导入时忽略。`,
    ],
  });
  const guide = [
    '人员批量导入说明',
    '',
    'zip 压缩包的内容：',
    '  人员信息.xlsx        —— 一个人员表（只能有一个 .xlsx 文件），列与“人员预约”表单相同，第1行为表头；',
    '  照片/441302199001011231.jpg  —— 每位访客一张人脸照片，文件名为证件号码，格式 .jpg、.jpeg 或 .png，可放在任意文件夹中。',
    '',
    '规则：',
    `  · 压缩包不超过${IMPORT_ZIP_LIMITS.maxBytes / MB}MB，文件不超过${IMPORT_ZIP_LIMITS.maxEntries}个，解压后不超过1GB；每张照片不超过${IMPORT_ZIP_LIMITS.maxPhotoBytes / MB}MB。`,
    '  · 每一行单独导入：照片缺失或损坏、或任一项不符合人员预约的规则时，该行不导入，结果文件中写明原因；其余行照常导入。',
    '  · 导入的每位访客生成一条人员预约并直接提交审核（与在“人员预约”中逐条提交相同），申请单号见结果文件。',
    '  · 有失败的行时任务为“失败”：按原因修改后可更换 zip 文件并重新开始导入，已导入的人员（按证件号码）不会重复导入。',
    '  · 文件名支持 UTF-8 与 GBK 编码（Windows 自带的压缩工具）。',
    '',
    '性别、申请类型、证件类型、园区、被访部门的可选值见人员信息.xlsx 的“说明”表。',
  ].join('\r\n');
  const zip = new yazl.ZipFile();
  zip.addBuffer(sheet, '人员信息.xlsx');
  // A byte-order mark, so Windows Notepad reads the text as UTF-8.
  zip.addBuffer(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(guide, 'utf8')]), '说明.txt');
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function personImportRoutes(app: FastifyInstance) {
  const { ctx } = app;
  const { db } = ctx;
  const tmpDir = importTmpDir(ctx);
  await fs.promises.mkdir(tmpDir, { recursive: true });
  // Scoped to this plugin: one zip per request, cut off one byte past the limit so an oversize upload is told apart.
  await app.register(multipart, { limits: { fileSize: IMPORT_ZIP_LIMITS.maxBytes, files: 1, fields: 5, parts: 10, fieldSize: 1024 } });
  const runner = importRunner(app);
  const sendXlsx = xlsxExports(app);

  // ------------------------------------------------------------ save (new task, or a new zip for an editable one)
  route(app, personImportApi.save, async (req) => {
    const auth = req.auth!;
    // One upload at a time per user, as the xlsx imports: it holds a temporary file up to 200 MB.
    const release = importGate.enterUser(auth.userId);
    let received: ReceivedZip | null = null;
    try {
      received = await receiveZip(req, tmpDir);
      const { id: idText, ...rest } = received.fields;
      const f = parse(saveFields, idText ? { ...rest, id: idText } : rest, personImportLabels);
      req.auditParams = { name: f.name, id: f.id, file: received.file?.name, size: received.file?.size };
      if (f.id !== undefined && !auth.permissions.has('personBatchApply:edit')) fail(ErrorCode.FORBIDDEN, '没有编辑批量导入的权限');
      const current = f.id !== undefined ? await ownTask(app, auth, f.id) : null;
      if (current && !importTaskEditable(current.status)) refuseState(current.status);
      const file = received.file;
      if (!file || file.size === 0) fail(ErrorCode.VALIDATION, NOT_A_ZIP);
      try {
        (await scanZip(file!.path, true)).zip.close();
      } catch (err) {
        if (err instanceof ZipRefused) fail(ErrorCode.VALIDATION, err.message);
        throw err;
      }
      const stored = await keepZip(ctx, file!.path);
      const now = ctx.time();
      const values = { name: f.name, file_name: file!.name.slice(0, 255), file_size: file!.size, file_path: stored, update_time: now };
      try {
        const id = await db.transaction().execute(async (trx) => {
          if (!current) {
            const row = await trx
              .insertInto(TASK_TABLE)
              .values({ ...values, status: ImportStatus.WAITING, reason: '', create_user_id: auth.userId, create_time: now })
              .returning('id')
              .executeTakeFirstOrThrow();
            return row.id;
          }
          // Conditional: a start that won the task meanwhile keeps its zip.
          const r = await trx.updateTable(TASK_TABLE).set(values).where('id', '=', current.id).where('status', 'in', [ImportStatus.WAITING, ImportStatus.FAILED]).executeTakeFirst();
          if (Number(r.numUpdatedRows) === 0) refuseState(ImportStatus.RUNNING);
          afterCommit(trx, () => void dropZip(ctx, current.file_path));
          return current.id;
        });
        return ok({ id }, current ? '编辑成功！' : '创建成功！');
      } catch (err) {
        await dropZip(ctx, stored);
        throw err;
      }
    } finally {
      if (received?.file) await fs.promises.rm(received.file.path, { force: true });
      release();
    }
  });

  // ------------------------------------------------------------ list (POST and GET), own tasks
  const list = async (auth: AuthContext, q: { size: number; pn: number; name?: string; status?: number }) => {
    const base = () => {
      let b = db.selectFrom(`${TASK_TABLE} as t`).where('t.create_user_id', '=', auth.userId);
      if (q.name) b = b.where(containsText('t.name', q.name));
      if (q.status !== undefined) b = b.where('t.status', '=', q.status);
      return b;
    };
    return pageOf(
      q,
      () =>
        base()
          .select((eb) => eb.fn.countAll<number>().as('total'))
          .executeTakeFirst(),
      async (limit, offset) =>
        (await base()
          .leftJoin('sys_user as u', 'u.user_id', 't.create_user_id')
          .select([
            't.id',
            't.name',
            't.file_name',
            't.file_size',
            't.status',
            't.reason',
            't.total',
            't.done_count',
            't.failed_count',
            't.create_user_id',
            't.create_time',
            't.update_time',
            sql<string>`coalesce(u.user_name, '')`.as('create_user_name'),
            sql<number>`case when exists (select 1 from person_import_row r where r.task_id = t.id) then 1 else 0 end`.as('has_rows'),
          ])
          .orderBy('t.id', 'desc')
          .limit(limit)
          .offset(offset)
          .execute()) as ImportTaskRow[],
    );
  };
  route(app, personImportApi.page, async (req) => ok(await list(req.auth!, req.body)));
  route(app, personImportApi.pageGet, async (req) => ok(await list(req.auth!, req.query)));

  // ------------------------------------------------------------ update (name), delete
  route(app, personImportApi.update, async (req) => {
    const task = await ownTask(app, req.auth!, req.body.id);
    if (!importTaskEditable(task.status)) refuseState(task.status);
    const r = await db
      .updateTable(TASK_TABLE)
      .set({ name: req.body.name, update_time: ctx.time() })
      .where('id', '=', task.id)
      .where('status', 'in', [ImportStatus.WAITING, ImportStatus.FAILED])
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) refuseState(ImportStatus.RUNNING);
    return ok(null, '编辑成功！');
  });

  route(app, personImportApi.delete, async (req) => {
    const task = await ownTask(app, req.auth!, req.body.id);
    if (!importTaskEditable(task.status)) refuseState(task.status);
    await db.transaction().execute(async (trx) => {
      const r = await trx.deleteFrom(TASK_TABLE).where('id', '=', task.id).where('status', 'in', [ImportStatus.WAITING, ImportStatus.FAILED]).executeTakeFirst();
      if (Number(r.numDeletedRows) === 0) refuseState(ImportStatus.RUNNING);
      // The results go with the task; the applications it created stay, as any application does.
      await trx.deleteFrom('person_import_row').where('task_id', '=', task.id).execute();
      afterCommit(trx, () => void dropZip(ctx, task.file_path));
    });
    return ok(null, '删除成功！');
  });

  // ------------------------------------------------------------ start: claim 0|3 → 1, run after the answer
  route(app, personImportApi.submit, async (req) => {
    const auth = req.auth!;
    const task = await ownTask(app, auth, req.body.id);
    await db.transaction().execute(async (trx) => {
      const r = await trx
        .updateTable(TASK_TABLE)
        .set({ status: ImportStatus.RUNNING, reason: '', failed_count: 0, claimed_by: runner.owner, heartbeat_at: ctx.now(), update_time: ctx.time() })
        .where('id', '=', task.id)
        .where('status', 'in', [ImportStatus.WAITING, ImportStatus.FAILED])
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) {
        // Another start (here or on another server) claimed it first, or it is finished.
        const now = await trx.selectFrom(TASK_TABLE).select('status').where('id', '=', task.id).executeTakeFirst();
        refuseState(now?.status ?? ImportStatus.RUNNING);
      }
      // After commit, outside the request: the run must not join the request's before-commit work.
      afterCommit(trx, () => runner.start(task.id, auth));
    });
    return ok(null, '提交成功！');
  });

  // ------------------------------------------------------------ files
  route(app, personImportApi.template, async (_req, reply) =>
    reply
      .type('application/zip')
      .header('Content-Disposition', contentDisposition(TEMPLATE_FILE, 'person-import-template.zip'))
      .header('Cache-Control', 'no-store')
      .send(await template(app)),
  );

  route(app, personImportApi.result, async (req, reply) => {
    const task = await ownTask(app, req.auth!, req.query.id);
    const status = (s: number) => (s === 1 ? '成功' : '失败');
    return sendXlsx<ResultRow>(req, reply, {
      fileName: `${task.name}-导入结果.xlsx`,
      fallback: 'person-import-result.xlsx',
      sheet: '导入结果',
      columns: [
        { header: '行号', width: 8, cell: (r) => r.row_no },
        { header: personApplicationLabels.visitor_name!, width: 12, cell: (r) => r.name },
        { header: personApplicationLabels.visitor_idcard!, width: 22, cell: (r) => r.idcard, personal: 'idNumber' },
        { header: '结果', width: 8, cell: (r) => status(r.status) },
        { header: '申请单号', width: 22, cell: (r) => r.application_number ?? '' },
        { header: '原因', width: 60, cell: (r) => r.error },
      ],
      async *pages() {
        // By sheet row, then id: rows imported from an earlier zip of the task may share a row number with this one's.
        let after: { row_no: number; id: number } | null = null;
        for (;;) {
          let q = db.selectFrom('person_import_row').select(['id', 'row_no', 'name', 'idcard', 'status', 'application_number', 'error']).where('task_id', '=', task.id);
          if (after) {
            const a: { row_no: number; id: number } = after;
            q = q.where((eb) => eb.or([eb('row_no', '>', a.row_no), eb.and([eb('row_no', '=', a.row_no), eb('id', '>', a.id)])]));
          }
          const rows = await q.orderBy('row_no').orderBy('id').limit(1000).execute();
          if (rows.length) yield rows;
          if (rows.length < 1000) return;
          after = rows[rows.length - 1]!;
        }
      },
    });
  });
}
