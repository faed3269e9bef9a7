import type { FastifyInstance } from 'fastify';
import { AppState, ProcessType } from '../../../domain/appointments';
import { ErrorCode } from '../../../domain/errors';
import { REGISTRATION_AREA_ALL, registrationDateErrors, registrationDocuments, vehicleRegistrationApi, vehicleRegistrationLabels } from '../../../domain/schemas/vehicle-registration';
import type { AuthContext } from '../../core/context';
import { fail, ok } from '../../core/errors';
import type { AnySelect, Db, RowValues } from '../../core/repository';
import { route } from '../../core/route';
import { lockSubjectRow } from '../../workflow/engine';
import { ruleFailure } from '../../core/validate';
import { pendingTaskOn } from '../../workflow/subject-actions';
import { approvableRoutes, defineApprovable } from './approvable';
import { withNames } from './lists';

/** Vehicle registrations (车辆备案, spec 001 §2, §3, §7): one declaration of a register under approval, plus the approver's date amend. */

const api = vehicleRegistrationApi;

const columns = [
  'id',
  'application_number',
  'visit_area',
  'visitor_company',
  'license_plate',
  'license_plate_color',
  'total_mass',
  'phone',
  'begin_time',
  'end_time',
  ...registrationDocuments.map(([k]) => k),
  'company_road_transport_number',
  'company_road_transport_begin',
  'company_road_transport_end',
  'road_transport_number',
  'road_transport_begin',
  'road_transport_end',
  'tank_number',
  'tank_volume',
  'tank_medium_range',
  'tank_report_begin',
  'tank_report_end',
  'state',
  'revoke_reason',
  'process_instance_id',
  'create_user_id',
  'update_user_id',
  'create_time',
  'update_time',
] as const;

/** Park 1 or 2 also finds the registrations for both parks (3); 3 itself filters nothing. */
const byArea = (column: string) => (q: AnySelect, value: unknown) => (value === REGISTRATION_AREA_ALL ? q : q.where(column, 'in', [value, REGISTRATION_AREA_ALL]));

/** The filer as spec 001 §3 names it (createUser.user_name), beside the flat name the other registers answer. */
const decorate = async (rows: RowValues[], db: Db) => (await withNames(false)(rows, db)).map((r) => ({ ...r, createUser: r.create_user_name ? { user_name: r.create_user_name } : null }));

export const registrationDef = defineApprovable({
  contract: api,
  table: 'vehicle_registration',
  processType: ProcessType.REGISTRATION,
  own: true,
  numberPrefix: 'VR',
  holdsFiles: true,
  columns,
  filters: {
    application_number: { column: 'application_number', match: 'contains' },
    license_plate: { column: 'license_plate', match: 'contains', upper: true },
    visitor_company: { column: 'visitor_company', match: 'contains' },
    visit_area: { column: 'visit_area', match: byArea('visit_area') },
    state: { column: 'state', match: 'equals' },
    // The time range finds the registrations whose validity overlaps it, as the appointment lists do.
    begin_time: { column: 'end_time', match: (q, v) => q.where('end_time', '>=', v) },
    end_time: { column: 'begin_time', match: (q, v) => q.where('begin_time', '<=', v) },
  },
  taskWhere: (q, values) => (values.visit_area === undefined ? q : byArea('a.visit_area')(q, values.visit_area)),
  rules: (values, today) => registrationDateErrors(values as { begin_time: string; end_time: string }, today),
  decorate,
});

/**
 * The approver may change the validity dates (spec 001 §2, §4 "edit visit
 * date") while they hold a pending task of the registration's instance in the
 * registration queue, hold the queue's check code, and it is under review.
 */
async function amendAllowed(db: Db, auth: AuthContext, id: number, instanceId: number): Promise<boolean> {
  if (!auth.permissions.has(api.amend.permission)) return false;
  return (await pendingTaskOn(db, 'vehicle_registration', id, instanceId, auth.userId, [api.queue]))?.status === AppState.REVIEW;
}

async function amendRoutes(app: FastifyInstance) {
  const { ctx } = app;
  const { db } = ctx;

  route(app, api.canAmend, async (req) => {
    const b = req.body;
    return ok(await amendAllowed(db, req.auth!, b.id, b.process_instance_id));
  });

  route(app, api.amend, async (req) => {
    const b = req.body;
    await db.transaction().execute(async (trx) => {
      // The lock order of engine.ts: the row before its tasks are read, so a decision cannot settle the task in between.
      await lockSubjectRow(trx, ctx, 'vehicle_registration', b.id);
      if (!(await amendAllowed(trx, req.auth!, b.id, b.process_instance_id))) fail(ErrorCode.STATE_CONFLICT, '只有待您审核且处于“审核中”的车辆备案可以修改有效期');
      const errors = registrationDateErrors(b, ctx.time());
      if (errors.length) throw ruleFailure(errors, vehicleRegistrationLabels);
      await trx.updateTable('vehicle_registration').set({ begin_time: b.begin_time, end_time: b.end_time, update_user_id: req.auth!.userId, update_time: ctx.time() }).where('id', '=', b.id).execute();
    });
    return ok(null, '编辑成功！');
  });
}

export async function registrationRoutes(app: FastifyInstance) {
  await approvableRoutes(registrationDef)(app);
  await amendRoutes(app);
}
