import type { FastifyInstance } from 'fastify';
import { RoutePublish, drivingRouteApi, drivingRouteCalls, drivingRouteLabels, joinIds, parsePath, serializePath, splitIds, type DrivingRouteCreate } from '../../../domain/schemas/driving-route';
import { notFound, ok } from '../../core/errors';
import type { Db, RowValues } from '../../core/repository';
import { defineResource, registerResource } from '../../core/resource';
import { route } from '../../core/route';
import { ruleFailure } from '../../core/validate';
import { anyReadable, readRule } from '../access';
import { addGatePoints, livePoints, pointsInOrder } from './locations';

/**
 * 行车路线 (spec 001 "Vehicle entry routes", §7 Routes; issue 27): a declared
 * register (page, save, update, delete) plus binding departments, the points
 * of the park, a route's points, and the route a vehicle visit is to follow
 * (the pass and the approval detail draw it). A department follows one route
 * at most: binding it to another moves it.
 */

const NOUN = drivingRouteApi.noun;
const columns = ['id', 'name', 'publish', 'path', 'location_id', 'create_user_id', 'update_user_id', 'create_time', 'update_time'] as const;

/** The list's rows with their bound departments' and points' names (two queries a page). */
async function decorate(rows: RowValues[], db: Db): Promise<RowValues[]> {
  const ids = rows.map((r) => r.id as number);
  const departs = ids.length
    ? await db
        .selectFrom('driving_route_depart as b')
        .innerJoin('sys_department as d', 'd.depart_id', 'b.depart_id')
        .select(['b.route_id', 'd.name'])
        .where('b.route_id', 'in', ids)
        .where('d.deleted', '=', 0)
        .orderBy('b.depart_id')
        .execute()
    : [];
  const pointIds = [...new Set(rows.flatMap((r) => splitIds(r.location_id as string)))];
  const names = new Map((await livePoints(db, pointIds)).map((p) => [p.id, p.name]));
  return rows.map((r) => ({
    ...r,
    depart_names: departs
      .filter((d) => d.route_id === r.id)
      .map((d) => d.name)
      .join('、'),
    point_names: splitIds(r.location_id as string)
      .flatMap((id) => names.get(id) ?? [])
      .join(' → '),
  }));
}

/** 400 naming 途经点位 when any of these ids is not a live point of the park. */
async function refuseDeadPoints(db: Db, ids: readonly number[]): Promise<void> {
  const live = new Set((await livePoints(db, ids)).map((p) => p.id));
  const missing = ids.filter((l) => !live.has(l));
  if (missing.length) throw ruleFailure([{ field: 'locationIds', message: `所选点位不存在或已被删除（ID ${missing.join('、')}）` }], drivingRouteLabels);
}

export const drivingRoutesDef = defineResource({
  contract: drivingRouteApi,
  table: 'driving_route',
  softDelete: 'deleted',
  columns,
  readable: readRule('driving_route'),
  filters: { name: { column: 'name', match: 'contains' }, publish: { column: 'publish', match: 'equals' } },
  unique: [{ field: 'name', column: 'name' }],
  decorate,
  stamps: { createUser: 'create_user_id', updateUser: 'update_user_id' },
  // The points picked with the line (the editor picks the gates it passes) must be live ones.
  check: async (values, _ctx, db) => refuseDeadPoints(db, (values as DrivingRouteCreate).locationIds ?? []),
  // Stored as the canonical text (rounded to about a centimetre): what was checked is what is kept. Points sent are kept in their order; none sent, they stay.
  toRow: (values) => {
    const v = values as DrivingRouteCreate;
    return { name: v.name, publish: v.publish, path: serializePath(parsePath(v.path)), ...(v.locationIds ? { location_id: joinIds(v.locationIds) } : {}) };
  },
  // A deleted route leaves its departments free to be bound again, and no visit follows it any more.
  beforeDelete: async (trx, id) => {
    await trx.deleteFrom('driving_route_depart').where('route_id', '=', id).execute();
  },
});

/** The live route, or 404 (absent and deleted read alike). */
async function liveRoute(db: Db, id: number) {
  const row = await db.selectFrom('driving_route').select(['id', 'name', 'path', 'location_id', 'publish']).where('id', '=', id).where('deleted', '=', 0).executeTakeFirst();
  if (!row) notFound(NOUN);
  return row!;
}

export async function drivingRouteRoutes(app: FastifyInstance) {
  const { ctx } = app;
  await registerResource(app, drivingRoutesDef);
  const { bind, find, locations, editLocations, ofApplication } = drivingRouteCalls;

  route(app, bind, async (req) => {
    const { id, departIds } = req.body;
    const now = ctx.time();
    await ctx.db.transaction().execute(async (trx) => {
      await liveRoute(trx, id);
      if (departIds.length) {
        const live = new Set((await trx.selectFrom('sys_department').select('depart_id').where('depart_id', 'in', departIds).where('deleted', '=', 0).execute()).map((d) => d.depart_id));
        const missing = departIds.filter((d) => !live.has(d));
        if (missing.length) throw ruleFailure([{ field: 'departIds', message: `所选部门不存在或已被删除（ID ${missing.join('、')}）` }], drivingRouteLabels);
      }
      // The route's departments become exactly these; a department bound elsewhere moves here (the upsert decides, on any server).
      let drop = trx.deleteFrom('driving_route_depart').where('route_id', '=', id);
      if (departIds.length) drop = drop.where('depart_id', 'not in', departIds);
      await drop.execute();
      if (departIds.length)
        await trx
          .insertInto('driving_route_depart')
          .values(departIds.map((depart_id) => ({ depart_id, route_id: id, create_time: now })))
          .onConflict((oc) => oc.column('depart_id').doUpdateSet((eb) => ({ route_id: eb.ref('excluded.route_id'), create_time: eb.ref('excluded.create_time') })))
          .execute();
    });
    return ok(null, '绑定成功');
  });

  route(app, find, async (req) => {
    let q = ctx.db
      .selectFrom('driving_route_depart as b')
      .innerJoin('sys_department as d', 'd.depart_id', 'b.depart_id')
      .innerJoin('driving_route as r', 'r.id', 'b.route_id')
      .select(['b.depart_id', 'd.name as depart_name', 'b.route_id', 'r.name as route_name'])
      .where('d.deleted', '=', 0)
      .where('r.deleted', '=', 0);
    if (req.body.id !== undefined) q = q.where('b.route_id', '=', req.body.id);
    return ok(await q.orderBy('b.depart_id').execute());
  });

  route(app, locations, async () => {
    await addGatePoints(ctx.db, ctx.time());
    return ok(await livePoints(ctx.db));
  });

  route(app, editLocations, async (req) => {
    const { id, locationIds } = req.body;
    await ctx.db.transaction().execute(async (trx) => {
      await liveRoute(trx, id);
      await refuseDeadPoints(trx, locationIds);
      await trx
        .updateTable('driving_route')
        .set({ location_id: joinIds(locationIds), update_user_id: req.auth!.userId, update_time: ctx.time() })
        .where('id', '=', id)
        .execute();
    });
    return ok(null, '编辑成功！');
  });

  // Whoever may read the vehicle visit (its filer, its approvers, the history readers) sees its route: the same row rule as its detail.
  route(app, ofApplication, async (req) => {
    const id = req.body.car_application_id;
    const visit = await ctx.db.selectFrom('car_application').select('interviewee_depart_id').where('car_application_id', '=', id).where('is_deleted', '=', 0).executeTakeFirst();
    if (!visit || !(await anyReadable(ctx.db, req.auth!, 'car_application', [id]))) notFound('车辆预约');
    const r = await ctx.db
      .selectFrom('driving_route_depart as b')
      .innerJoin('driving_route as r', 'r.id', 'b.route_id')
      .select(['r.id', 'r.name', 'r.path', 'r.location_id'])
      .where('b.depart_id', '=', visit!.interviewee_depart_id)
      .where('r.deleted', '=', 0)
      .where('r.publish', '=', RoutePublish.PUBLISHED)
      .executeTakeFirst();
    if (!r) return ok(null);
    return ok({ id: r.id, name: r.name, path: r.path, points: await pointsInOrder(ctx.db, splitIds(r.location_id)) });
  });
}
