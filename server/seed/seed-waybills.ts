import type { Kysely } from 'kysely';
import { AppState, ProcessType } from '../../domain/appointments';
import { transportListCreate } from '../../domain/schemas/transport-list';
import { addDays, dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../core/context';
import { fileNamesOfRow, recordFileRefs } from '../core/file-refs';
import { fileStoreOf } from '../core/storage';
import { applicationNumber } from '../modules/registers/approvable';
import { waybillDef } from '../modules/registers/waybills';
import { actor, clockAt, rgbPng } from './seed-appointments';
import { walkApproval, type WalkStep } from './seed-walk';

/**
 * Demo waybills of the contact (王芳): a draft, one waiting for the
 * hazardous-goods department, one waiting for the squad, two approved by both
 * (the ones a hazardous-goods appointment can take its cargo from) and one
 * rejected; and, filed by the administrator for the carrier, the approved waybill of the
 * tanker that visits today. Parsed by the form's schema and moved by the engine, as the routes
 * do; numbered and file-referenced as the register's save does.
 */

const SETTING = 'demo_waybills_seeded';

interface WaybillSeed {
  plate: string;
  type: 1 | 2;
  cargo: string;
  quantity: number;
  trailer?: string;
  tank?: number;
  driver: [name: string, phone: string];
  /** Days from today to the shipment. */
  ship: number;
  steps: WalkStep[];
  /** Minutes before the seed that the waybill was filed. */
  ago: number;
  /** Who filed it, when not the demo contact. */
  by?: string;
}

const seeds: WaybillSeed[] = [
  { plate: '粤L7W301', type: 2, cargo: '乙二醇', quantity: 28, driver: ['黎志强', '13922001101'], ship: 3, steps: [], ago: 60 },
  { plate: '粤L7W302', type: 1, cargo: '苯乙烯', quantity: 25, tank: 32, driver: ['冯建国', '13922001102'], ship: 2, steps: ['submit'], ago: 240 },
  { plate: '粤L7W303', type: 2, cargo: '次氯酸钠溶液', quantity: 20, driver: ['何永红', '13922001103'], ship: 2, steps: ['submit', 'approve'], ago: 900 },
  { plate: '粤L7W304', type: 1, cargo: '丙烯腈', quantity: 26, trailer: '粤L0304挂', tank: 30, driver: ['陆海涛', '13922001104'], ship: 1, steps: ['submit', 'approve', 'approve'], ago: 3000 },
  { plate: '粤L7W305', type: 2, cargo: '液碱', quantity: 30, tank: 25, driver: ['邓小军', '13922001105'], ship: 4, steps: ['submit', 'approve', 'approve'], ago: 5200 },
  { plate: '粤L7W306', type: 1, cargo: '甲醇', quantity: 24, driver: ['袁志明', '13922001106'], ship: 2, steps: ['submit', ['reject', '驾驶员从业资格证已过期，请更新后重新提交']], ago: 1500 },
  // The tanker among today's visits (seed-appointments.ts 粤LK7720): the gate lets a hazardous-goods vehicle in only with an approved waybill covering the day (domain/gate.ts).
  { plate: '粤LK7720', type: 2, cargo: '液氮', quantity: 20, tank: 25, driver: ['钟华', '15912345625'], ship: 0, steps: ['submit', 'approve', 'approve'], ago: 2000, by: 'admin' },
];

const CARRIER = '惠州市大亚湾恒通危险品运输有限公司';
const PARK_SITE = '中海壳牌石化大道罐区';

function values(s: WaybillSeed, seq: number, today: string, annex: string) {
  const pickUp = s.type === 1;
  return {
    transport_type: s.type,
    list_number: `4413002026${String(seq).padStart(8, '0')}`,
    cargo_name: s.cargo,
    cargo_quantity: s.quantity,
    enterprise: CARRIER,
    unified_social_credit_code: '91441300MA4W8K2L5T',
    business_license_number: '粤交运管许可惠字441300012345号',
    contact_phone: '0752-5568899',
    license_plate: s.plate,
    license_plate_color: 1,
    vehicle_transport_license: `粤交运管惠字4413000${seq}号`,
    trailer_license: s.trailer ?? '',
    trailer_transport_license: s.trailer ? `粤交运管惠字4413009${seq}号` : '',
    tank_volume: s.tank ?? null,
    driver: s.driver[0],
    driver_qualification_certificate: `44130020190${seq}`,
    driver_phone: s.driver[1],
    supercargo: '罗小明',
    supercargo_qualification_certificate: '4413002020005678',
    supercargo_phone: '13600011122',
    shipper: pickUp ? '中海壳牌石油化工有限公司' : '惠州宇新化工有限责任公司',
    shipper_phone: '0752-5561000',
    recipient: pickUp ? '东莞市立沙岛化工仓储有限公司' : '中海壳牌石油化工有限公司',
    recipient_phone: '0752-5562000',
    carrier: CARRIER,
    carrier_phone: '0752-5568899',
    loader: '钟伟',
    loader_phone: '13600022233',
    shipment_date: addDays(today, s.ship),
    shipment_addr: pickUp ? PARK_SITE : '惠州市大亚湾石化区宇新化工厂区',
    destination: pickUp ? '东莞市立沙岛化工码头' : PARK_SITE,
    annex,
  };
}

/** Seeds the demo waybills once (sys_setting 'demo_waybills_seeded'); does nothing where the demo accounts or processes are missing. */
export async function seedDemoWaybills(ctx: AppContext): Promise<void> {
  const { db } = ctx;
  if (await db.selectFrom('sys_setting').select('value').where('key', '=', SETTING).executeTakeFirst()) return;
  const owner = await actor(ctx, 'contact');
  if (!owner) return;
  if (!(await db.selectFrom('process').select('process_id').where('type', '=', ProcessType.WAYBILL).where('deleted', '=', 0).executeTakeFirst())) return;

  // A pale sheet standing in for the scanned waybill.
  const annex = await fileStoreOf(ctx).put(
    rgbPng(240, 320, (x, y) => (y % 24 === 0 && x > 20 && x < 220 ? [0xb0, 0xb8, 0xc4] : [0xf6, 0xf7, 0xf9])),
    'png',
  );
  const start = ctx.now();
  const today = dateOf(ctx.time());
  // Read before the transaction: on SQLite its one connection is the transaction's until it ends.
  const filers = new Map<string, NonNullable<Awaited<ReturnType<typeof actor>>>>();
  for (const by of new Set(seeds.map((s) => s.by).filter((b): b is string => !!b))) {
    const a = await actor(ctx, by);
    if (a) filers.set(by, a);
  }

  await db.transaction().execute(async (trx) => {
    let seq = 0;
    // Oldest first, so ids follow the filing times as they would have.
    for (const s of [...seeds].sort((a, b) => b.ago - a.ago)) {
      const filer = (s.by && filers.get(s.by)) || owner;
      const filed = clockAt(ctx, start, s.ago).time();
      const parsed = transportListCreate.parse(values(s, ++seq, today, annex));
      const { id } = await trx
        .insertInto('transport_list')
        .values({ ...parsed, state: AppState.DRAFT, create_user_id: filer.userId, update_user_id: filer.userId, create_time: filed, update_time: filed })
        .returning('id')
        .executeTakeFirstOrThrow();
      await (trx as unknown as Kysely<any>)
        .updateTable('transport_list')
        .set({ application_number: applicationNumber(waybillDef.numberPrefix!, filed, id) })
        .where('id', '=', id)
        .execute();
      await recordFileRefs(trx, 'transport_list', id, fileNamesOfRow('transport_list', parsed));

      await walkApproval(trx, ctx, start, waybillDef, id, filer.userId, s.ago, s.steps);
    }
    await trx
      .insertInto('sys_setting')
      .values({ key: SETTING, value: ctx.time() })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
  });
}
