import type { FastifyInstance } from 'fastify';
import { labelApi } from '../../../domain/appointment-kinds';
import { ErrorCode } from '../../../domain/errors';
import { fail, ok } from '../../core/errors';
import { fileNamesIn, recordFileRefs } from '../../core/file-refs';
import { route } from '../../core/route';
import { assertFilesUsable } from '../access';

/**
 * Vehicle flags (spec 000 §3 "flag request"): a mark row per flagged
 * application, and the application highlighted (label_status 1) with the
 * reason, in one transaction.
 */
export async function labelRoutes(app: FastifyInstance) {
  const { db } = app.ctx;

  route(app, labelApi.label, async (req) => {
    const b = req.body;
    const ids = [...new Set(b.car_application_ids)];
    const auth = req.auth!;
    await assertFilesUsable(db, auth, b.photo);
    await db.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom('car_application')
        .select(['car_application_id', 'application_number', 'license_plate', 'vehicle_type_id', 'visitor_company'])
        .where('car_application_id', 'in', ids)
        .where('is_deleted', '=', 0)
        .execute();
      if (rows.length !== ids.length) {
        const found = new Set(rows.map((r) => r.car_application_id));
        fail(ErrorCode.NOT_FOUND, `车辆预约${ids.filter((id) => !found.has(id)).join('、')}不存在或已被删除`);
      }
      const now = app.ctx.time();
      const marks = await trx
        .insertInto('vehicle_mark')
        .values(
          rows.map((r) => ({
            car_application_id: r.car_application_id,
            license_plate: r.license_plate,
            vehicle_type_id: r.vehicle_type_id,
            visitor_company: r.visitor_company,
            remark: b.remark,
            color_id: b.color_id,
            label_type_id: b.label_type_id,
            alarm_id: b.alarm_id,
            status: 1,
            photo: b.photo,
            create_user_id: auth.userId,
            update_user_id: auth.userId,
            create_time: now,
            update_time: now,
          })),
        )
        .returning('id')
        .execute();
      // The flag's photos are read by whoever may read the flag (modules/file-access.ts).
      const photos = fileNamesIn(b.photo);
      for (const m of marks) await recordFileRefs(trx, 'vehicle_mark', m.id, photos);
      await trx.updateTable('car_application').set({ label_status: 1, label_remark: b.remark, update_user_name: auth.userName, update_time: now }).where('car_application_id', 'in', ids).execute();
    });
    return ok(null, '标记成功');
  });

  route(app, labelApi.queryRemark, async (req) => {
    const b = req.body;
    const plates = new Set<string>();
    if (b.license_plate) plates.add(b.license_plate);
    if (b.car_application_ids?.length) {
      for (const r of await db.selectFrom('car_application').select('license_plate').where('car_application_id', 'in', b.car_application_ids).execute()) plates.add(r.license_plate);
    }
    if (plates.size === 0) return ok([]);
    const list = await db
      .selectFrom('vehicle_mark as m')
      .leftJoin('sys_user as u', 'u.user_id', 'm.create_user_id')
      .leftJoin('vehicle_type as vt', 'vt.id', 'm.vehicle_type_id')
      .select([
        'm.id',
        'm.car_application_id',
        'm.license_plate',
        'm.vehicle_type_id',
        'vt.name as vehicle_type_name',
        'm.visitor_company',
        'm.remark',
        'm.color_id',
        'm.label_type_id',
        'm.alarm_id',
        'm.photo',
        'm.create_user_id',
        'u.user_name as create_user_name',
        'm.create_time',
      ])
      .where('m.license_plate', 'in', [...plates])
      .where('m.status', '=', 1)
      .where('m.deleted', '=', 0)
      .orderBy('m.id', 'desc')
      .execute();
    return ok(list);
  });
}
