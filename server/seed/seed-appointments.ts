import { crc32, deflateSync } from 'node:zlib';
import type { Kysely, Transaction } from 'kysely';
import { appointmentKinds } from '../../domain/appointment-kinds';
import { ProcessType, TaskResult, TaskState, type AppointmentKind } from '../../domain/appointments';
import { formatInZone } from '../../domain/time';
import { addDays, dateOf } from '../../domain/visit-rules';
import type { AppContext, AuthContext } from '../core/context';
import { recordFileRefs } from '../core/file-refs';
import { fileStoreOf } from '../core/storage';
import { kinds } from '../modules/appointments/kinds';
import { delayApplication, revokeApplication, saveApplication, submitApplication } from '../modules/appointments/service';
import { decide } from '../workflow/engine';
import type { DB } from '../db/schema';

/**
 * Demo appointments (DESIGN.md §3: every screen shows data on first start):
 * drafts, applications waiting at every node of every process type (so each
 * queue of reviewer, hazard and squad has rows), approved, rejected, revoked,
 * a delayed and a flagged vehicle, and a black-listed plate with a draft.
 * Everything goes through the real paths (save, submit, decide, revoke,
 * delay), with visit dates relative to today, so the data obeys every rule.
 */

const SETTING = 'demo_appointments_seeded';

// ---------------------------------------------------------------- a placeholder picture for required photos

function chunk(type: string, data: Buffer) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
/** A PNG of 8-bit RGB pixels (no alpha, no filtering); `pixel(x, y)` gives each pixel's [red, green, blue]. */
export function rgbPng(width: number, height: number, pixel: (x: number, y: number) => readonly [number, number, number]): Buffer {
  const stride = width * 3 + 1;
  // Each scanline starts with its filter type, 0 (none); Buffer.alloc leaves it 0.
  const raw = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) raw.set(pixel(x, y), y * stride + 1 + x * 3);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: truecolour
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}
/** A 320×240 grey-blue PNG with a darker frame: stands in for the photos a model requires. */
function placeholderPng(): Buffer {
  const w = 320,
    h = 240;
  return rgbPng(w, h, (x, y) => (x < 6 || y < 6 || x >= w - 6 || y >= h - 6 ? [0x8a, 0x9b, 0xb0] : [0xdd, 0xe4, 0xee]));
}

// ---------------------------------------------------------------- people

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
/** A well-formed resident ID number (GB 11643 check character) for a made-up person. */
function idNumber(area: string, birth: string, seq: number): string {
  const body = `${area}${birth}${String(seq).padStart(3, '0')}`;
  const sum = ID_WEIGHTS.reduce((s, wgt, i) => s + wgt * Number(body[i]), 0);
  return body + '10X98765432'[sum % 11];
}

// ---------------------------------------------------------------- the scenarios

/** What happens after saving: submit, the current node approves or rejects, the applicant revokes or delays, a patrol flags. */
type Step = 'submit' | 'approve' | ['reject', string] | ['revoke', string] | ['delay', number, string] | ['flag', string];

interface CarSeed {
  by: 'contact' | 'portcontact';
  model: string;
  plate: string;
  color: number;
  applicant: [name: string, gender: 0 | 1, phone: string, birth: string];
  company: string;
  content: string;
  type: 1 | 2 | 3 | 4;
  /** Days from today to the visit's first day and its length: at least 3 days after the day it was filed (`ago`), as the visit rules ask. */
  from: number;
  days: number;
  cargo?: 0 | 1;
  cargoName?: string;
  load?: number;
  driver?: [name: string, phone: string, birth: string];
  steps: Step[];
  /** How long ago it was created, in minutes; the steps follow a few minutes apart. */
  ago: number;
}

interface PersonSeed {
  by: 'contact' | 'portcontact';
  visitor: [name: string, gender: 0 | 1, phone: string, birth: string];
  company: string;
  address: string;
  type: 1 | 2 | 3 | 4;
  content: string;
  from: number;
  days: number;
  steps: Step[];
  ago: number;
}

/** Listed black and in force by seed-lists.ts before these run: its draft below is saved black-listed. */
export const BLACK_PLATE = '粤L7B359';

const cars: CarSeed[] = [
  // 王芳 (中海壳牌) — drafts
  {
    by: 'contact',
    model: '小型汽车',
    plate: '粤L3K5Q8',
    color: 2,
    applicant: ['陈志强', 0, '13712345601', '19850312'],
    company: '广州石化设备检修有限公司',
    content: '压缩机组例行检修，携带检测仪器',
    type: 3,
    from: 4,
    days: 2,
    steps: [],
    ago: 90,
  },
  {
    by: 'contact',
    model: '普通货车',
    plate: '粤LB2671',
    color: 1,
    applicant: ['李建华', 0, '13822345602', '19790624'],
    company: '惠州华达物流有限公司',
    content: '运送装置大修备品备件',
    type: 2,
    from: 5,
    days: 20,
    cargo: 0,
    cargoName: '阀门、法兰等备件',
    load: 8,
    steps: [],
    ago: 60,
  },
  {
    by: 'contact',
    model: '小型汽车',
    plate: BLACK_PLATE,
    color: 2,
    applicant: ['赵国强', 0, '13922345603', '19820917'],
    company: '惠州市顺风汽车服务有限公司',
    content: '接送外来施工人员',
    type: 3,
    from: 3,
    days: 1,
    steps: [],
    ago: 40,
  },
  // under review at each node of each vehicle process
  {
    by: 'contact',
    model: '小型汽车',
    plate: '粤LD1208',
    color: 2,
    applicant: ['张伟明', 0, '13612345604', '19880105'],
    company: '惠州大亚湾安泰消防工程有限公司',
    content: '消防设施年度检测',
    type: 3,
    from: 3,
    days: 3,
    steps: ['submit'],
    ago: 300,
  },
  {
    by: 'contact',
    model: '重型自卸货车',
    plate: '粤LF5532',
    color: 1,
    applicant: ['刘海涛', 0, '13512345605', '19761130'],
    company: '中建三局第一建设工程有限责任公司',
    content: '二期罐区地基土方清运',
    type: 1,
    from: 5,
    days: 25,
    cargo: 0,
    cargoName: '土方',
    load: 25,
    driver: ['刘海涛', '13512345605', '19761130'],
    steps: ['submit'],
    ago: 280,
  },
  {
    by: 'contact',
    model: '重型自卸货车',
    plate: '粤LH0917',
    color: 1,
    applicant: ['黄国栋', 0, '13412345606', '19800418'],
    company: '中建三局第一建设工程有限责任公司',
    content: '二期罐区余泥外运',
    type: 1,
    from: 6,
    days: 25,
    cargo: 0,
    cargoName: '余泥',
    load: 22,
    steps: ['submit', 'approve'],
    ago: 260,
  },
  {
    by: 'contact',
    model: '中型客车',
    plate: '粤LK3386',
    color: 1,
    applicant: ['周俊杰', 0, '13312345607', '19870722'],
    company: '惠州市鹏程客运有限公司',
    content: '接送检修人员上下班',
    type: 1,
    from: 4,
    days: 28,
    driver: ['周俊杰', '13312345607', '19870722'],
    steps: ['submit'],
    ago: 240,
  },
  {
    by: 'contact',
    model: '大型客车',
    plate: '粤LM6210',
    color: 1,
    applicant: ['吴晓东', 0, '13212345608', '19830203'],
    company: '惠州市鹏程客运有限公司',
    content: '大修期间接送施工队伍',
    type: 2,
    from: 7,
    days: 21,
    steps: ['submit', 'approve'],
    ago: 220,
  },
  {
    by: 'contact',
    model: '危险化学品运输车',
    plate: '粤LN8843',
    color: 1,
    applicant: ['郑文斌', 0, '13112345609', '19781009'],
    company: '惠州市恒通危险品运输有限公司',
    content: '液碱原料送货入厂',
    type: 3,
    from: 3,
    days: 2,
    cargo: 1,
    cargoName: '氢氧化钠溶液',
    load: 28,
    steps: ['submit'],
    ago: 200,
  },
  {
    by: 'contact',
    model: '普通货车',
    plate: '粤LP2295',
    color: 1,
    applicant: ['林永强', 0, '15012345610', '19840526'],
    company: '惠州市恒通危险品运输有限公司',
    content: '次氯酸钠溶液送货',
    type: 3,
    from: 4,
    days: 1,
    cargo: 1,
    cargoName: '次氯酸钠溶液',
    load: 15,
    steps: ['submit', 'approve'],
    ago: 180,
  },
  {
    by: 'contact',
    model: '小型汽车',
    plate: '粤LQ4719',
    color: 4,
    applicant: ['何志勇', 0, '15112345611', '19860814'],
    company: '中海壳牌石油化工有限公司',
    content: '业主单位员工通勤车辆',
    type: 4,
    from: 3,
    days: 300,
    steps: ['submit', 'approve'],
    ago: 160,
  },
  {
    by: 'contact',
    model: '重型自卸货车',
    plate: '粤LR5081',
    color: 1,
    applicant: ['罗志刚', 0, '15212345612', '19770301'],
    company: '惠州市建安土石方工程有限公司',
    content: '厂区道路改造石料运输',
    type: 2,
    from: 8,
    days: 20,
    cargo: 0,
    cargoName: '碎石',
    load: 30,
    steps: ['submit', 'approve', 'approve'],
    ago: 150,
  },
  // approved: one delayed, one flagged
  {
    by: 'contact',
    model: '小型汽车',
    plate: '粤LS6623',
    color: 2,
    applicant: ['梁家豪', 0, '15312345613', '19900611'],
    company: '深圳市中能环保科技有限公司',
    content: '污水处理装置环保监测采样',
    type: 1,
    from: 3,
    days: 17,
    steps: ['submit', 'approve', 'approve', ['delay', 27, '监测周期延长，需继续进场采样']],
    ago: 2880,
  },
  {
    by: 'contact',
    model: '危险化学品运输车',
    plate: '粤LT7394',
    color: 1,
    applicant: ['谢伟', 0, '15512345614', '19810905'],
    company: '惠州市恒通危险品运输有限公司',
    content: '乙二醇产品提货出厂',
    type: 3,
    from: 5,
    days: 2,
    cargo: 1,
    cargoName: '乙二醇',
    load: 30,
    steps: ['submit', 'approve', 'approve', 'approve'],
    ago: 2600,
  },
  {
    by: 'contact',
    model: '混凝土搅拌车',
    plate: '粤LU1856',
    color: 1,
    applicant: ['宋立新', 0, '15712345615', '19790113'],
    company: '东莞市宏达混凝土有限公司',
    content: '新建控制室基础混凝土浇筑',
    type: 1,
    from: 4,
    days: 20,
    steps: ['submit', 'approve', 'approve', ['flag', '在厂区限速路段超速行驶，已现场提醒']],
    ago: 2400,
  },
  {
    by: 'contact',
    model: '小型汽车',
    plate: '粤LV2048',
    color: 2,
    applicant: ['唐明', 0, '15812345616', '19920427'],
    company: '惠州市鑫源贸易有限公司',
    content: '业务洽谈',
    type: 3,
    from: 3,
    days: 2,
    steps: ['submit', ['reject', '来访事由不清楚，请补充具体作业内容及被访部门确认']],
    ago: 1500,
  },
  // 黄磊 (惠州港务)
  {
    by: 'portcontact',
    model: '小型汽车',
    plate: '粤LW3370',
    color: 2,
    applicant: ['许振华', 0, '18612345617', '19850808'],
    company: '惠州港务集团有限公司',
    content: '港务与化工区管廊协调会',
    type: 3,
    from: 6,
    days: 1,
    steps: [],
    ago: 120,
  },
  {
    by: 'portcontact',
    model: '普通货车',
    plate: '粤LX4915',
    color: 1,
    applicant: ['邓子豪', 0, '18712345618', '19910219'],
    company: '惠州港通物流有限公司',
    content: '码头进口催化剂转运入厂',
    type: 3,
    from: 4,
    days: 2,
    cargo: 0,
    cargoName: '催化剂（非危险品）',
    load: 12,
    steps: ['submit'],
    ago: 100,
  },
  {
    by: 'portcontact',
    model: '中型客车',
    plate: '粤LY5162',
    color: 1,
    applicant: ['冯建军', 0, '18812345619', '19750630'],
    company: '惠州港务集团有限公司',
    content: '组织港区员工参观安全培训基地',
    type: 3,
    from: 5,
    days: 1,
    steps: ['submit', 'approve', ['reject', '车辆盲区监控照片不清晰，请重新上传后再提交']],
    ago: 1800,
  },
  {
    by: 'portcontact',
    model: '小型汽车',
    plate: '粤LZ6734',
    color: 2,
    applicant: ['曾庆', 0, '18912345620', '19880316'],
    company: '惠州港荃湾港区码头有限公司',
    content: '码头设备技术交流',
    type: 3,
    from: 3,
    days: 2,
    steps: ['submit', ['revoke', '行程取消']],
    ago: 1400,
  },
  {
    by: 'portcontact',
    model: '大型客车',
    plate: '粤LA8207',
    color: 1,
    applicant: ['彭勇', 0, '13012345621', '19820722'],
    company: '惠州市鹏程客运有限公司',
    content: '接送港区员工参加联合应急演练',
    type: 3,
    from: 9,
    days: 1,
    steps: ['submit', 'approve', 'approve', 'approve', ['revoke', '演练改期，撤销本次预约']],
    ago: 3000,
  },
  {
    by: 'portcontact',
    model: '重型自卸货车',
    plate: '粤LC9450',
    color: 1,
    applicant: ['孙海波', 0, '13612345622', '19800101'],
    company: '惠州市建安土石方工程有限公司',
    content: '管廊基础回填土运输',
    type: 1,
    from: 3,
    days: 28,
    cargo: 0,
    cargoName: '回填土',
    load: 25,
    steps: ['submit', 'approve', 'approve', 'approve'],
    ago: 3500,
  },
  {
    by: 'portcontact',
    model: '小型汽车',
    plate: '粤LE0386',
    color: 4,
    applicant: ['马俊', 0, '13912345623', '19870505'],
    company: '惠州港务集团有限公司',
    content: '港务驻厂协调员日常通勤',
    type: 4,
    from: 3,
    days: 200,
    steps: ['submit', 'approve', 'approve'],
    ago: 4000,
  },
  {
    by: 'portcontact',
    model: '普通货车',
    plate: '粤LG1573',
    color: 1,
    applicant: ['钟伟华', 0, '13812345624', '19831212'],
    company: '惠州港通物流有限公司',
    content: '进口设备零部件送货',
    type: 3,
    from: 5,
    days: 2,
    cargo: 0,
    cargoName: '设备零部件',
    load: 10,
    steps: ['submit', 'approve'],
    ago: 800,
  },
  // approved three or more days ago for visits under way today: the gates' traffic (npm run simulate), a tanker whose dwell limit runs out among them
  {
    by: 'contact',
    model: '危险化学品运输车',
    plate: '粤LK7720',
    color: 1,
    applicant: ['钟华', 0, '15912345625', '19800712'],
    company: '惠州市恒通危险品运输有限公司',
    content: '液氮槽车送货入厂',
    type: 3,
    from: 0,
    days: 1,
    cargo: 1,
    cargoName: '液氮',
    load: 20,
    steps: ['submit', 'approve', 'approve', 'approve'],
    ago: 5000,
  },
  {
    by: 'contact',
    model: '小型汽车',
    plate: '粤LD5519',
    color: 2,
    applicant: ['蔡文龙', 0, '15912345626', '19890223'],
    company: '惠州市中安检测技术有限公司',
    content: '储罐区年度防雷检测',
    type: 3,
    from: 0,
    days: 2,
    steps: ['submit', 'approve', 'approve'],
    ago: 4950,
  },
  {
    by: 'portcontact',
    model: '普通货车',
    plate: '粤LF3362',
    color: 1,
    applicant: ['韩振东', 0, '15912345627', '19820530'],
    company: '惠州港通物流有限公司',
    content: '码头设备散件转运入厂',
    type: 3,
    from: 0,
    days: 1,
    cargo: 0,
    cargoName: '设备散件',
    load: 8,
    steps: ['submit', 'approve', 'approve'],
    ago: 4900,
  },
];

/** The demo vehicles as seed-registrations.ts reads them: those of a need_record model are registered before they are submitted. */
export const demoVehicles = cars.map((c) => ({ plate: c.plate, model: c.model, by: c.by, company: c.company, color: c.color }));

const persons: PersonSeed[] = [
  // 王芳 (中海壳牌)
  {
    by: 'contact',
    visitor: ['刘晓燕', 1, '13711112201', '19930408'],
    company: '广州赛思检测技术有限公司',
    address: '广州市黄埔区科学大道88号',
    type: 4,
    content: '实验室设备验收',
    from: 2,
    days: 1,
    steps: [],
    ago: 50,
  },
  {
    by: 'contact',
    visitor: ['王志明', 0, '13711112202', '19850721'],
    company: '霍尼韦尔（中国）有限公司',
    address: '上海市浦东新区张江高科技园区',
    type: 2,
    content: 'DCS控制系统年度维保',
    from: 5,
    days: 60,
    steps: [],
    ago: 45,
  },
  {
    by: 'contact',
    visitor: ['陈静', 1, '13711112203', '19900215'],
    company: '惠州市安达职业卫生技术服务有限公司',
    address: '惠州市惠城区江北文昌一路',
    type: 4,
    content: '职业病危害因素现场检测',
    from: 1,
    days: 2,
    steps: ['submit'],
    ago: 25,
  },
  {
    by: 'contact',
    visitor: ['黄俊', 0, '13711112204', '19880911'],
    company: '西门子（中国）有限公司',
    address: '北京市朝阳区望京中环南路7号',
    type: 2,
    content: '压缩机变频器故障排查',
    from: 3,
    days: 30,
    steps: ['submit'],
    ago: 20,
  },
  {
    by: 'contact',
    visitor: ['李国华', 0, '13711112205', '19760303'],
    company: '中国化学工程第六建设有限公司',
    address: '湖北省襄阳市高新区',
    type: 3,
    content: '乙烯装置扩能改造施工管理',
    from: 3,
    days: 150,
    steps: ['submit', 'approve'],
    ago: 600,
  },
  {
    by: 'contact',
    visitor: ['张丽', 1, '13711112206', '19870619'],
    company: '中海壳牌石油化工有限公司',
    address: '惠州市大亚湾石化大道',
    type: 1,
    content: '业主单位新入职员工办理长期通行',
    from: 1,
    days: 300,
    steps: ['submit', 'approve'],
    ago: 540,
  },
  {
    by: 'contact',
    visitor: ['周明远', 0, '13711112207', '19820108'],
    company: '艾默生过程控制有限公司',
    address: '上海市闵行区',
    type: 2,
    content: '阀门定位器校验',
    from: 2,
    days: 90,
    steps: ['submit', 'approve', 'approve'],
    ago: 3000,
  },
  {
    by: 'contact',
    visitor: ['吴芳', 1, '13711112208', '19950530'],
    company: '惠州市环境科学研究所',
    address: '惠州市惠城区下埔路',
    type: 4,
    content: '土壤与地下水采样',
    from: 1,
    days: 2,
    steps: ['submit', 'approve', 'approve', ['delay', 7, '采样点位增加，需延长来访时间']],
    ago: 2700,
  },
  {
    by: 'contact',
    visitor: ['郭强', 0, '13711112209', '19890802'],
    company: '深圳市华安安全技术有限公司',
    address: '深圳市南山区科技园',
    type: 4,
    content: '安全评价现场勘查',
    from: 2,
    days: 3,
    steps: ['submit', 'approve', ['reject', '身份证照片与本人信息不符，请核实后重新申请']],
    ago: 2000,
  },
  {
    by: 'contact',
    visitor: ['林晓峰', 0, '13711112210', '19910316'],
    company: '广东粤海建设工程有限公司',
    address: '广州市天河区珠江新城',
    type: 3,
    content: '管廊施工技术交底',
    from: 4,
    days: 60,
    steps: ['submit', ['revoke', '来访计划取消']],
    ago: 1600,
  },
  {
    by: 'contact',
    visitor: ['何丽萍', 1, '13711112211', '19840925'],
    company: '中石化工程建设有限公司',
    address: '北京市朝阳区安慧北里',
    type: 3,
    content: '设计联络会及现场踏勘',
    from: 6,
    days: 100,
    steps: ['submit', 'approve', 'approve'],
    ago: 3600,
  },
  // approved for visits under way today: people at the west pedestrian gate (npm run simulate)
  {
    by: 'contact',
    visitor: ['杨帆', 0, '13711112212', '19920811'],
    company: '惠州市中安检测技术有限公司',
    address: '惠州市惠城区河南岸演达一路',
    type: 4,
    content: '储罐区年度防雷检测',
    from: 0,
    days: 2,
    steps: ['submit', 'approve', 'approve'],
    ago: 4950,
  },
  {
    by: 'contact',
    visitor: ['秦雪梅', 1, '13711112213', '19870304'],
    company: '广州赛思检测技术有限公司',
    address: '广州市黄埔区科学大道88号',
    type: 4,
    content: '循环水水质化验',
    from: 0,
    days: 1,
    steps: ['submit', 'approve', 'approve'],
    ago: 4800,
  },
  // 黄磊 (惠州港务)
  {
    by: 'portcontact',
    visitor: ['蔡志伟', 0, '13711112212', '19860117'],
    company: '惠州港务集团有限公司',
    address: '惠州市大亚湾西区港口大道',
    type: 4,
    content: '原料码头卸船协调',
    from: 3,
    days: 2,
    steps: [],
    ago: 70,
  },
  {
    by: 'portcontact',
    visitor: ['杨洋', 1, '13711112213', '19920704'],
    company: '惠州港荃湾港区码头有限公司',
    address: '惠州市大亚湾荃湾港区',
    type: 4,
    content: '管线交接界面确认',
    from: 1,
    days: 1,
    steps: ['submit'],
    ago: 15,
  },
  {
    by: 'portcontact',
    visitor: ['徐海', 0, '13711112214', '19800829'],
    company: '惠州港务集团有限公司',
    address: '惠州市大亚湾西区港口大道',
    type: 2,
    content: '码头输油臂年度检验配合',
    from: 3,
    days: 60,
    steps: ['submit', 'approve'],
    ago: 480,
  },
  {
    by: 'portcontact',
    visitor: ['韩磊', 0, '13711112215', '19880512'],
    company: '惠州港通物流有限公司',
    address: '惠州市大亚湾澳头镇',
    type: 4,
    content: '货物交接单据核对',
    from: 2,
    days: 1,
    steps: ['submit', ['reject', '被访人未确认本次来访，请先与被访人联系']],
    ago: 1300,
  },
  {
    by: 'portcontact',
    visitor: ['曹敏', 1, '13711112216', '19930221'],
    company: '惠州港务集团有限公司',
    address: '惠州市大亚湾西区港口大道',
    type: 2,
    content: '港区与化工区消防联动演练筹备',
    from: 4,
    days: 30,
    steps: ['submit', 'approve', 'approve', ['revoke', '项目延期，本次来访取消']],
    ago: 3400,
  },
];

/*
 * The visits of the gate history (server/seed/seed-gate-history.ts), seeded only
 * with it: filed and approved weeks ago for visits now over, so that its
 * crossings have visits to overstay (a visit's end, the tanker's dwell limit)
 * and the alarm screens a past. The tanker's visit falls within its
 * registration (seed-registrations.ts, filed ten days ago).
 */
const pastCar = (plate: string, model: string, applicant: CarSeed['applicant'], company: string, content: string, from: number, days: number, extra: Partial<CarSeed> = {}): CarSeed => ({
  by: 'contact',
  model,
  plate,
  color: model === '小型汽车' ? 2 : 1,
  applicant,
  company,
  content,
  type: 3,
  from,
  days,
  steps: ['submit', 'approve', 'approve'],
  ago: (5 - from) * 1440,
  ...extra,
});
const historyCars: CarSeed[] = [
  pastCar('粤LH2A51', '小型汽车', ['韦国栋', 0, '13622345631', '19830415'], '惠州市安泰阀门检测有限公司', '安全阀离线校验', -84, 1),
  pastCar('粤LN7C38', '普通货车', ['温志坚', 0, '13622345632', '19790822'], '惠州华达物流有限公司', '润滑油桶装送货', -71, 2, { cargo: 0, cargoName: '润滑油', load: 6 }),
  pastCar('粤LQ5E92', '小型汽车', ['严丽君', 1, '13622345633', '19900107'], '广州赛思检测技术有限公司', '在线分析仪表标定', -58, 1),
  pastCar('粤LB8J27', '中型客车', ['熊伟', 0, '13622345634', '19810319'], '惠州市鹏程客运有限公司', '接送大修施工人员', -45, 1),
  pastCar('粤LT3M64', '普通货车', ['江海峰', 0, '13622345635', '19860611'], '惠州港通物流有限公司', '检修备件入厂', -33, 2, { cargo: 0, cargoName: '检修备件', load: 5 }),
  pastCar('粤LS9W15', '小型汽车', ['白晓东', 0, '13622345636', '19910928'], '惠州市中安检测技术有限公司', '防雷设施复检', -19, 2),
  pastCar('粤LK7720', '危险化学品运输车', ['钟华', 0, '15912345625', '19800712'], '惠州市恒通危险品运输有限公司', '液氮槽车送货入厂', -5, 1, {
    cargo: 1,
    cargoName: '液氮',
    load: 20,
    steps: ['submit', 'approve', 'approve', 'approve'],
    ago: 9 * 1440,
  }),
  pastCar('粤LJ6P48', '小型汽车', ['石磊', 0, '13622345637', '19880203'], '深圳市中能环保科技有限公司', '废气排放口比对监测', -3, 1),
];
const pastPerson = (visitor: PersonSeed['visitor'], company: string, address: string, content: string, from: number, days: number): PersonSeed => ({
  by: 'contact',
  visitor,
  company,
  address,
  type: 4,
  content,
  from,
  days,
  steps: ['submit', 'approve', 'approve'],
  ago: (5 - from) * 1440,
});
const historyPersons: PersonSeed[] = [
  pastPerson(['冯立新', 0, '13711112231', '19780514'], '霍尼韦尔（中国）有限公司', '上海市浦东新区张江高科技园区', '控制系统卡件更换', -80, 2),
  pastPerson(['邱美玲', 1, '13711112232', '19920816'], '惠州市环境科学研究所', '惠州市惠城区下埔路', '雨水排口采样', -63, 1),
  pastPerson(['贺建平', 0, '13711112233', '19750302'], '中国化学工程第六建设有限公司', '湖北省襄阳市高新区', '管廊焊口无损检测', -50, 3),
  pastPerson(['戴晓明', 0, '13711112234', '19891120'], '西门子（中国）有限公司', '北京市朝阳区望京中环南路7号', '电机振动监测', -37, 1),
  pastPerson(['范丽娟', 1, '13711112235', '19940625'], '惠州市安达职业卫生技术服务有限公司', '惠州市惠城区江北文昌一路', '噪声与粉尘检测', -24, 2),
  pastPerson(['陆国庆', 0, '13711112236', '19820909'], '深圳市华安安全技术有限公司', '深圳市南山区科技园', '安全设施竣工验收勘查', -12, 1),
  pastPerson(['潘小燕', 1, '13711112237', '19870417'], '广州赛思检测技术有限公司', '广州市黄埔区科学大道88号', '循环水水质化验', -3, 1),
];

/** Hazardous cargo details of a chemical load (spec 000 §3). */
function cargoInfo(s: CarSeed, begin: string) {
  return {
    cargo_number: s.cargoName === '乙二醇' ? 'UN3082' : s.cargoName === '次氯酸钠溶液' ? 'UN1791' : 'UN1824',
    cargo_name: s.cargoName,
    cargo_quantity: s.load,
    cargo_unit: '吨',
    enterprise: s.company,
    unified_social_credit_code: '91441300MA4W8K2L5T',
    business_license_number: '441300000123456',
    contact_phone: '0752-5568899',
    license_plate_color: '黄色',
    vehicle_transport_license: '粤交运管许可惠字441300012345号',
    tank_volume: 30,
    driver: s.applicant[0],
    driver_qualification_certificate: '4413002019001234',
    driver_phone: s.applicant[2],
    supercargo: '罗小明',
    supercargo_qualification_certificate: '4413002020005678',
    supercargo_phone: '13600011122',
    shipper: s.content.includes('提货') ? '中海壳牌石油化工有限公司' : s.company,
    shipper_phone: '0752-5561000',
    recipient: s.content.includes('提货') ? s.company : '中海壳牌石油化工有限公司',
    recipient_phone: '0752-5562000',
    carrier: s.company,
    carrier_phone: '0752-5568899',
    shipment_date: begin,
    shipment_addr: s.content.includes('提货') ? '中海壳牌石化大道罐区' : '惠州市惠阳区新圩镇危化品停车场',
    destination: s.content.includes('提货') ? '东莞市立沙岛化工码头' : '中海壳牌石化大道罐区',
  };
}

/** An AuthContext for acting as a demo user without a session. */
export async function actor(ctx: AppContext, account: string): Promise<AuthContext | null> {
  const u = await ctx.db.selectFrom('sys_user').select(['user_id', 'account', 'user_name', 'depart_id']).where('account', '=', account).where('deleted', '=', 0).executeTakeFirst();
  return u ? { userId: u.user_id, account: u.account, userName: u.user_name, departId: u.depart_id, sessionId: 0, roleIds: [], roleNames: [], permissions: new Set() } : null;
}

/** A copy of the context whose clock reads `minutesAgo` before the seed started, so the demo has a past. */
export function clockAt(ctx: AppContext, start: number, minutesAgo: number): AppContext {
  const at = start - minutesAgo * 60_000;
  return { ...ctx, time: () => formatInZone(at, ctx.config.tz), now: () => at };
}

async function runSteps(
  trx: Transaction<DB>,
  ctx: AppContext,
  start: number,
  kind: AppointmentKind,
  owner: AuthContext,
  id: number,
  steps: Step[],
  ago: number,
  onFlag: (remark: string) => Promise<void>,
) {
  let minutes = ago;
  for (const step of steps) {
    // Steps five to ninety minutes apart, never reaching into the future.
    minutes = Math.max(0, minutes - (step === 'submit' ? 5 : Math.min(90, Math.floor(minutes / 3))));
    const c = clockAt(ctx, start, minutes);
    if (step === 'submit') {
      const r = await submitApplication(trx, c, owner, kind, id);
      if ('blackListed' in r) throw new Error(r.blackListed);
    } else if (step === 'approve' || step[0] === 'reject') {
      const task = await trx
        .selectFrom('process_task as t')
        .innerJoin('process_instance as i', 'i.process_instance_id', 't.process_instance_id')
        .select(['t.process_task_id', 't.user_id'])
        .where('i.ref_id', '=', id)
        // Registrations and waybills share ref ids with applications: only this kind's process types.
        .where('i.process_type', 'in', [...appointmentKinds[kind].processTypes])
        .where('t.state', '=', TaskState.PENDING)
        .orderBy('t.process_task_id')
        .executeTakeFirstOrThrow();
      const approve = step === 'approve';
      await decide(trx, c, { taskId: task.process_task_id, userId: task.user_id, result: approve ? TaskResult.APPROVE : TaskResult.REJECT, remark: approve ? '同意' : step[1] });
    } else if (step[0] === 'revoke') {
      await revokeApplication(trx, c, owner, kind, id, step[1]);
    } else if (step[0] === 'delay') {
      const k = kinds[kind];
      const row = await (trx as unknown as Kysely<any>).selectFrom(k.table).select(`${k.begin} as b`).where(k.key, '=', id).executeTakeFirstOrThrow();
      const begin = dateOf((row as { b: string }).b);
      const end = addDays(begin, step[1]);
      const body = { id, [k.begin]: begin, [k.end]: end, delay_reason: step[2] };
      await delayApplication(trx, c, owner, kind, body);
    } else if (step[0] === 'flag') {
      await onFlag(step[1]);
    }
  }
}

/** Seeds the demo appointments once (sys_setting 'demo_appointments_seeded'); does nothing where the demo accounts are missing. */
export async function seedDemoAppointments(ctx: AppContext): Promise<void> {
  const { db } = ctx;
  if (await db.selectFrom('sys_setting').select('value').where('key', '=', SETTING).executeTakeFirst()) return;
  const users = new Map<string, AuthContext>();
  for (const account of ['contact', 'portcontact', 'patrol', 'squad']) {
    const a = await actor(ctx, account);
    if (!a) return;
    users.set(account, a);
  }
  const shell = await db.selectFrom('sys_department').select('depart_id').where('code', '=', 'CNOOC_SHELL').where('deleted', '=', 0).executeTakeFirst();
  if (!shell) return;
  if (!(await db.selectFrom('process').select('process_id').where('deleted', '=', 0).limit(1).executeTakeFirst())) return;
  const models = new Map((await db.selectFrom('vehicle_type').select(['id', 'name', 'need_blind_video', 'need_record']).where('deleted', '=', 0).execute()).map((m) => [m.name, m]));
  if ([...cars, ...historyCars].some((c) => !models.has(c.model))) return;

  const photo = await fileStoreOf(ctx).put(placeholderPng(), 'png');
  // Every demo application visits 中海壳牌, the enterprise whose reviewer the demo has.
  const interviewee = { name: '李强', phone: '13800000003', depart: shell.depart_id };
  const start = ctx.now();
  const today = dateOf(ctx.time());
  const patrol = users.get('patrol')!;

  await db.transaction().execute(async (trx) => {
    let seq = 100;
    const saveCar = async (s: CarSeed) => {
      const owner = users.get(s.by)!;
      const model = models.get(s.model)!;
      const begin = addDays(today, s.from);
      const end = addDays(begin, s.days);
      const values: Record<string, unknown> = {
        license_plate: s.plate,
        license_plate_color: s.color,
        vehicle_type_id: model.id,
        applicant_name: s.applicant[0],
        applicant_idcard: idNumber('441303', s.applicant[3], ++seq),
        applicant_gender: s.applicant[1],
        applicant_phone: s.applicant[2],
        visitor_idcard_type: 1,
        visit_area: 1,
        visitor_type: s.type,
        visitor_company: s.company,
        visitor_content: s.content,
        visitor_begin_time: begin,
        visitor_end_time: end,
        interviewee_name: interviewee.name,
        interviewee_phone: interviewee.phone,
        interviewee_depart_id: interviewee.depart,
        vehicle_license_number: `4413${String(seq).padStart(8, '0')}`,
        engine_number: `E${s.plate.slice(2)}${seq}`,
        vehicle_img: photo,
        blind_video_photo: model.need_blind_video ? photo : '',
        register_record_photo: model.need_record ? photo : '',
        remark: '',
        carPersonList: s.driver ? [{ name: s.driver[0], idcard_type: 1, id_card: idNumber('441302', s.driver[2], ++seq), gender: 0, phone: s.driver[1], type: 1 }] : [],
      };
      if (s.cargo !== undefined) Object.assign(values, { cargo_type: s.cargo, cargo_name: s.cargoName, car_load: s.load });
      if (s.cargo === 1) values.cargo_info = cargoInfo(s, begin);
      if (s.model.includes('自卸')) {
        values.dump_truck_file = {
          driver_license: photo,
          driving_license: photo,
          compulsory_insurance: photo,
          commercial_insurance: photo,
          excess_insurance: photo,
          commitment_letter: photo,
          monitor_return_receipt: '',
        };
      }
      const id = await saveApplication(trx, clockAt(ctx, start, s.ago), owner, 'car', values);
      await runSteps(trx, ctx, start, 'car', owner, id, s.steps, s.ago, async (remark) => {
        const at = clockAt(ctx, start, 30).time();
        await trx.updateTable('car_application').set({ label_status: 1, label_remark: remark, update_time: at }).where('car_application_id', '=', id).execute();
        const mark = await trx
          .insertInto('vehicle_mark')
          .values({
            car_application_id: id,
            license_plate: s.plate,
            vehicle_type_id: model.id,
            visitor_company: s.company,
            remark,
            color_id: 2,
            label_type_id: 1,
            alarm_id: 3,
            status: 1,
            photo,
            create_user_id: patrol.userId,
            update_user_id: patrol.userId,
            create_time: at,
            update_time: at,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        // As the flag route does: the flag's photo is read through the flag.
        await recordFileRefs(trx, 'vehicle_mark', mark.id, [photo]);
      });
    };

    const savePerson = async (s: PersonSeed) => {
      const owner = users.get(s.by)!;
      const begin = addDays(today, s.from);
      const values = {
        visitor_name: s.visitor[0],
        visitor_gender: s.visitor[1],
        visitor_nation: '汉族',
        visitor_phone: s.visitor[2],
        visitor_company: s.company,
        visitor_address: s.address,
        visitor_type: s.type,
        visitor_idcard_type: 1,
        visitor_idcard: idNumber('440303', s.visitor[3], ++seq),
        visit_content: s.content,
        visit_begin_time: begin,
        visit_end_time: addDays(begin, s.days),
        visit_area: 1,
        interviewee_name: interviewee.name,
        interviewee_phone: interviewee.phone,
        interviewee_depart_id: interviewee.depart,
      };
      const id = await saveApplication(trx, clockAt(ctx, start, s.ago), owner, 'person', values);
      await runSteps(trx, ctx, start, 'person', owner, id, s.steps, s.ago, async () => undefined);
    };

    // The history's visits first, so that they sort below the others, numbered apart so the others' ID numbers stay as they are.
    if (ctx.config.seedGateHistory) {
      seq = 600;
      for (const s of historyCars) await saveCar(s);
      for (const s of historyPersons) await savePerson(s);
      seq = 100;
    }
    for (const s of cars) await saveCar(s);
    for (const s of persons) await savePerson(s);

    await trx
      .insertInto('sys_setting')
      .values({ key: SETTING, value: ctx.time() })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
  });
}
