import type { Kysely } from 'kysely';
import { AppState, ProcessType, isHazardousModel } from '../../domain/appointments';
import { vehicleRegistrationCreate } from '../../domain/schemas/vehicle-registration';
import { addDays, addMonths, dateOf } from '../../domain/visit-rules';
import type { AppContext, AuthContext } from '../core/context';
import { fileNamesOfRow, recordFileRefs } from '../core/file-refs';
import { fileStoreOf } from '../core/storage';
import { applicationNumber } from '../modules/registers/approvable';
import { registrationDef } from '../modules/registers/registrations';
import { actor, clockAt, demoVehicles, rgbPng } from './seed-appointments';
import { walkApproval, type WalkStep } from './seed-walk';

/**
 * Demo vehicle registrations (车辆备案), seeded before the demo appointments:
 * every demo vehicle whose model needs a registration (need_record = 1) gets
 * an approved one covering its visit, or its submit would be refused
 * (DESIGN.md §7). Besides those: one waiting for the hazardous-goods
 * department, one waiting for the squad, a draft and a rejected one. Parsed
 * by the form's schema and moved by the engine, as the routes do; numbered and
 * file-referenced as the register's save does.
 */

const SETTING = 'demo_registrations_seeded';

interface RegistrationSeed {
  by: 'contact' | 'portcontact';
  plate: string;
  color: number;
  company: string;
  mass: number;
  hazardous: boolean;
  steps: WalkStep[];
  /** Minutes before the seed that it was filed. */
  ago: number;
}

/** Filed ten days ago, the approved ones were decided long before any demo appointment was submitted. */
const APPROVED_AGO = 14_400;
const massOf = (model: string) => (model.includes('客车') ? 18 : model.includes('搅拌') ? 31 : 49);

const extras: RegistrationSeed[] = [
  { by: 'contact', plate: '粤LB6032', color: 1, company: '惠州市鹏程客运有限公司', mass: 18, hazardous: false, steps: ['submit'], ago: 200 },
  { by: 'contact', plate: '粤LK7720', color: 1, company: '惠州市恒通危险品运输有限公司', mass: 49, hazardous: true, steps: ['submit', 'approve'], ago: 700 },
  { by: 'contact', plate: '粤LD3391', color: 1, company: '东莞市宏达混凝土有限公司', mass: 31, hazardous: false, steps: [], ago: 30 },
  {
    by: 'portcontact',
    plate: '粤LJ5208',
    color: 1,
    company: '惠州市建安土石方工程有限公司',
    mass: 31,
    hazardous: false,
    steps: ['submit', ['reject', '道路运输证已过期，请上传有效证件后重新提交']],
    ago: 2200,
  },
];

function values(s: RegistrationSeed, seq: number, begin: string, photo: string) {
  return {
    license_plate: s.plate,
    license_plate_color: s.color,
    visit_area: s.by === 'portcontact' ? 3 : 1,
    visitor_company: s.company,
    phone: `1372200${String(1000 + seq).slice(-4)}`,
    total_mass: s.mass,
    // A registration lasts at most a year (DESIGN.md §7).
    begin_time: begin,
    end_time: addMonths(begin, 12),
    registry_img: photo,
    business_license_img: photo,
    driving_permit_img: photo,
    road_transport_img: photo,
    compulsory_insurance_img: photo,
    commercial_insurance_img: photo,
    company_road_transport_number: `粤交运管许可惠字4413000${seq}号`,
    company_road_transport_begin: addDays(begin, -200),
    company_road_transport_end: addDays(begin, 900),
    road_transport_number: `441300${String(100000 + seq)}`,
    road_transport_begin: addDays(begin, -100),
    road_transport_end: addDays(begin, 600),
    ...(s.hazardous
      ? {
          carrier_liability_insurance_img: photo,
          gps_instruction_img: photo,
          tank_number: `GT-${seq}`,
          tank_volume: 30,
          tank_medium_range: '液碱、次氯酸钠溶液、乙二醇',
          tank_report_begin: addDays(begin, -30),
          tank_report_end: addDays(begin, 335),
        }
      : {}),
  };
}

/** Seeds the demo registrations once (sys_setting 'demo_registrations_seeded'); does nothing where the demo accounts or processes are missing. */
export async function seedDemoRegistrations(ctx: AppContext): Promise<void> {
  const { db } = ctx;
  if (await db.selectFrom('sys_setting').select('value').where('key', '=', SETTING).executeTakeFirst()) return;
  const owners = new Map<string, AuthContext>();
  for (const account of ['contact', 'portcontact'] as const) {
    const a = await actor(ctx, account);
    if (!a) return;
    owners.set(account, a);
  }
  if (!(await db.selectFrom('process').select('process_id').where('type', '=', ProcessType.REGISTRATION).where('deleted', '=', 0).executeTakeFirst())) return;
  const needsRecord = new Set((await db.selectFrom('vehicle_type').select('name').where('need_record', '=', 1).where('deleted', '=', 0).execute()).map((m) => m.name));
  const registered: RegistrationSeed[] = demoVehicles
    .filter((v) => needsRecord.has(v.model))
    .map((v) => ({
      by: v.by,
      plate: v.plate,
      color: v.color,
      company: v.company,
      mass: massOf(v.model),
      hazardous: isHazardousModel(v.model),
      steps: ['submit', 'approve', 'approve'],
      ago: APPROVED_AGO,
    }));

  // A pale page standing in for a scanned certificate.
  const photo = await fileStoreOf(ctx).put(
    rgbPng(240, 320, (x, y) => (y % 20 === 0 && x > 16 && x < 224 ? [0xc4, 0xb8, 0xa8] : [0xfa, 0xf7, 0xf2])),
    'png',
  );
  const start = ctx.now();
  const today = dateOf(ctx.time());

  await db.transaction().execute(async (trx) => {
    let seq = 0;
    for (const s of [...registered, ...extras]) {
      const owner = owners.get(s.by)!;
      const filed = clockAt(ctx, start, s.ago).time();
      // Valid from the day it was filed, so it covers every demo visit of the coming months.
      const parsed = vehicleRegistrationCreate.parse(values(s, ++seq, addDays(today, -Math.ceil(s.ago / 1440)), photo));
      const { id } = await trx
        .insertInto('vehicle_registration')
        .values({ ...parsed, state: AppState.DRAFT, create_user_id: owner.userId, create_time: filed, update_time: filed })
        .returning('id')
        .executeTakeFirstOrThrow();
      await (trx as unknown as Kysely<any>)
        .updateTable('vehicle_registration')
        .set({ application_number: applicationNumber(registrationDef.numberPrefix!, filed, id) })
        .where('id', '=', id)
        .execute();
      await recordFileRefs(trx, 'vehicle_registration', id, fileNamesOfRow('vehicle_registration', parsed));

      await walkApproval(trx, ctx, start, registrationDef, id, owner.userId, s.ago, s.steps);
    }
    await trx
      .insertInto('sys_setting')
      .values({ key: SETTING, value: ctx.time() })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
  });
}
