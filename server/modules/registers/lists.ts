import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { ProcessType } from '../../../domain/appointments';
import { carListApi, listDateErrors, personListApi, Validity } from '../../../domain/schemas/black-white-list';
import { dateOf } from '../../../domain/visit-rules';
import type { AppContext } from '../../core/context';
import type { AnySelect, Db, RowValues } from '../../core/repository';
import { approvableRoutes, defineApprovable, type ApprovableDef } from './approvable';

/** Vehicle and person black/white lists (spec 001 §2, §3, §7): two declarations of a register under approval. */

const shared = ['id', 'type', 'start_time', 'end_time', 'status', 'in_reason', 'revoke_reason', 'process_instance_id', 'create_user_id', 'update_user_id', 'create_time', 'update_time'] as const;

/** Validity (our codes): in force today, not yet begun, ended; by the entry's dates alone, whatever its state. */
const byValidity = (ctx: AppContext) => (q: AnySelect, value: unknown) => {
  const day = dateOf(ctx.time());
  if (value === Validity.CURRENT)
    return q
      .where((eb) => eb.or([eb('start_time', 'is', null), eb('start_time', '<=', `${day} 23:59:59`)]))
      .where((eb) => eb.or([eb('end_time', 'is', null), eb('end_time', '>=', `${day} 00:00:00`)]));
  if (value === Validity.FUTURE) return q.where('start_time', '>', `${day} 23:59:59`);
  if (value === Validity.ENDED) return q.where('end_time', '<', `${day} 00:00:00`);
  return q;
};

/** The filer's name beside each row, and the model's for vehicles. */
export const withNames = (models: boolean) => async (rows: RowValues[], db: Db) => {
  const anyDb = db as unknown as Kysely<any>;
  const userIds = [...new Set(rows.map((r) => r.create_user_id).filter((v): v is number => typeof v === 'number'))];
  const users = new Map<number, string>(
    userIds.length ? (await anyDb.selectFrom('sys_user').select(['user_id', 'user_name']).where('user_id', 'in', userIds).execute()).map((u) => [u.user_id, u.user_name]) : [],
  );
  const typeIds = models ? [...new Set(rows.map((r) => r.vehicle_type_id).filter((v): v is number => typeof v === 'number'))] : [];
  const types = new Map<number, string>(typeIds.length ? (await anyDb.selectFrom('vehicle_type').select(['id', 'name']).where('id', 'in', typeIds).execute()).map((t) => [t.id, t.name]) : []);
  return rows.map((r) => ({
    ...r,
    create_user_name: users.get(r.create_user_id as number) ?? null,
    ...(models ? { vehicle_type_name: types.get(r.vehicle_type_id as number) ?? null } : {}),
  }));
};

const dateRules = (values: RowValues, today: string) => listDateErrors(values as { start_time?: string; end_time?: string }, today);

export const carListDef = (ctx: AppContext): ApprovableDef =>
  defineApprovable({
    contract: carListApi,
    table: 'car_black_white_list',
    processType: ProcessType.CAR_LIST,
    columns: [...shared, 'license_plate', 'vehicle_type_id'],
    filters: {
      license_plate: { column: 'license_plate', match: 'contains', upper: true },
      type: { column: 'type', match: 'equals' },
      status: { column: 'status', match: 'equals' },
      validity: { column: 'end_time', match: byValidity(ctx) },
    },
    rules: async (values, today, db) => {
      const errors = dateRules(values, today);
      if (typeof values.vehicle_type_id === 'number' && !(await db.selectFrom('vehicle_type').select('id').where('id', '=', values.vehicle_type_id).where('deleted', '=', 0).executeTakeFirst())) {
        errors.push({ field: 'vehicle_type_id', message: '所选车型不存在或已被删除' });
      }
      return errors;
    },
    decorate: withNames(true),
  });

export const personListDef = (ctx: AppContext): ApprovableDef =>
  defineApprovable({
    contract: personListApi,
    table: 'person_black_white_list',
    processType: ProcessType.PERSON_LIST,
    columns: [...shared, 'name', 'gender', 'idcard_type', 'idcard', 'face_photo'],
    filters: {
      name: { column: 'name', match: 'contains' },
      idcard: { column: 'idcard', match: 'contains' },
      type: { column: 'type', match: 'equals' },
      status: { column: 'status', match: 'equals' },
      validity: { column: 'end_time', match: byValidity(ctx) },
    },
    rules: dateRules,
    holdsFiles: true,
    decorate: withNames(false),
  });

export async function listRoutes(app: FastifyInstance) {
  await approvableRoutes(carListDef(app.ctx))(app);
  await approvableRoutes(personListDef(app.ctx))(app);
}
