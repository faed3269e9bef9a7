import type { Kysely } from 'kysely';
import type { Dialect } from '../index';
import { withId } from './001-foundation';

const time = 'varchar(19)';

/** The document columns: ';'-joined stored file names. */
const registrationImageColumns = [
  'registry_img',
  'business_license_img',
  'company_road_transport_img',
  'legal_person_idcard_img',
  'driver_info_img',
  'supercargo_info_img',
  'driving_permit_img',
  'road_transport_img',
  'compulsory_insurance_img',
  'commercial_insurance_img',
  'carrier_liability_insurance_img',
  'report_instruction_img',
  'commitment_letter_img',
  'gps_instruction_img',
] as const;

/**
 * Vehicle registrations (spec 001 §3, DESIGN.md §7): a register under
 * approval whose approved rows let a need_record model be booked. Indexes
 * follow the filer's own list and the submit check (plate and state).
 *
 * Databases seeded before this release: the registration history codes
 * leave the enterprise contact (the history lists every registration of the
 * park) for the squad reviewer, and the seeded registration process, whose
 * visited-enterprise node could never find a reviewer (a registration visits
 * no department), starts at the hazardous-goods node instead. No instance can
 * use that process yet: the table it approves is created here.
 */
export function vehicleRegistration(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      let t = withId(db.schema.createTable('vehicle_registration'), 'id', dialect)
        .addColumn('application_number', 'varchar(32)')
        .addColumn('visit_area', 'integer', (c) => c.notNull())
        .addColumn('visitor_company', 'varchar(60)', (c) => c.notNull())
        .addColumn('license_plate', 'varchar(16)', (c) => c.notNull())
        .addColumn('license_plate_color', 'integer')
        .addColumn('total_mass', 'double precision')
        .addColumn('phone', 'varchar(20)', (c) => c.notNull())
        .addColumn('begin_time', time, (c) => c.notNull())
        .addColumn('end_time', time, (c) => c.notNull());
      for (const column of registrationImageColumns) t = t.addColumn(column, 'text', (c) => c.notNull().defaultTo(''));
      await t
        .addColumn('company_road_transport_number', 'varchar(50)', (c) => c.notNull().defaultTo(''))
        .addColumn('company_road_transport_begin', time)
        .addColumn('company_road_transport_end', time)
        .addColumn('road_transport_number', 'varchar(50)', (c) => c.notNull().defaultTo(''))
        .addColumn('road_transport_begin', time)
        .addColumn('road_transport_end', time)
        .addColumn('tank_number', 'varchar(50)', (c) => c.notNull().defaultTo(''))
        .addColumn('tank_volume', 'double precision')
        .addColumn('tank_medium_range', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('tank_report_begin', time)
        .addColumn('tank_report_end', time)
        .addColumn('state', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('revoke_reason', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('process_instance_id', 'integer')
        .addColumn('create_user_id', 'integer')
        .addColumn('update_user_id', 'integer')
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('vehicle_registration_own').on('vehicle_registration').columns(['create_user_id', 'deleted', 'id']).execute();
      await db.schema.createIndex('vehicle_registration_plate').on('vehicle_registration').columns(['license_plate', 'state']).execute();

      await moveHistoryCodes(db);
      await registrationChainFromHazmat(db);
    },
  };
}

const roleId = async (db: Kysely<any>, code: string): Promise<number | undefined> =>
  (await db.selectFrom('sys_role').select('role_id').where('code', '=', code).where('deleted', '=', 0).executeTakeFirst())?.role_id;

async function moveHistoryCodes(db: Kysely<any>) {
  const codes = ['menu:carRegistrationHistory', 'carRegistrationHistory:list', 'carRegistrationHistory:revoke'];
  const ids = (await db.selectFrom('sys_permission').select('permission_id').where('code', 'in', codes).where('deleted', '=', 0).execute()).map((r) => r.permission_id as number);
  if (!ids.length) return;
  const contact = await roleId(db, 'enterprise_contact');
  if (contact !== undefined) await db.deleteFrom('sys_role_permission').where('role_id', '=', contact).where('permission_id', 'in', ids).execute();
  const squad = await roleId(db, 'squad_reviewer');
  if (squad === undefined) return;
  const held = new Set((await db.selectFrom('sys_role_permission').select('permission_id').where('role_id', '=', squad).execute()).map((r) => r.permission_id as number));
  const missing = ids.filter((id) => !held.has(id));
  if (missing.length)
    await db
      .insertInto('sys_role_permission')
      .values(missing.map((permission_id) => ({ role_id: squad, permission_id })))
      .execute();
}

async function registrationChainFromHazmat(db: Kysely<any>) {
  const REGISTRATION = 6;
  const process = await db.selectFrom('process').select('process_definition_id').where('type', '=', REGISTRATION).where('deleted', '=', 0).executeTakeFirst();
  if (!process) return;
  const first = await db
    .selectFrom('process_definition_node as d')
    .innerJoin('process_node as n', 'n.process_node_id', 'd.process_node_id')
    .select(['d.definition_node_id', 'n.company_check'])
    .where('d.process_definition_id', '=', process.process_definition_id)
    .orderBy('d.sort')
    .limit(1)
    .executeTakeFirst();
  if (!first || first.company_check !== 1) return;
  const hazard = await roleId(db, 'hazard_reviewer');
  if (hazard === undefined) return;
  const node = await db
    .selectFrom('process_node')
    .select(['process_node_id', 'name'])
    .where('role_id', '=', hazard)
    .where('company_check', '=', 0)
    .where('deleted', '=', 0)
    .orderBy('process_node_id')
    .executeTakeFirst();
  if (!node) return;
  await db.updateTable('process_definition_node').set({ process_node_id: node.process_node_id, name: node.name }).where('definition_node_id', '=', first.definition_node_id).execute();
  // The definition's remark reads its chain (seed-processes.ts).
  const chain = await db.selectFrom('process_definition_node').select('name').where('process_definition_id', '=', process.process_definition_id).orderBy('sort').execute();
  await db
    .updateTable('process_definition')
    .set({ remark: chain.map((n) => n.name).join(' → ') })
    .where('process_definition_id', '=', process.process_definition_id)
    .execute();
}
