import { AppState, ProcessType } from '../../domain/appointments';
import { isMainlandIdNumber } from '../../domain/identity';
import { carListCreate, personListCreate } from '../../domain/schemas/black-white-list';
import { addDays, dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../core/context';
import { fileNamesOfRow, recordFileRefs } from '../core/file-refs';
import type { Db, RowValues } from '../core/repository';
import { fileStoreOf } from '../core/storage';
import type { ApprovableDef } from '../modules/registers/approvable';
import { carListDef, personListDef } from '../modules/registers/lists';
import { actor, BLACK_PLATE, clockAt, rgbPng } from './seed-appointments';
import { walkApproval, type WalkStep } from './seed-walk';

/**
 * Demo vehicle and person black/white lists (spec 001 §2, §4), seeded before
 * the demo appointments, whose black-listed plate (BLACK_PLATE) they list in
 * force. Filed by the security lead (赵敏, who holds the lists' add codes) and
 * decided by the squad, entries in every state of the state table: a draft,
 * one under review, black and white entries in force, a rejected and a
 * revoked one. Parsed by the form's schema and checked by the list's rules on
 * the day each was filed, then moved by the engine, as the routes do.
 */

const SETTING = 'demo_lists_seeded';
/** What the black-listed plate's entry says; the scan screen shows it (tests/api/passes.test.ts). */
const BLACK_PLATE_REASON = '多次在厂区内违规停放且拒不配合安保检查';

interface EntrySeed {
  type: 1 | 2;
  reason: string;
  /** Days in force from the day it was filed (the form's dates start on that day at the earliest). */
  days: number;
  steps: WalkStep[];
  /** Minutes before the seed that it was filed. */
  ago: number;
}
interface CarEntrySeed extends EntrySeed {
  plate: string;
  model: string;
}
interface PersonEntrySeed extends EntrySeed {
  name: string;
  gender: 0 | 1;
  /** The ID number's 17 digits: area, birth date, sequence (odd for men, even for women). */
  id: string;
  face?: boolean;
}

const approved: WalkStep[] = ['submit', 'approve'];

const cars: CarEntrySeed[] = [
  { plate: BLACK_PLATE, model: '小型汽车', type: 1, reason: BLACK_PLATE_REASON, days: 365, steps: approved, ago: 10_000 },
  { plate: '粤LF3T86', model: '重型自卸货车', type: 1, reason: '在厂区主干道超速行驶并强行闯越西门道闸，拒不接受安保检查', days: 180, steps: approved, ago: 7_200 },
  { plate: '粤LH5C21', model: '普通货车', type: 2, reason: '中海壳牌装置抢修保障车辆，检修期间需随时进出厂区', days: 365, steps: approved, ago: 20_000 },
  { plate: '粤LM2Q74', model: '危险化学品运输车', type: 1, reason: '运输危险化学品途中在园区非指定区域停车卸货，经现场查实', days: 365, steps: ['submit'], ago: 180 },
  { plate: '粤LR9D05', model: '小型汽车', type: 1, reason: '多次尾随前车闯入北门车辆道闸', days: 90, steps: [], ago: 45 },
  {
    plate: '粤AX6K18',
    model: '普通货车',
    type: 2,
    reason: '长期为园区企业运送办公及劳保用品，申请列入白名单',
    days: 365,
    ago: 2_900,
    steps: ['submit', ['reject', '白名单仅限园区应急保障及业主单位车辆，普通送货车辆请按车辆预约流程办理']],
  },
  {
    plate: '粤LW7P13',
    model: '混凝土搅拌车',
    type: 1,
    reason: '倒车时撞坏北门升降防撞柱后未报告即驶离现场',
    days: 180,
    ago: 8_600,
    steps: [...approved, ['revoke', '经调取监控核实，防撞柱损坏系设备故障所致，与该车辆无关']],
  },
];

const persons: PersonEntrySeed[] = [
  { name: '邓国平', gender: 0, id: '44132319790512031', type: 1, reason: '在乙烯装置区内吸烟，违反园区禁火管理规定', days: 365, steps: approved, ago: 9_000, face: true },
  { name: '谭志华', gender: 0, id: '44528119850930057', type: 1, reason: '冒用他人身份证件进入园区施工现场', days: 180, steps: approved, ago: 4_300 },
  { name: '陈海燕', gender: 1, id: '44130219880214042', type: 2, reason: '园区消防救援站驻点联络员，应急处置时需随时进入各装置区', days: 365, steps: approved, ago: 15_000, face: true },
  { name: '梁少华', gender: 0, id: '44098219900321073', type: 1, reason: '高处作业多次未按规定系挂安全带，经约谈仍未整改', days: 180, steps: ['submit'], ago: 240 },
  { name: '罗建新', gender: 0, id: '43052419820707015', type: 1, reason: '酒后进入施工现场，与安保人员发生肢体冲突', days: 365, steps: [], ago: 35 },
  {
    name: '叶文杰',
    gender: 0,
    id: '44132219860618019',
    type: 2,
    reason: '承包商项目经理，申请长期免预约进出园区',
    days: 365,
    ago: 3_100,
    steps: ['submit', ['reject', '白名单仅限园区管委会及应急救援人员，承包商人员请按人员预约流程办理']],
  },
  {
    name: '苏永康',
    gender: 0,
    id: '45082119770125035',
    type: 1,
    reason: '未经许可进入罐区动火作业区域拍照',
    days: 180,
    ago: 6_500,
    steps: [...approved, ['revoke', '经核实其为受邀的安全评价人员，已补办入园手续，撤销本条名单']],
  },
];

/** The ID number of a made-up person: the 17 digits and the one check character that makes it valid. */
const idNumber = (body: string) => [...'0123456789X'].map((c) => body + c).find(isMainlandIdNumber)!;

/** A grey head-and-shoulders silhouette standing in for a face photo. */
function facePng(): Buffer {
  return rgbPng(120, 160, (x, y) => {
    const head = (x - 60) ** 2 + (y - 62) ** 2 <= 28 ** 2;
    const shoulders = y > 104 && ((x - 60) / 54) ** 2 + ((y - 164) / 56) ** 2 <= 1;
    return head || shoulders ? [0x9a, 0xa5, 0xb1] : [0xe8, 0xec, 0xf0];
  });
}

/** Seeds the demo lists once (sys_setting 'demo_lists_seeded'); does nothing where the filer or the lists' processes are missing. */
export async function seedDemoLists(ctx: AppContext): Promise<void> {
  const { db } = ctx;
  if (await db.selectFrom('sys_setting').select('value').where('key', '=', SETTING).executeTakeFirst()) return;
  const lead = await actor(ctx, 'lead');
  if (!lead) return;
  const processes = await db.selectFrom('process').select('type').where('type', 'in', [ProcessType.CAR_LIST, ProcessType.PERSON_LIST]).where('deleted', '=', 0).execute();
  if (processes.length < 2) return;
  const models = new Map((await db.selectFrom('vehicle_type').select(['id', 'name']).where('deleted', '=', 0).execute()).map((m) => [m.name, m.id]));
  const carDef = carListDef(ctx);
  const personDef = personListDef(ctx);

  const face = await fileStoreOf(ctx).put(facePng(), 'png');
  const start = ctx.now();

  /** The list's rules beyond the schema (dates from the day it was filed on, a live model), as the save route checks them. */
  const checkRules = async (def: ApprovableDef, values: RowValues, filed: string, trx: Db) => {
    const errors = (await def.rules?.(values, filed, trx)) ?? [];
    if (errors.length) throw new Error(`demo ${def.noun}: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`);
  };
  const dates = (filed: string, days: number) => ({ start_time: dateOf(filed), end_time: addDays(dateOf(filed), days) });
  const stamps = (filed: string) => ({ status: AppState.DRAFT, create_user_id: lead.userId, update_user_id: lead.userId, create_time: filed, update_time: filed });

  await db.transaction().execute(async (trx) => {
    // Oldest first, so ids follow the filing times as they would have.
    for (const s of [...cars].sort((a, b) => b.ago - a.ago)) {
      // A database seeded before the lists went through the engine has its black-listed plate already.
      if (await trx.selectFrom('car_black_white_list').select('id').where('license_plate', '=', s.plate).where('deleted', '=', 0).executeTakeFirst()) continue;
      const filed = clockAt(ctx, start, s.ago).time();
      const parsed = carListCreate.parse({ license_plate: s.plate, vehicle_type_id: models.get(s.model), type: s.type, ...dates(filed, s.days), in_reason: s.reason });
      await checkRules(carDef, parsed, filed, trx);
      const { id } = await trx
        .insertInto('car_black_white_list')
        .values({ ...parsed, vehicle_type_id: parsed.vehicle_type_id ?? null, ...stamps(filed) })
        .returning('id')
        .executeTakeFirstOrThrow();
      await walkApproval(trx, ctx, start, carDef, id, lead.userId, s.ago, s.steps);
    }
    for (const s of [...persons].sort((a, b) => b.ago - a.ago)) {
      const idcard = idNumber(s.id);
      if (await trx.selectFrom('person_black_white_list').select('id').where('idcard', '=', idcard).where('deleted', '=', 0).executeTakeFirst()) continue;
      const filed = clockAt(ctx, start, s.ago).time();
      const parsed = personListCreate.parse({ name: s.name, gender: s.gender, idcard_type: 1, idcard, face_photo: s.face ? face : '', type: s.type, ...dates(filed, s.days), in_reason: s.reason });
      await checkRules(personDef, parsed, filed, trx);
      const { id } = await trx
        .insertInto('person_black_white_list')
        .values({ ...parsed, ...stamps(filed) })
        .returning('id')
        .executeTakeFirstOrThrow();
      // As the list's save does: the face photo is read through the entry.
      await recordFileRefs(trx, 'person_black_white_list', id, fileNamesOfRow('person_black_white_list', parsed));
      await walkApproval(trx, ctx, start, personDef, id, lead.userId, s.ago, s.steps);
    }
    await trx
      .insertInto('sys_setting')
      .values({ key: SETTING, value: ctx.time() })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
  });
}
