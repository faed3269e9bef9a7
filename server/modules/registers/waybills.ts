import type { FastifyInstance } from 'fastify';
import { AppState, ProcessType } from '../../../domain/appointments';
import { transportListApi, waybillCargoInfo, type TransportListRow, type WaybillOption } from '../../../domain/schemas/transport-list';
import { ok } from '../../core/errors';
import { answerInClear } from '../../core/personal-data';
import type { AnySelect } from '../../core/repository';
import { route } from '../../core/route';
import { approvableRoutes, defineApprovable } from './approvable';
import { withNames } from './lists';

/** Transport waybills (运单, spec 001 §2, §3, §7): one declaration of a register under approval, filed by its carrier. */

const columns = [
  'id',
  'application_number',
  'transport_type',
  'list_number',
  'cargo_name',
  'cargo_quantity',
  'cargo_unit',
  'enterprise',
  'unified_social_credit_code',
  'business_license_number',
  'contact_phone',
  'license_plate',
  'license_plate_color',
  'vehicle_transport_license',
  'trailer_license',
  'trailer_transport_license',
  'tank_volume',
  'driver',
  'driver_qualification_certificate',
  'driver_phone',
  'supercargo',
  'supercargo_qualification_certificate',
  'supercargo_phone',
  'shipper',
  'shipper_phone',
  'recipient',
  'recipient_phone',
  'carrier',
  'carrier_phone',
  'loader',
  'loader_phone',
  'shipment_date',
  'shipment_addr',
  'destination',
  'annex',
  'state',
  'revoke_reason',
  'process_instance_id',
  'create_user_id',
  'update_user_id',
  'create_time',
  'update_time',
] as const;

/** How many approved waybills the appointment form offers: the newest; older ones are rarely still on the road. */
export const WAYBILL_OPTIONS_LIMIT = 50;

export const waybillDef = defineApprovable({
  contract: transportListApi,
  table: 'transport_list',
  processType: ProcessType.WAYBILL,
  own: true,
  numberPrefix: 'TL',
  holdsFiles: true,
  columns,
  filters: {
    application_number: { column: 'application_number', match: 'contains' },
    license_plate: { column: 'license_plate', match: 'contains', upper: true },
    enterprise: { column: 'enterprise', match: 'contains' },
    transport_type: { column: 'transport_type', match: 'equals' },
    state: { column: 'state', match: 'equals' },
    shipment_begin: { column: 'shipment_date', match: (q: AnySelect, v) => q.where('shipment_date', '>=', v) },
    shipment_end: { column: 'shipment_date', match: (q: AnySelect, v) => q.where('shipment_date', '<=', v) },
  },
  decorate: withNames(false),
});

export async function waybillRoutes(app: FastifyInstance) {
  await approvableRoutes(waybillDef)(app);
  const { db } = app.ctx;

  route(app, transportListApi.approvedOptions, async (req) => {
    let q = db.selectFrom('transport_list').selectAll().where('create_user_id', '=', req.auth!.userId).where('state', '=', AppState.APPROVED).where('deleted', '=', 0);
    if (req.body.license_plate) q = q.where('license_plate', '=', req.body.license_plate.toUpperCase());
    const rows = (await q.orderBy('id', 'desc').limit(WAYBILL_OPTIONS_LIMIT).execute()) as unknown as TransportListRow[];
    const options: WaybillOption[] = rows.map((r) => ({
      id: r.id,
      application_number: r.application_number ?? '',
      license_plate: r.license_plate,
      cargo_name: r.cargo_name,
      shipment_date: r.shipment_date,
      cargo_info: waybillCargoInfo(r),
    }));
    // The filer's own waybills, whose numbers they typed, copied into a new appointment: a masked copy would be refused there.
    answerInClear(req);
    return ok(options);
  });
}
