import type { FastifyInstance } from 'fastify';
import { AppState } from '../../../domain/appointments';
import { carListCreate, carListImportApi, carListImportLimits, carListLabels } from '../../../domain/schemas/black-white-list';
import { addDays, dateOf } from '../../../domain/visit-rules';
import { ok } from '../../core/errors';
import { route } from '../../core/route';
import { parseWithRules } from '../../core/validate';
import { acceptXlsxUploads, buildTemplate, convertRow, defineColumns, LookupIndex, readImport, RowErrors, sendXlsx, type ImportLimits, type LookupRows } from '../../core/xlsx-import';
import { carListDef } from './lists';

/**
 * Vehicle black/white list import (spec 001 §2 "batch Excel import", §7):
 * a template and an upload whose rows are checked as the form checks an
 * entry (carListCreate and the list's rules) and saved as the caller's
 * drafts, all or none.
 */

const limits: ImportLimits = carListImportLimits;
/** The example row's reason; a row that still carries it is skipped, so a template filled below the example imports cleanly. */
export const EXAMPLE_REASON = '示例行，导入时自动忽略，可删除';

const columns = defineColumns(
  [
    { key: 'license_plate', required: true, width: 14 },
    { key: 'vehicle_type_id', required: false, width: 18, lookup: 'vehicleType' },
    { key: 'type', required: true, width: 12, table: 'blackWhiteType' },
    { key: 'start_time', required: true, width: 14, date: true },
    { key: 'end_time', required: true, width: 14, date: true },
    { key: 'in_reason', required: true, width: 40 },
  ],
  carListLabels,
);

const vehicleTypes = (app: FastifyInstance): Promise<LookupRows> => app.ctx.db.selectFrom('vehicle_type').select(['id', 'name']).where('deleted', '=', 0).orderBy('id').execute();

async function template(app: FastifyInstance): Promise<Buffer> {
  const vehicleType = await vehicleTypes(app);
  const today = dateOf(app.ctx.time());
  return buildTemplate({
    sheet: '车辆黑白名单',
    columns,
    lookups: { vehicleType },
    maxRows: limits.maxRows,
    example: {
      license_plate: '粤L12345',
      vehicle_type_id: vehicleType[0]?.name ?? '',
      type: '黑名单',
      start_time: today,
      end_time: addDays(today, 30),
      in_reason: EXAMPLE_REASON,
    },
    notes: [
      '1. 每行一条车辆黑白名单，导入后为您名下的草稿，确认后再逐条提交审核。',
      '2. 带 * 的列必填；名单类型、车型请填写左侧列出的值，车型可不填。',
      '3. 开始时间、结束时间填写日期，格式 YYYY-MM-DD（如 2026-06-01），不能早于今天，结束时间不能早于开始时间。',
      '4. 所有行按名单表单的规则校验，任何一行有错误时整份文件都不会导入，请按提示修改后重新上传。',
      `5. 第2行为示例（原因为“${EXAMPLE_REASON}”），导入时忽略；每次最多导入${limits.maxRows}行。`,
    ],
  });
}

export async function carListImportRoutes(app: FastifyInstance) {
  const { ctx } = app;
  await acceptXlsxUploads(app, limits);
  // The form's rules beyond the schema (dates from today on, a live vehicle model), shared with /save.
  const rules = carListDef(ctx).rules!;

  route(app, carListImportApi.template, async (_req, reply) => sendXlsx(reply, '车辆黑白名单导入模板.xlsx', await template(app)));

  route(app, carListImportApi.upload, async (req) => {
    const rows = await readImport(req, columns, limits, (cells) => cells.in_reason === EXAMPLE_REASON);
    const lookups = new LookupIndex({ vehicleType: await vehicleTypes(app) });
    const errors = new RowErrors(columns, carListLabels);
    const today = ctx.time();

    const entries: Array<Record<string, unknown>> = [];
    for (const r of rows) {
      const { values, errors: cellErrors } = convertRow(r, columns, lookups);
      errors.add(...cellErrors);
      try {
        entries.push((await parseWithRules(carListCreate, values, carListLabels, (v) => rules(v, today, ctx.db))) as Record<string, unknown>);
      } catch (err) {
        errors.addFailure(r.row, err);
      }
    }

    if (errors.count) throw errors.failure();

    const userId = req.auth!.userId;
    const now = ctx.time();
    const ids = await ctx.db.transaction().execute(async (trx) => {
      const saved: number[] = [];
      for (const e of entries) {
        const { id } = await trx
          .insertInto('car_black_white_list')
          .values({
            license_plate: e.license_plate as string,
            vehicle_type_id: (e.vehicle_type_id as number | undefined) ?? null,
            type: e.type as number,
            start_time: e.start_time as string,
            end_time: e.end_time as string,
            in_reason: e.in_reason as string,
            status: AppState.DRAFT,
            create_user_id: userId,
            update_user_id: userId,
            create_time: now,
            update_time: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        saved.push(id);
      }
      return saved;
    });
    // The ids let the import dialog submit the drafts just imported (全部提交).
    return ok({ count: ids.length, ids }, '导入成功！');
  });
}
