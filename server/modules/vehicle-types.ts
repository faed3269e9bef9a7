import type { FastifyInstance } from 'fastify';
import { ErrorCode } from '../../domain/errors';
import { vehicleTypeCreate, vehicleTypeId, vehicleTypeLabels, vehicleTypePageQuery, vehicleTypeUpdate, type VehicleTypeCreate } from '../../domain/schemas/vehicle-type';
import { AppError, notFound, ok } from '../core/errors';
import { containsText, pageOf } from '../core/paging';
import { parse } from '../core/validate';

const PRELOAD_LIMIT = 1000;
const columns = ['id', 'name', 'speed', 'need_record', 'show_cargo_type', 'check_overweight', 'need_blind_video', 'create_time', 'update_time'] as const;

const toRow = (v: VehicleTypeCreate) => ({
  name: v.name,
  speed: v.speed,
  need_record: v.needRecord,
  show_cargo_type: v.showCargoType,
  check_overweight: v.checkOverweight,
  need_blind_video: v.needBlindVideo,
});

export async function vehicleTypeRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const live = () => db.selectFrom('vehicle_type').where('deleted', '=', 0);

  const assertNameFree = async (name: string, exceptId?: number) => {
    let q = live().select('id').where('name', '=', name);
    if (exceptId) q = q.where('id', '!=', exceptId);
    if (await q.executeTakeFirst()) throw new AppError(ErrorCode.DUPLICATE, `车型名“${name}”已存在`, { errors: [{ field: 'name', label: '车型名', message: '车型名已存在' }] });
  };

  app.post('/vehicleType/page', { config: { permission: 'role' } }, async (req) => {
    const q = parse(vehicleTypePageQuery, req.body, vehicleTypeLabels);
    const filtered = () => (q.name ? live().where(containsText('name', q.name)) : live());
    return ok(
      await pageOf(
        q,
        () => filtered().select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirst(),
        (limit, offset) => filtered().select(columns).orderBy('id').limit(limit).offset(offset).execute(),
      ),
    );
  });

  // The forms' preload: every live model at once (a park has a handful; the cap only bounds a runaway table).
  app.post('/vehicleType/options', { config: { permission: 'role' } }, async () =>
    ok(await live().select(columns).orderBy('id').limit(PRELOAD_LIMIT).execute()),
  );

  app.post('/vehicleType/get', { config: { permission: 'role' } }, async (req) => {
    const { id } = parse(vehicleTypeId, req.body, vehicleTypeLabels);
    return ok((await live().select(columns).where('id', '=', id).executeTakeFirst()) ?? notFound('车型'));
  });

  app.post('/vehicleType/save', { config: { permission: 'modal:add', operation: '新增车型' } }, async (req) => {
    const v = parse(vehicleTypeCreate, req.body, vehicleTypeLabels);
    await assertNameFree(v.name);
    const now = app.ctx.time();
    const row = await db
      .insertInto('vehicle_type')
      .values({ ...toRow(v), create_user_id: req.auth!.userId, create_time: now, update_time: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return ok({ id: row.id }, '创建车型成功！');
  });

  app.post('/vehicleType/update', { config: { permission: 'modal:edit', operation: '编辑车型' } }, async (req) => {
    const v = parse(vehicleTypeUpdate, req.body, vehicleTypeLabels);
    if (!(await live().select('id').where('id', '=', v.id).executeTakeFirst())) notFound('车型');
    await assertNameFree(v.name, v.id);
    await db.updateTable('vehicle_type').set({ ...toRow(v), update_time: app.ctx.time() }).where('id', '=', v.id).where('deleted', '=', 0).execute();
    return ok(null, '编辑车型成功！');
  });

  app.post('/vehicleType/delete', { config: { permission: 'modal:delete', operation: '删除车型' } }, async (req) => {
    const { id } = parse(vehicleTypeId, req.body, vehicleTypeLabels);
    const res = await db.updateTable('vehicle_type').set({ deleted: 1, update_time: app.ctx.time() }).where('id', '=', id).where('deleted', '=', 0).executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) notFound('车型');
    return ok(null, '删除成功！');
  });
}
