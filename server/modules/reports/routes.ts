import type { FastifyInstance, FastifyRequest } from 'fastify';
import { enumLabel } from '../../../domain/enums';
import { reports, type ReportCalls, type ReportColumn, type ReportDef } from '../../../domain/reports';
import { dateOf } from '../../../domain/visit-rules';
import { ok } from '../../core/errors';
import { route } from '../../core/route';
import { xlsxExports, type ExportSheetColumn } from '../../core/xlsx-export';
import { reportQueries, type Filters } from './queries';

/**
 * The statistics reports (spec 002 §2, §7): both calls of every declaration
 * in domain/reports.ts, answered from the rollups by its query (queries.ts).
 * A filter left out, or sent empty, takes the declaration's default for the
 * park day it is, before the filters are checked; the export writes the
 * rows the data call answers, under the catalogue's headers.
 */
export async function reportRoutes(app: FastifyInstance) {
  const { ctx } = app;
  const sendXlsx = xlsxExports(app);

  const withDefaults = (def: ReportDef, variant: Filters) => async (req: FastifyRequest) => {
    const given = Object.entries((req.query ?? {}) as Record<string, unknown>).filter(([, v]) => v !== '' && v !== undefined && v !== null);
    req.query = { ...def.defaults(dateOf(ctx.time())), ...Object.fromEntries(given), ...variant };
  };
  const cellOf = (c: ReportColumn): ExportSheetColumn<Record<string, unknown>>['cell'] => (c.kind === 'park' ? (r) => enumLabel('visitArea', Number(r[c.key])) : (r) => r[c.key]);

  const register = (def: ReportDef, calls: ReportCalls, variant: Filters) => {
    const query = reportQueries[def.key as keyof typeof reportQueries];
    const preValidation = withDefaults(def, variant);
    route(app, calls.data, async (req) => ok(await query(ctx.db, req.query as Filters)), { preValidation });
    route(
      app,
      calls.export,
      async (req, reply) => {
        const filters = req.query as Filters;
        // The query runs once the export has its slot (core/xlsx-export.ts), not while it waits.
        return sendXlsx(req, reply, async () => {
          const answer = await query(ctx.db, filters);
          const columns = [...def.columns, ...(answer.title ?? []).map((t) => ({ ...t, kind: 'count' as const }))];
          // A dynamic report's total comes last, after its vehicle types.
          const ordered = def.dynamicColumns ? [...columns.filter((c) => c.key !== 'total'), ...columns.filter((c) => c.key === 'total')] : columns;
          return {
            fileName: def.fileName(filters as never, dateOf(ctx.time())),
            fallback: `${def.key}.xlsx`,
            sheet: def.title,
            columns: ordered.map((c) => ({ header: c.label, cell: cellOf(c), width: c.kind === 'text' ? 20 : 12 })),
            pages: async function* () {
              yield answer.list;
            },
          };
        });
      },
      { preValidation },
    );
  };

  for (const def of reports as readonly ReportDef[]) {
    if (def.variants) for (const [value, calls] of Object.entries(def.variants.calls)) register(def, calls, { [def.variants.filter]: value });
    else register(def, def.calls, {});
  }
}
