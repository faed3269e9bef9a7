import type { FastifyInstance } from 'fastify';
import { ErrorCode } from '../../domain/errors';
import { MarkStatus, markAllows, markConflictMessage, vehicleMarkApi, vehicleMarkLabels, type MarkAction } from '../../domain/schemas/vehicle-mark';
import type { AppContext, AuthContext } from '../core/context';
import { fail, notFound, ok } from '../core/errors';
import { fileNamesIn, recordFileRefs } from '../core/file-refs';
import type { Db, RowValues } from '../core/repository';
import { defineResource, registerResource, type ResourceDef } from '../core/resource';
import { route } from '../core/route';
import { ruleFailure } from '../core/validate';
import { anyReadable, assertFilesUsable, readRule } from './access';
import { withNames } from './registers/lists';

/**
 * 车辆标记 (spec 001 §2, §4, §5, §7): the park's register of flagged plates,
 * a declared resource plus cancel. Rows come from this screen and from
 * flagging on the vehicle all-history screen (appointments/label.ts), which
 * writes the same table. Every holder of carMark:list reads every mark (as
 * the scan screen does, SCAN_PERMISSION); rows are read, edited, cancelled
 * and deleted through the access switch, so a row the caller may not read is
 * absent to them.
 */

const NOUN = vehicleMarkApi.noun;

const columns = [
  'id',
  'car_application_id',
  'license_plate',
  'vehicle_type_id',
  'visitor_company',
  'remark',
  'color_id',
  'label_type_id',
  'alarm_id',
  'status',
  'photo',
  'cancel_reason',
  'cancel_photo',
  'create_user_id',
  'update_user_id',
  'create_time',
  'update_time',
] as const;

const TEXT_FILTERS = ['license_plate', 'visitor_company'] as const;
const CODE_FILTERS = ['status', 'color_id', 'label_type_id', 'alarm_id'] as const;

const parts = (v: unknown): string[] =>
  typeof v === 'string'
    ? v
        .split(';')
        .map((p) => p.trim())
        .filter(Boolean)
    : [];

/** Names beside ids, the flagged appointment's number, and the photos as the spec's files (type 1 site, 2 cancel). */
const named = withNames(true);
async function decorate(rows: RowValues[], db: Db): Promise<RowValues[]> {
  const out: RowValues[] = await named(rows, db);
  const appIds = [...new Set(rows.map((r) => r.car_application_id).filter((v): v is number => typeof v === 'number'))];
  const numbers = new Map(
    appIds.length
      ? (await db.selectFrom('car_application').select(['car_application_id', 'application_number']).where('car_application_id', 'in', appIds).execute()).map((a) => [
          a.car_application_id,
          a.application_number,
        ])
      : [],
  );
  return out.map((r) => ({
    ...r,
    application_number: numbers.get(r.car_application_id as number) ?? null,
    files: [...parts(r.photo).map((url) => ({ url, type: 1 })), ...parts(r.cancel_photo).map((url) => ({ url, type: 2 }))],
  }));
}

/** The live mark under its lock (PostgreSQL), if the caller may read it; 404 otherwise, the same answer for absent and not theirs. */
async function lockMark(trx: Db, ctx: AppContext, id: number, auth: AuthContext) {
  const q = trx.selectFrom('vehicle_mark').selectAll().where('id', '=', id).where('deleted', '=', 0);
  const row = await (ctx.dialect === 'postgres' ? q.forUpdate() : q).executeTakeFirst();
  if (!row || !(await anyReadable(trx, auth, 'vehicle_mark', [id]))) notFound(NOUN);
  return row!;
}

const assertMarkAllows = (action: MarkAction, status: number) => {
  if (!markAllows(action, status)) fail(ErrorCode.STATE_CONFLICT, markConflictMessage(action));
};

/**
 * A flagged appointment stays red in the all-history list (label_status 1)
 * while an active mark of it remains, with the newest one's reason; once its
 * last active mark is edited away, cancelled or deleted, it is no longer flagged.
 */
async function syncApplicationLabel(trx: Db, applicationId: number | null, now: string, auth: AuthContext, exceptMarkId?: number): Promise<void> {
  if (applicationId == null) return;
  let q = trx.selectFrom('vehicle_mark').select('remark').where('car_application_id', '=', applicationId).where('status', '=', MarkStatus.ACTIVE).where('deleted', '=', 0);
  if (exceptMarkId !== undefined) q = q.where('id', '!=', exceptMarkId);
  const newest = await q.orderBy('id', 'desc').limit(1).executeTakeFirst();
  await trx
    .updateTable('car_application')
    .set({ label_status: newest ? 1 : 0, label_remark: newest?.remark ?? '', update_user_name: auth.userName, update_time: now })
    .where('car_application_id', '=', applicationId)
    .execute();
}

export const vehicleMarksDef = (ctx: AppContext): ResourceDef =>
  defineResource({
    contract: vehicleMarkApi,
    table: 'vehicle_mark',
    softDelete: 'deleted',
    columns,
    readable: readRule('vehicle_mark'),
    // Spec 001 §2: plate and visiting company as text, the four codes as values (-1, all, is no filter).
    filters: Object.fromEntries([...TEXT_FILTERS.map((c) => [c, 'contains'] as const), ...CODE_FILTERS.map((c) => [c, 'equals'] as const)].map(([column, match]) => [column, { column, match }])),
    decorate,
    toRow: (values, w) => (w.mode === 'create' ? { ...values, status: MarkStatus.ACTIVE } : values),
    check: async (values, w, db) => {
      // Only photos the caller may read already (their own uploads, the mark's own) can be put on it.
      await assertFilesUsable(db, w.auth, values.photo);
      const model = values.vehicle_type_id;
      if (typeof model === 'number' && !(await db.selectFrom('vehicle_type').select('id').where('id', '=', model).where('deleted', '=', 0).executeTakeFirst())) {
        throw ruleFailure([{ field: 'vehicle_type_id', message: '所选车型不存在或已被删除' }], vehicleMarkLabels);
      }
    },
    beforeUpdate: async (trx, id, w) => {
      const row = await lockMark(trx, ctx, id, w.auth);
      assertMarkAllows('edit', row.status);
      // A mark made by flagging an appointment is that appointment's vehicle: its plate stays.
      if (row.car_application_id != null && (w.req.body as RowValues).license_plate !== row.license_plate) {
        fail(ErrorCode.STATE_CONFLICT, '该标记来自车辆预约，不能修改车牌号');
      }
    },
    afterWrite: async (trx, _values, w) => {
      const row = await trx.selectFrom('vehicle_mark').select(['photo', 'cancel_photo', 'car_application_id']).where('id', '=', w.id).executeTakeFirstOrThrow();
      // The mark's photos are read by whoever may read the mark (access.ts).
      await recordFileRefs(trx, 'vehicle_mark', w.id, fileNamesIn(row.photo, row.cancel_photo));
      if (w.mode === 'edit') await syncApplicationLabel(trx, row.car_application_id, w.now, w.auth);
    },
    beforeDelete: async (trx, id, auth) => {
      const row = await lockMark(trx, ctx, id, auth);
      await syncApplicationLabel(trx, row.car_application_id, ctx.time(), auth, id);
    },
    stamps: { createUser: 'create_user_id', updateUser: 'update_user_id' },
  });

export async function markRoutes(app: FastifyInstance) {
  const { ctx } = app;
  await registerResource(app, vehicleMarksDef(ctx));

  route(app, vehicleMarkApi.cancel, async (req) => {
    const { id, cancel_reason, cancel_photo } = req.body;
    const auth = req.auth!;
    await ctx.db.transaction().execute(async (trx) => {
      const row = await lockMark(trx, ctx, id, auth);
      assertMarkAllows('cancel', row.status);
      await assertFilesUsable(trx, auth, cancel_photo);
      const now = ctx.time();
      await trx.updateTable('vehicle_mark').set({ status: MarkStatus.CANCELLED, cancel_reason, cancel_photo, update_user_id: auth.userId, update_time: now }).where('id', '=', id).execute();
      await recordFileRefs(trx, 'vehicle_mark', id, fileNamesIn(row.photo, cancel_photo));
      await syncApplicationLabel(trx, row.car_application_id, now, auth);
    });
    return ok(null, '取消成功！');
  });
}
