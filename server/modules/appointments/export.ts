import type { FastifyInstance } from 'fastify';
import { kindCalls } from '../../../domain/appointment-kinds';
import type { AppointmentKind } from '../../../domain/appointments';
import { enumLabel } from '../../../domain/enums';
import { personalKindOf } from '../../../domain/personal-data';
import { ErrorCode } from '../../../domain/errors';
import { fail } from '../../core/errors';
import { PII_VIEW, holdsPiiView } from '../../core/personal-data';
import { route } from '../../core/route';
import { xlsxExports } from '../../core/xlsx-export';
import { kindList, kinds, type ExportColumn, type KindDef } from './kinds';
import { applicationPages } from './service';

/** '车辆预约总记录_化工区_20261121.xlsx': the park is the visit_area filter, or 全部园区. */
export function exportFileName(kind: AppointmentKind, visitArea: number | undefined, time: string): string {
  const park = visitArea === undefined ? '全部园区' : enumLabel('visitArea', visitArea);
  return `${kinds[kind].exportTitle}_${park}_${time.slice(0, 10).replace(/-/g, '')}.xlsx`;
}

const cellOf = (col: ExportColumn, row: Record<string, any>) => {
  const raw = typeof col.value === 'function' ? col.value(row) : row[col.value];
  if (col.table) return raw === null || raw === undefined ? '' : enumLabel(col.table, raw as number);
  return raw ?? '';
};

/** The column's own header, else its field's label in the kind's catalogue (the same words as the form and its messages). */
export function exportHeader(k: KindDef, c: ExportColumn): string {
  const header = c.header ?? (typeof c.value === 'string' ? k.labels[c.value] : undefined);
  if (!header) throw new Error(`${k.kind} export: column ${String(c.value)} has no header and no label`);
  return header;
}

/** POST {p}/all/history/export: the all-history list's filters in, an .xlsx streamed out. */
export async function exportRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const sendXlsx = xlsxExports(app);
  for (const k of kindList) {
    route(app, kindCalls[k.kind].export, async (req, reply) => {
      const { full_reason: fullReason, ...filters } = req.body as Record<string, unknown>;
      // In full takes pii:view; the reason is in the export's operation-log entry (its declared operation logs the body).
      if (fullReason !== undefined && !holdsPiiView(req.auth)) fail(ErrorCode.FORBIDDEN, `没有操作权限：完整导出个人信息需要权限 ${PII_VIEW}（查看个人信息）`);
      const time = app.ctx.time();
      return sendXlsx(req, reply, {
        fileName: exportFileName(k.kind, filters.visit_area as number | undefined, time),
        fallback: `${k.kind}-applications_${time.slice(0, 10).replace(/-/g, '')}.xlsx`,
        sheet: k.exportTitle,
        columns: k.exportColumns.map((c) => ({
          header: exportHeader(k, c),
          width: c.width ?? 14,
          cell: (row: Record<string, any>) => cellOf(c, row),
          ...(typeof c.value === 'string' && personalKindOf(c.value) ? { personal: personalKindOf(c.value)! } : {}),
        })),
        pages: () => applicationPages(db, null, k.kind, 'all', filters),
        inFull: fullReason !== undefined,
      });
    });
  }
}
