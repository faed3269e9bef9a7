import type { FastifyInstance } from 'fastify';
import { workCalendarApi, type WorkCalendarDay } from '../../domain/schemas/work-calendar';
import { eachDay } from '../../domain/visit-rules';
import type { CalendarMarks, DayKind } from '../../domain/work-calendar';
import { ok } from '../core/errors';
import type { Db } from '../core/repository';
import { route } from '../core/route';
import { tableChanged } from '../core/paging';
import { afterCommit } from '../core/transactions';

/**
 * 工作日历 (docs/work-calendar.md): the administrator's marked days, one row
 * each, read whole by whatever counts working days (approval deadlines). The
 * rule is domain/work-calendar.ts.
 */

/** The marks from `from` on ('YYYY-MM-DD'): what a deadline counted from then may meet. */
export async function readCalendarMarks(db: Db, from: string): Promise<CalendarMarks> {
  const rows = await db.selectFrom('work_calendar_day').select(['day', 'kind']).where('day', '>=', from).orderBy('day').execute();
  return new Map(rows.map((r) => [r.day, r.kind as DayKind]));
}

export async function workCalendarRoutes(app: FastifyInstance) {
  const { ctx } = app;

  route(app, workCalendarApi.list, async (req) => {
    const { year } = req.query;
    const days: WorkCalendarDay[] = await ctx.db
      .selectFrom('work_calendar_day')
      .select(['day', 'kind', 'name', 'update_user_name', 'update_time'])
      .where('day', '>=', `${year}-01-01`)
      .where('day', '<=', `${year}-12-31`)
      .orderBy('day')
      .execute();
    return ok({ year, days });
  });

  route(app, workCalendarApi.save, async (req) => {
    const { start_date, end_date, kind, name } = req.body;
    const days = eachDay(start_date, end_date);
    const values = { kind, name, update_user_name: req.auth!.userName, update_time: ctx.time() };
    await ctx.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('work_calendar_day')
        .values(days.map((day) => ({ day, ...values })))
        .onConflict((oc) => oc.column('day').doUpdateSet(values))
        .execute();
      afterCommit(trx, () => tableChanged('work_calendar_day'));
    });
    return ok({ days: days.length }, '保存成功！');
  });

  route(app, workCalendarApi.clear, async (req) => {
    const { start_date, end_date } = req.body;
    const cleared = await ctx.db.transaction().execute(async (trx) => {
      const r = await trx.deleteFrom('work_calendar_day').where('day', '>=', start_date).where('day', '<=', end_date).executeTakeFirst();
      afterCommit(trx, () => tableChanged('work_calendar_day'));
      return Number(r.numDeletedRows);
    });
    return ok({ days: cleared }, '已恢复');
  });
}
