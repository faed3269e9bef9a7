import type { FastifyInstance } from 'fastify';
import type { Call } from '../../domain/contract';
import { logApi, logWindow, loginLogLabels, operationLogLabels } from '../../domain/schemas/logs';
import type { FieldLabels } from '../../domain/schemas/common';
import { ok } from '../core/errors';
import { containsText, pageOf } from '../core/paging';
import { redactAuditText } from '../core/redact';
import { tableRepository, type Db, type FilterMatch, type ListFilter, type RowValues } from '../core/repository';
import { route } from '../core/route';
import { ruleFailure } from '../core/validate';

/**
 * 登录日志 and 操作日志 (spec 002 §2 Logs, §7): read-only lists of the
 * sign-in attempts (modules/auth.ts) and mutating calls (core/auth.ts) the
 * server records, newest first. Declared once each below and served by one
 * route, like the gate records and for the same reason: a list always covers
 * a window of time, the last 24 hours unless the query names one, and "now"
 * is the server's. So every page and its count are a range of one (time, id)
 * index (migration 014), at most MAX_LOG_DAYS long, unless a whole account
 * narrows the operation log to that account's own index.
 */

interface LogList {
  call: Call;
  table: 'sys_login_log' | 'sys_operation_log';
  labels: FieldLabels;
  time: string;
  columns: readonly string[];
  filters: Record<string, ListFilter>;
  /** Does the query name something whose own index serves any window? */
  unbounded?: (q: RowValues, db: Db) => Promise<boolean>;
  decorate: (rows: RowValues[], db: Db) => Promise<RowValues[]>;
}

/** Each row's department name (a deleted department keeps its name). */
async function departNames(rows: RowValues[], db: Db): Promise<Map<number, string>> {
  const ids = [...new Set(rows.map((r) => r.depart_id).filter((id): id is number => typeof id === 'number'))];
  return new Map(ids.length ? (await db.selectFrom('sys_department').select(['depart_id', 'name']).where('depart_id', 'in', ids).execute()).map((d) => [d.depart_id, d.name]) : []);
}

/** An account some user holds (deleted users' accounts included): matched whole, on its index, over any window. */
const isWholeAccount = async (account: unknown, db: Db) =>
  typeof account === 'string' && account !== '' && !!(await db.selectFrom('sys_user').select('user_id').where('account', '=', account).limit(1).executeTakeFirst());

const lists: LogList[] = [
  {
    call: logApi.login,
    table: 'sys_login_log',
    labels: loginLogLabels,
    time: 'login_time',
    columns: ['id', 'user_id', 'user_name', 'account', 'depart_id', 'ip', 'result', 'login_time', 'remark'],
    filters: {
      // The sign-in form's "username" is the account, and an attempt on an unknown account has no name: either matches.
      userName: { column: 'user_name', match: (q, v) => q.where((eb) => eb.or([containsText('user_name', String(v)), containsText('account', String(v))])) },
      result: { column: 'result', match: 'equals' },
    },
    decorate: async (rows, db) => {
      const departs = await departNames(rows, db);
      return rows.map((r) => ({ ...r, depart_name: departs.get(r.depart_id as number) ?? null }));
    },
  },
  {
    call: logApi.operation,
    table: 'sys_operation_log',
    labels: operationLogLabels,
    time: 'operate_time',
    columns: ['id', 'user_id', 'user_name', 'account', 'depart_id', 'operation', 'result', 'operate_time', 'api', 'method', 'params'],
    filters: {
      // A whole account matches exactly (its index); part of one is a case-insensitive contains within the window.
      account: { column: 'account', match: async (q, v, db) => ((await isWholeAccount(v, db)) ? q.where('account', '=', v) : q.where(containsText('account', String(v)))) },
      result: { column: 'result', match: 'equals' },
    },
    unbounded: (q, db) => isWholeAccount(q.account, db),
    decorate: async (rows, db) => {
      const departs = await departNames(rows, db);
      // The name is the one stored with the row (migration 018), not today's: a rename does not rewrite the past.
      // Redacted when written; again when shown, by the same rule (core/redact.ts).
      return rows.map((r) => ({ ...r, user_name: r.user_name || null, depart_name: departs.get(r.depart_id as number) ?? null, params: redactAuditText(String(r.params ?? '')) }));
    },
  },
];

export async function logRoutes(app: FastifyInstance) {
  const { ctx } = app;

  for (const def of lists) {
    const repo = tableRepository(ctx.db, {
      table: def.table,
      key: 'id',
      columns: def.columns,
      orderBy: [
        [def.time, 'desc'],
        ['id', 'desc'],
      ],
    });
    route(app, def.call, async (req) => {
      const q = req.body as RowValues & { size: number; pn: number; start_time?: string; end_time?: string };
      const span = logWindow(q, ctx.time(), (await def.unbounded?.(q, ctx.db)) ?? false);
      if (span.errors.length) throw ruleFailure(span.errors, def.labels);
      let rows = repo.live().where(def.time, '>=', span.start);
      if (span.end) rows = rows.where(def.time, '<=', span.end);
      const filtered = await repo.applyFilters(rows, def.filters, q);
      const page = await pageOf(
        q,
        async () => ({ total: await repo.count(filtered) }),
        async (limit, offset) => def.decorate(await repo.page(filtered, limit, offset), ctx.db),
      );
      return ok(page as never);
    });
  }
}
