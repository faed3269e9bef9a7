import { listableApprovalQueues } from '../../domain/registers';
import { describe, expect, it } from 'vitest';
import { AppState, ProcessType, canDo, queueFor, stateAllows, stateConflictMessage, vehicleProcessType, type AppointmentAction } from '../../domain/appointments';
import {
  PASSAGE_HOURS_HINT,
  addDays,
  addMonths,
  carVisitErrors,
  carVisitTypeHint,
  delayErrors,
  diffDays,
  earliestCarVisitDate,
  latestPersonVisitStart,
  normaliseVisitTime,
  personVisitErrors,
  personVisitTypeHint,
} from '../../domain/visit-rules';
import {
  amendBody as carAmendBody,
  canAmendBody as carCanAmendBody,
  carApplicationEdit,
  carApplicationLabels,
  carApplicationListQuery,
  carApplicationRuleErrors,
  carApplicationSave,
  carTaskQuery,
  checkBody,
  delayBody as carDelayBody,
  dumpTruckFileLabels,
  idBody,
  isMainlandIdNumber,
  labelBody,
  returnBody as carReturnBody,
  returnSubmitBody as carReturnSubmitBody,
  revokeBody,
  stripHiddenCargo,
  type VehicleModelFlags,
} from '../../domain/schemas/car-application';
import {
  amendBody as personAmendBody,
  delayBody as personDelayBody,
  personApplicationEdit,
  personApplicationLabels,
  personApplicationListQuery,
  personApplicationSave,
  personTaskQuery,
  returnBody as personReturnBody,
  returnSubmitBody as personReturnSubmitBody,
} from '../../domain/schemas/person-application';

type Issue = { path: PropertyKey[]; message: string };
/** Messages of a failed parse keyed by dotted path (first message per path). */
function errorsOf(result: { success: boolean; error?: { issues: Issue[] } }): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of result.error?.issues ?? []) {
    const key = i.path.map(String).join('.');
    out[key] ??= i.message;
  }
  return out;
}
const messages = (errors: Array<{ message: string }>) => errors.map((e) => e.message);

// ------------------------------------------------------------------ date arithmetic

describe('calendar date helpers', () => {
  it('adds days across month and year ends', () => {
    expect(addDays('2025-02-27', 3)).toBe('2025-03-02');
    expect(addDays('2024-02-27', 3)).toBe('2024-03-01');
    expect(addDays('2025-12-30 23:59:59', 3)).toBe('2026-01-02');
    expect(addDays('2025-01-01', -1)).toBe('2024-12-31');
  });

  it('adds months, clamping to the last day of a shorter month', () => {
    expect(addMonths('2025-01-15', 1)).toBe('2025-02-15');
    expect(addMonths('2025-01-31', 1)).toBe('2025-02-28');
    expect(addMonths('2024-01-31', 1)).toBe('2024-02-29');
    expect(addMonths('2025-11-30', 3)).toBe('2026-02-28');
    expect(addMonths('2024-02-29', 12)).toBe('2025-02-28');
  });

  it('counts whole days between dates whatever the time of day', () => {
    expect(diffDays('2025-03-10', '2025-03-20')).toBe(10);
    expect(diffDays('2025-03-10 23:00:00', '2025-03-11 01:00:00')).toBe(1);
    expect(diffDays('2025-03-20', '2025-03-10')).toBe(-10);
    expect(diffDays('2024-01-01', '2025-01-01')).toBe(366);
  });

  it('normalises visit times: a plain date is the start or the end of its day', () => {
    expect(normaliseVisitTime('2025-03-10', 'begin')).toBe('2025-03-10 00:00:00');
    expect(normaliseVisitTime('2025-03-10', 'end')).toBe('2025-03-10 23:59:59');
    expect(normaliseVisitTime('2025-03-10 08:30:00', 'end')).toBe('2025-03-10 08:30:00');
    expect(normaliseVisitTime('2025-02-30', 'begin')).toBeNull();
    expect(normaliseVisitTime('2025-03-10 24:00:00', 'begin')).toBeNull();
    expect(normaliseVisitTime('10/03/2025', 'begin')).toBeNull();
  });
});

// ------------------------------------------------------------------ person visit rules

describe('person visit rules (spec 000 §5)', () => {
  const today = '2025-03-10 08:00:00';
  const visit = (visitor_type: number, visit_begin_time: string, visit_end_time: string) => personVisitErrors({ visitor_type, visit_begin_time, visit_end_time }, today);

  it('accepts a visit starting today', () => {
    expect(visit(4, '2025-03-10 00:00:00', '2025-03-10 23:59:59')).toEqual([]);
  });

  it('refuses a start before today', () => {
    expect(visit(4, '2025-03-09', '2025-03-10')).toEqual([{ field: 'visit_begin_time', message: '来访开始时间不能早于今天' }]);
  });

  it('refuses an end before the begin', () => {
    expect(visit(1, '2025-03-12 10:00:00', '2025-03-12 09:00:00')).toEqual([{ field: 'visit_end_time', message: '来访结束时间不能早于开始时间' }]);
  });

  it('refuses a start more than one month from today', () => {
    expect(visit(1, '2025-04-10', '2025-04-11')).toEqual([]);
    expect(visit(1, '2025-04-11', '2025-04-12')).toEqual([{ field: 'visit_begin_time', message: '来访开始时间不能超过1个月' }]);
    expect(latestPersonVisitStart(today)).toBe('2025-04-10');
  });

  it('owners (type 1) may span 365 days', () => {
    expect(visit(1, '2025-03-10', '2026-03-10')).toEqual([]);
    expect(visit(1, '2025-03-10', '2026-03-11')).toEqual([{ field: 'visit_end_time', message: '业主来访时间差不能超过1年' }]);
  });

  it('service providers and construction units (types 2, 3) may span 180 days', () => {
    for (const type of [2, 3]) {
      expect(visit(type, '2025-03-10', addDays('2025-03-10', 180))).toEqual([]);
      expect(messages(visit(type, '2025-03-10', addDays('2025-03-10', 181)))).toEqual(['服务商/建设单位来访时间差不能超过180天']);
    }
  });

  it('temporary visitors (type 4) may span 10 days', () => {
    expect(visit(4, '2025-03-10', '2025-03-20')).toEqual([]);
    expect(messages(visit(4, '2025-03-10', '2025-03-21'))).toEqual(['临时来访时间差不能超过10天']);
  });

  it('leaves missing times to the form schema', () => {
    expect(personVisitErrors({ visitor_type: 1, visit_begin_time: '', visit_end_time: null }, today)).toEqual([]);
  });

  it('hints per visitor type', () => {
    expect([1, 2, 3, 4].map(personVisitTypeHint)).toEqual(['业主：最长1年', '服务商/建设单位：最长180天', '服务商/建设单位：最长180天', '临时访客：最长10天']);
    expect(personVisitTypeHint(undefined)).toBe('');
  });
});

// ------------------------------------------------------------------ vehicle visit rules

describe('vehicle visit rules (spec 000 §5)', () => {
  const today = '2025-03-10 10:00:00';
  const car = { name: '小型轿车' };
  const visit = (visitor_type: number, begin: string, end: string, model: { name: string } | null = car, constructionMonths?: 1 | 3) =>
    carVisitErrors({ visitor_type, visitor_begin_time: begin, visitor_end_time: end }, model, today, constructionMonths ? { constructionMonths } : undefined);

  it('the earliest start is after the end of the day after tomorrow', () => {
    expect(earliestCarVisitDate(today)).toBe('2025-03-13');
    expect(visit(3, '2025-03-13 00:00:00', '2025-03-13 23:59:59')).toEqual([]);
    expect(visit(3, '2025-03-12 23:59:59', '2025-03-13')).toEqual([{ field: 'visitor_begin_time', message: '来访开始时间须晚于后天' }]);
  });

  it('refuses an end before the begin', () => {
    expect(visit(3, '2025-03-14', '2025-03-13')).toEqual([{ field: 'visitor_end_time', message: '来访结束时间不能早于开始时间' }]);
  });

  it('construction (type 1): at most one month by default, three with the option', () => {
    expect(visit(1, '2025-04-01', '2025-05-01')).toEqual([]);
    expect(visit(1, '2025-04-01', '2025-05-02')).toEqual([{ field: 'visitor_end_time', message: '施工车辆来访时间不能超过1个月' }]);
    expect(visit(1, '2025-04-01', '2025-07-01', car, 3)).toEqual([]);
    expect(messages(visit(1, '2025-04-01', '2025-07-02', car, 3))).toEqual(['施工车辆来访时间不能超过3个月']);
  });

  it('maintenance (type 2): at most one month', () => {
    expect(visit(2, '2025-04-01', '2025-05-01')).toEqual([]);
    expect(messages(visit(2, '2025-04-01', '2025-05-02'))).toEqual(['维保车辆来访时间不能超过1个月']);
  });

  it('temporary (type 3): at most three days', () => {
    expect(visit(3, '2025-04-01', '2025-04-04')).toEqual([]);
    expect(messages(visit(3, '2025-04-01', '2025-04-05'))).toEqual(['临时车辆来访时间不能超过3天']);
  });

  it('owner (type 4): at most one year', () => {
    expect(visit(4, '2025-04-01', '2026-04-01')).toEqual([]);
    expect(messages(visit(4, '2025-04-01', '2026-04-02'))).toEqual(['业主车辆来访时间不能超过1年']);
  });

  it('dump-truck, mixer and hazardous models of types 1 and 2 stay under three months', () => {
    for (const name of ['重型自卸货车', '混凝土搅拌车', '危险品运输车']) {
      const model = { name };
      expect(visit(1, '2025-04-01', '2025-06-30', model, 3)).toEqual([]);
      expect(visit(1, '2025-04-01', '2025-07-01', model, 3)).toEqual([{ field: 'visitor_end_time', message: '来访时间不能超过3个月' }]);
      // Type 2 is also over its own one-month limit: both rules are named.
      expect(messages(visit(2, '2025-04-01', '2025-07-01', model))).toEqual(['来访时间不能超过3个月', '维保车辆来访时间不能超过1个月']);
      expect(messages(visit(4, '2025-04-01', '2025-07-01', model))).toEqual([]);
    }
    expect(visit(1, '2025-04-01', '2025-07-01', { name: '小型轿车' }, 3)).toEqual([]);
    expect(visit(1, '2025-04-01', '2025-07-01', null, 3)).toEqual([]);
  });

  it('hints per application type', () => {
    expect([1, 2, 3, 4].map((t) => carVisitTypeHint(t))).toEqual([
      '施工车辆：最长1个月，通行时间9:00-18:00',
      '维保车辆：最长1个月，通行时间9:00-18:00',
      '临时车辆：最长3天，通行时间9:00-18:00',
      '业主车辆：最长1年',
    ]);
    expect(carVisitTypeHint(1, { constructionMonths: 3 })).toBe('施工车辆：最长3个月，通行时间9:00-18:00');
    expect(carVisitTypeHint(null)).toBe('');
    expect(PASSAGE_HOURS_HINT).toBe('通行时间 9:00-18:00');
  });
});

describe('delay rules (spec 000 §5)', () => {
  const today = '2025-03-10 10:00:00';
  it('the new end must be after today', () => {
    expect(delayErrors({ begin: '2025-03-01', end: '2025-03-11' }, today)).toEqual([]);
    expect(delayErrors({ begin: '2025-03-01', end: '2025-03-10 23:59:59' }, today)).toEqual([{ field: 'end', message: '延期结束时间必须晚于今天' }]);
  });
  it('the end may not precede the begin, and errors carry the caller’s field names', () => {
    expect(delayErrors({ begin: '2025-03-20', end: '2025-03-15' }, today, { begin: 'visit_begin_time', end: 'visit_end_time' })).toEqual([
      { field: 'visit_end_time', message: '延期结束时间不能早于开始时间' },
    ]);
  });
});

// ------------------------------------------------------------------ vehicle application form

const validCar = {
  license_plate: '粤L12345',
  license_plate_color: 2,
  vehicle_type_id: 3,
  applicant_name: '张三',
  applicant_idcard: '11010519491231002X',
  applicant_gender: 0,
  applicant_phone: '13800138000',
  visitor_idcard_type: 1,
  visit_area: 1,
  visitor_type: 1,
  visitor_company: '某某建设有限公司',
  visitor_content: '设备检修',
  visitor_begin_time: '2025-04-01',
  visitor_end_time: '2025-04-20',
  interviewee_name: '李四',
  interviewee_phone: '0755-12345678',
  interviewee_depart_id: 4,
};

describe('vehicle application form (carApplicationSave)', () => {
  it('accepts a complete form and normalises dates, numbers and images', () => {
    const r = carApplicationSave.safeParse({ ...validCar, license_plate_color: '2', interviewee_depart_id: '4', car_load: '2.5', vehicle_img: ['a.jpg', ' b.jpg ', ''], state: 2, create_user_id: 9 });
    expect(r.success).toBe(true);
    expect(r.data).toMatchObject({
      license_plate_color: 2,
      interviewee_depart_id: 4,
      visitor_begin_time: '2025-04-01 00:00:00',
      visitor_end_time: '2025-04-20 23:59:59',
      car_load: 2.5,
      vehicle_img: 'a.jpg;b.jpg',
      remark: '',
    });
    // Columns the server owns never come from the form.
    expect(r.data).not.toHaveProperty('state');
    expect(r.data).not.toHaveProperty('create_user_id');
  });

  it.each([
    ['license_plate', '请输入车牌号'],
    ['license_plate_color', '请选择车牌颜色'],
    ['vehicle_type_id', '请选择车型'],
    ['applicant_name', '请输入申请人姓名'],
    ['applicant_idcard', '请输入证件号码'],
    ['applicant_gender', '请选择性别'],
    ['applicant_phone', '请输入手机号'],
    ['visitor_idcard_type', '请选择证件类型'],
    ['visit_area', '请选择园区'],
    ['visitor_type', '请选择申请类型'],
    ['visitor_company', '请输入来访单位'],
    ['visitor_content', '请输入来访事由'],
    ['visitor_begin_time', '请选择来访时间'],
    ['visitor_end_time', '请选择来访时间'],
    ['interviewee_name', '请输入被访人姓名'],
    ['interviewee_phone', '请输入被访人电话'],
    ['interviewee_depart_id', '请选择被访部门'],
  ])('%s is required: %s', (field, message) => {
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, [field]: undefined }))[field]).toBe(message);
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, [field]: '' }))[field]).toBe(message);
  });

  it('checks the plate: province, letter, then 5 or 6 letters or digits', () => {
    for (const plate of ['粤L12345', '粤LD12345', '京A1234挂']) expect(carApplicationSave.safeParse({ ...validCar, license_plate: plate }).success).toBe(true);
    expect(carApplicationSave.safeParse({ ...validCar, license_plate: ' 粤ld12345 ' }).data?.license_plate).toBe('粤LD12345');
    for (const plate of ['L12345', '粤112345', '粤L1234', '粤L1234567', 'AB12345']) {
      expect(errorsOf(carApplicationSave.safeParse({ ...validCar, license_plate: plate })).license_plate).toBe('车牌号格式不正确');
    }
  });

  it('only accepts codes from the tables', () => {
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, license_plate_color: 8 })).license_plate_color).toBe('请选择车牌颜色');
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, visitor_idcard_type: 7 })).visitor_idcard_type).toBe('请选择证件类型');
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, visit_area: 4 })).visit_area).toBe('请选择园区');
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, visitor_type: 5 })).visitor_type).toBe('请选择申请类型');
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, applicant_gender: 2 })).applicant_gender).toBe('请选择性别');
  });

  it('checks a resident ID number with its check character, other documents by length', () => {
    expect(isMainlandIdNumber('11010519491231002X')).toBe(true);
    expect(isMainlandIdNumber('440303199001011237')).toBe(true);
    expect(isMainlandIdNumber('440303199001011230')).toBe(false);
    expect(isMainlandIdNumber('440303199002301235')).toBe(false);
    expect(carApplicationSave.safeParse({ ...validCar, applicant_idcard: '11010519491231002x' }).data?.applicant_idcard).toBe('11010519491231002X');
    // A wrong last character is named as the check character; a wrong shape or birth date is the format's.
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, applicant_idcard: '440303199001011230' })).applicant_idcard).toBe('身份证号校验码不正确（第18位与前17位不符），请核对号码');
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, applicant_idcard: '440303199002301235' })).applicant_idcard).toBe('身份证号格式不正确');
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, applicant_idcard: '12345' })).applicant_idcard).toBe('身份证号格式不正确');
    expect(carApplicationSave.safeParse({ ...validCar, visitor_idcard_type: 6, applicant_idcard: 'E12345678' }).success).toBe(true);
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, visitor_idcard_type: 6, applicant_idcard: 'E1-2' })).applicant_idcard).toBe('证件号码格式不正确');
  });

  it('reports the ID number beside other broken fields', () => {
    const e = errorsOf(carApplicationSave.safeParse({ ...validCar, applicant_name: '', applicant_idcard: '123456789012345678' }));
    expect(e).toMatchObject({ applicant_name: '请输入申请人姓名', applicant_idcard: '身份证号格式不正确' });
  });

  it('checks mobile and interviewee numbers', () => {
    for (const phone of ['12345678901', '1380013800', '138001380001', 'abc']) {
      expect(errorsOf(carApplicationSave.safeParse({ ...validCar, applicant_phone: phone })).applicant_phone).toBe('手机号格式不正确');
    }
    expect(carApplicationSave.safeParse({ ...validCar, interviewee_phone: '13800138000' }).success).toBe(true);
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, interviewee_phone: '电话' })).interviewee_phone).toBe('被访人电话格式不正确');
  });

  it('bounds text lengths', () => {
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, applicant_name: '张'.repeat(31) })).applicant_name).toBe('不能超过30个文字');
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, visitor_company: '字'.repeat(51) })).visitor_company).toBe('不能超过50个文字');
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, visitor_content: '字'.repeat(201) })).visitor_content).toBe('不能超过200个文字');
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, remark: '字'.repeat(201) })).remark).toBe('不能超过200个文字');
    expect(carApplicationSave.safeParse({ ...validCar, remark: '字'.repeat(200) }).success).toBe(true);
  });

  it('refuses impossible visit times', () => {
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, visitor_begin_time: '2025-02-30' })).visitor_begin_time).toBe('来访时间格式不正确');
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, visitor_end_time: '2025/04/20' })).visitor_end_time).toBe('来访时间格式不正确');
  });

  it('allows up to 20 images per field', () => {
    const names = (n: number) => Array.from({ length: n }, (_, i) => `p${i}.jpg`).join(';');
    for (const field of ['vehicle_img', 'img12123', 'blind_video_photo', 'register_record_photo']) {
      expect(carApplicationSave.safeParse({ ...validCar, [field]: names(20) }).success).toBe(true);
      expect(errorsOf(carApplicationSave.safeParse({ ...validCar, [field]: names(21) }))[field]).toBe('最多上传20张图片');
    }
    const file = { driver_license: names(21) };
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, dump_truck_file: file }))['dump_truck_file.driver_license']).toBe('最多上传20张图片');
  });

  it('load is a number not below 0', () => {
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, car_load: -1 })).car_load).toBe('载重必须是不小于0的数字');
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, car_load: 'abc' })).car_load).toBe('载重必须是不小于0的数字');
    expect(carApplicationSave.safeParse({ ...validCar, car_load: '' }).data?.car_load).toBeUndefined();
    expect(carApplicationSave.safeParse({ ...validCar, car_load: 0 }).data?.car_load).toBe(0);
  });

  it('reads dump_truck_file and cargo_info as objects or JSON text', () => {
    const r = carApplicationSave.safeParse({ ...validCar, dump_truck_file: '{"driver_license":"a.jpg"}', cargo_type: '1', cargo_info: { cargo_name: '汽油', cargo_quantity: '3' } });
    expect(r.data?.dump_truck_file?.driver_license).toBe('a.jpg');
    expect(r.data?.dump_truck_file?.monitor_return_receipt).toBe('');
    expect(r.data?.cargo_type).toBe(1);
    expect(r.data?.cargo_info).toMatchObject({ cargo_name: '汽油', cargo_quantity: 3 });
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, cargo_info: { driver_phone: 'x' } }))['cargo_info.driver_phone']).toBe('电话格式不正确');
  });

  it('drivers and passengers are optional, at most 10, well-formed when given', () => {
    expect(carApplicationSave.safeParse({ ...validCar, carPersonList: [{}, { name: '王五', type: 1 }] }).success).toBe(true);
    const many = Array.from({ length: 11 }, () => ({ name: '某' }));
    expect(errorsOf(carApplicationSave.safeParse({ ...validCar, carPersonList: many })).carPersonList).toBe('最多添加10名司乘人员');
    const e = errorsOf(carApplicationSave.safeParse({ ...validCar, carPersonList: [{ id_card: '123', phone: '12', type: 4 }] }));
    expect(e).toMatchObject({ 'carPersonList.0.id_card': '身份证号格式不正确', 'carPersonList.0.phone': '手机号格式不正确', 'carPersonList.0.type': '请选择人员类型' });
    expect(carApplicationSave.safeParse({ ...validCar, carPersonList: [{ idcard_type: 6, id_card: 'E12345678' }] }).success).toBe(true);
  });

  it('edit needs the application id', () => {
    expect(errorsOf(carApplicationEdit.safeParse(validCar)).car_application_id).toBe('请提供车辆预约ID');
    expect(carApplicationEdit.safeParse({ ...validCar, car_application_id: '7' }).data?.car_application_id).toBe(7);
  });

  it('every form field has a Chinese label for server messages', () => {
    for (const key of Object.keys(carApplicationEdit.shape)) expect(carApplicationLabels[key], key).toBeTruthy();
  });
});

describe('vehicle model rules (carApplicationRuleErrors)', () => {
  const plain: VehicleModelFlags = { name: '小型轿车', need_blind_video: 0, need_record: 0, show_cargo_type: 1 };
  const fullDumpFile = { driver_license: 'a', driving_license: 'b', compulsory_insurance: 'c', commercial_insurance: 'd', excess_insurance: 'e', commitment_letter: 'f' };

  it('needs nothing extra for a plain model', () => {
    expect(carApplicationRuleErrors({}, plain)).toEqual([]);
    expect(carApplicationRuleErrors({}, null)).toEqual([]);
  });

  it('blind-video photo when the model needs it', () => {
    const model = { ...plain, need_blind_video: 1 };
    expect(carApplicationRuleErrors({ blind_video_photo: '' }, model)).toEqual([{ field: 'blind_video_photo', message: '请上传盲区视频监控图片' }]);
    expect(carApplicationRuleErrors({ blind_video_photo: 'v.jpg' }, model)).toEqual([]);
  });

  it('registration record photo when need_record is 1', () => {
    const model = { ...plain, need_record: 1 };
    expect(carApplicationRuleErrors({}, model)).toEqual([{ field: 'register_record_photo', message: '请上传备案登记照片' }]);
    expect(carApplicationRuleErrors({ register_record_photo: 'r.jpg' }, model)).toEqual([]);
  });

  it('dump-truck documents for dump-truck models, all but the monitoring receipt', () => {
    const model = { ...plain, name: '重型自卸货车' };
    expect(messages(carApplicationRuleErrors({}, model))).toEqual(['请上传驾驶证', '请上传行驶证', '请上传交强险', '请上传商业险', '请上传超赔险', '请上传承诺书']);
    expect(carApplicationRuleErrors({ dump_truck_file: { ...fullDumpFile, driving_license: '' } }, model)).toEqual([{ field: 'dump_truck_file.driving_license', message: '请上传行驶证' }]);
    expect(carApplicationRuleErrors({ dump_truck_file: fullDumpFile }, model)).toEqual([]);
    expect(dumpTruckFileLabels.monitor_return_receipt).toBe('监控回执');
    expect(carApplicationRuleErrors({}, plain)).toEqual([]);
  });

  it('hazardous cargo information when cargo_type is 1', () => {
    expect(carApplicationRuleErrors({ cargo_type: 1 }, plain)).toEqual([{ field: 'cargo_info', message: '请填写危险货物信息' }]);
    expect(messages(carApplicationRuleErrors({ cargo_type: 1, cargo_info: { cargo_name: '' } }, plain))).toEqual([
      '请输入货物名称',
      '请输入货物数量',
      '请选择货物单位',
      '请输入托运企业',
      '请输入驾驶员姓名',
      '请输入驾驶员电话',
    ]);
    const info = { cargo_name: '汽油', cargo_quantity: 0, cargo_unit: '吨', enterprise: '某运输公司', driver: '赵六', driver_phone: '13800138000' };
    expect(carApplicationRuleErrors({ cargo_type: 1, cargo_info: info }, plain)).toEqual([]);
    expect(carApplicationRuleErrors({ cargo_type: 0 }, plain)).toEqual([]);
  });

  it('ignores and strips cargo fields when the model hides them', () => {
    const hidden = { ...plain, show_cargo_type: 0 };
    expect(carApplicationRuleErrors({ cargo_type: 1 }, hidden)).toEqual([]);
    const values = { license_plate: '粤L12345', cargo_type: 1, cargo_name: 'x', car_load: 3, cargo_info: { cargo_name: 'x' } };
    expect(stripHiddenCargo(values, hidden)).toEqual({ license_plate: '粤L12345' });
    expect(stripHiddenCargo(values, plain)).toBe(values);
    expect(values.cargo_type).toBe(1);
  });
});

// ------------------------------------------------------------------ person application form

const validPerson = {
  visitor_name: '王五',
  visitor_gender: 1,
  visitor_phone: '13900139000',
  visitor_company: '某某服务公司',
  visitor_type: 2,
  visitor_idcard_type: 1,
  visitor_idcard: '440303199001011237',
  visit_content: '商务洽谈',
  visit_begin_time: '2025-03-12',
  visit_end_time: '2025-03-12 18:00:00',
  visit_area: 3,
  interviewee_name: '李四',
  interviewee_phone: '13800138000',
  interviewee_depart_id: 4,
};

describe('person application form (personApplicationSave)', () => {
  it('accepts a complete form', () => {
    const r = personApplicationSave.safeParse({ ...validPerson, visitor_face_photo: 'f.jpg' });
    expect(r.success).toBe(true);
    expect(r.data).toMatchObject({ visit_begin_time: '2025-03-12 00:00:00', visit_end_time: '2025-03-12 18:00:00', visitor_nation: '', visitor_face_photo: 'f.jpg' });
  });

  it.each([
    ['visitor_name', '请输入访客姓名'],
    ['visitor_gender', '请选择性别'],
    ['visitor_phone', '请输入手机号'],
    ['visitor_company', '请输入来访单位'],
    ['visitor_type', '请选择申请类型'],
    ['visitor_idcard_type', '请选择证件类型'],
    ['visitor_idcard', '请输入证件号码'],
    ['visit_content', '请输入来访事由'],
    ['visit_begin_time', '请选择来访时间'],
    ['visit_end_time', '请选择来访时间'],
    ['visit_area', '请选择园区'],
    ['interviewee_name', '请输入被访人姓名'],
    ['interviewee_phone', '请输入被访人电话'],
    ['interviewee_depart_id', '请选择被访部门'],
  ])('%s is required: %s', (field, message) => {
    expect(errorsOf(personApplicationSave.safeParse({ ...validPerson, [field]: undefined }))[field]).toBe(message);
  });

  it('checks ID number, phone, photos and lengths', () => {
    expect(errorsOf(personApplicationSave.safeParse({ ...validPerson, visitor_idcard: '440303199001011230' })).visitor_idcard).toBe('身份证号校验码不正确（第18位与前17位不符），请核对号码');
    expect(personApplicationSave.safeParse({ ...validPerson, visitor_idcard_type: 4, visitor_idcard: 'H12345678' }).success).toBe(true);
    expect(errorsOf(personApplicationSave.safeParse({ ...validPerson, visitor_phone: '23900139000' })).visitor_phone).toBe('手机号格式不正确');
    expect(errorsOf(personApplicationSave.safeParse({ ...validPerson, visitor_face_photo: 'a.jpg;b.jpg' })).visitor_face_photo).toBe('最多上传1张图片');
    expect(errorsOf(personApplicationSave.safeParse({ ...validPerson, visitor_address: '字'.repeat(101) })).visitor_address).toBe('不能超过100个文字');
    expect(errorsOf(personApplicationSave.safeParse({ ...validPerson, visitor_type: 5 })).visitor_type).toBe('请选择申请类型');
  });

  it('edit needs the application id', () => {
    expect(errorsOf(personApplicationEdit.safeParse(validPerson)).person_application_id).toBe('请提供人员预约ID');
    expect(personApplicationEdit.safeParse({ ...validPerson, person_application_id: 5 }).success).toBe(true);
  });

  it('every form field has a Chinese label for server messages', () => {
    for (const key of Object.keys(personApplicationEdit.shape)) expect(personApplicationLabels[key], key).toBeTruthy();
  });
});

// ------------------------------------------------------------------ lists and action bodies

describe('list and queue filters', () => {
  it('-1 and empty mean all; a date range covers whole days', () => {
    const q = carApplicationListQuery.parse({ state: -1, visit_area: '', is_delayed: 0, visitor_type: '2', license_plate: ' 粤L ', begin_time: '2025-03-01', end_time: '2025-03-31' });
    expect(q).toMatchObject({ size: 10, pn: 1, is_delayed: 0, visitor_type: 2, license_plate: '粤L', begin_time: '2025-03-01 00:00:00', end_time: '2025-03-31 23:59:59' });
    expect(q.state).toBeUndefined();
    expect(q.visit_area).toBeUndefined();
    expect(errorsOf(carApplicationListQuery.safeParse({ begin_time: 'yesterday' })).begin_time).toBe('时间格式不正确');
  });

  it('queues filter by interviewee department', () => {
    expect(carTaskQuery.parse({ interviewee_depart_id: '5', visit_area: 1 })).toMatchObject({ interviewee_depart_id: 5, visit_area: 1 });
    expect(personTaskQuery.parse({ interviewee_depart_id: 5, visitor_name: '王' })).toMatchObject({ interviewee_depart_id: 5, visitor_name: '王' });
    expect(personApplicationListQuery.parse({ state: 3, is_delayed: -1, visitor_idcard: '4403' })).toMatchObject({ state: 3, visitor_idcard: '4403' });
  });
});

describe('action bodies', () => {
  it('id and revoke', () => {
    expect(idBody.parse({ id: '3' })).toEqual({ id: 3 });
    expect(errorsOf(revokeBody.safeParse({ id: 3 })).reason).toBe('请输入撤销理由');
    expect(errorsOf(revokeBody.safeParse({ id: 3, reason: '字'.repeat(201) })).reason).toBe('不能超过200个文字');
  });

  it('delay needs a reason and a range', () => {
    expect(errorsOf(carDelayBody.safeParse({ id: 1, visitor_begin_time: '2025-03-01', visitor_end_time: '2025-04-01' })).delay_reason).toBe('请输入延期理由');
    expect(carDelayBody.parse({ id: 1, visitor_begin_time: '2025-03-01', visitor_end_time: '2025-04-01', delay_reason: '工期延长' }).visitor_end_time).toBe('2025-04-01 23:59:59');
    expect(personDelayBody.parse({ id: 1, visit_begin_time: '2025-03-01', visit_end_time: '2025-04-01', delay_reason: '工期延长' }).visit_begin_time).toBe('2025-03-01 00:00:00');
  });

  it('approval: task ids, approve by default with 同意, a rejection needs an opinion', () => {
    expect(checkBody.parse({ taskIds: '11,12' })).toEqual({ taskIds: [11, 12], result: 1, remark: '同意' });
    expect(checkBody.parse({ taskIds: 11, result: '1', remark: '已核实' })).toEqual({ taskIds: [11], result: 1, remark: '已核实' });
    expect(errorsOf(checkBody.safeParse({ taskIds: '' })).taskIds).toBe('请选择要审核的任务');
    expect(errorsOf(checkBody.safeParse({ taskIds: 'a,b' })).taskIds).toBe('请选择要审核的任务');
    expect(errorsOf(checkBody.safeParse({ taskIds: '1', result: 2 })).remark).toBe('请输入审批意见');
    expect(checkBody.parse({ taskIds: '1', result: 2, remark: '资料不全' })).toEqual({ taskIds: [1], result: 2, remark: '资料不全' });
  });

  it('reject and resume', () => {
    expect(errorsOf(carReturnBody.safeParse({ carApplicationId: 1 })).remark).toBe('请输入审批意见');
    expect(errorsOf(personReturnBody.safeParse({ personApplicationId: 1, remark: ' ' })).remark).toBe('请输入审批意见');
    expect(carReturnSubmitBody.parse({ carApplicationId: '4' })).toEqual({ carApplicationId: 4 });
    expect(personReturnSubmitBody.parse({ personApplicationId: 4 })).toEqual({ personApplicationId: 4 });
  });

  it('amend and can-amend', () => {
    expect(carCanAmendBody.parse({ car_application_id: 1, process_instance_id: '2' })).toEqual({ car_application_id: 1, process_instance_id: 2 });
    expect(carAmendBody.parse({ car_application_id: 1, process_instance_id: 2, visitor_begin_time: '2025-04-01', visitor_end_time: '2025-04-02' })).toMatchObject({
      visitor_begin_time: '2025-04-01 00:00:00',
      visitor_end_time: '2025-04-02 23:59:59',
    });
    expect(errorsOf(personAmendBody.safeParse({ person_application_id: 1, process_instance_id: 2 })).visit_begin_time).toBe('请选择来访时间');
  });

  it('flag: vehicles, defaults colour 2 / type 1 / alarm 3, a reason, up to 9 photos', () => {
    expect(labelBody.parse({ car_application_ids: '3,4', remark: '超速' })).toEqual({ car_application_ids: [3, 4], color_id: 2, label_type_id: 1, alarm_id: 3, remark: '超速', photo: '' });
    expect(errorsOf(labelBody.safeParse({ car_application_ids: '', remark: '超速' })).car_application_ids).toBe('请先选择要标记的车辆');
    expect(errorsOf(labelBody.safeParse({ car_application_ids: '3' })).remark).toBe('请输入标记原因');
    expect(errorsOf(labelBody.safeParse({ car_application_ids: '3', remark: '字'.repeat(201) })).remark).toBe('不能超过200个文字');
    const e = errorsOf(labelBody.safeParse({ car_application_ids: '3', remark: 'x', color_id: -1, label_type_id: -1, alarm_id: -1 }));
    expect(Object.keys(e).sort()).toEqual(['alarm_id', 'color_id', 'label_type_id']);
    const photos = (n: number) => Array.from({ length: n }, (_, i) => `${i}.jpg`).join(';');
    expect(labelBody.safeParse({ car_application_ids: '3', remark: 'x', photo: photos(9) }).success).toBe(true);
    expect(errorsOf(labelBody.safeParse({ car_application_ids: '3', remark: 'x', photo: photos(10) })).photo).toBe('最多上传9张图片');
  });
});

// ------------------------------------------------------------------ state table (spec 000 §4)

describe('appointment state table (spec 000 §4)', () => {
  const states = [0, 1, 2, 3, 4];
  const table: Record<AppointmentAction, number[]> = {
    edit: [0, 3, 4],
    copy: [0, 1, 2, 3, 4],
    delay: [2],
    process: [1, 2, 3, 4],
    submit: [0],
    revoke: [1, 2],
    urge: [1],
    delete: [0, 3, 4],
    historyRevoke: [1, 2],
    allRevoke: [1, 2],
    reject: [1],
    resume: [3, 4],
    amend: [1, 2],
  };

  it.each(Object.entries(table))('%s is allowed in states %j', (action, allowed) => {
    for (const s of states) expect(stateAllows(action as AppointmentAction, s), `${action} in ${s}`).toBe(allowed.includes(s));
  });

  it('with every permission, canDo follows the state table for both kinds', () => {
    for (const kind of ['car', 'person'] as const) {
      for (const [action, allowed] of Object.entries(table)) {
        for (const s of states) expect(canDo(kind, action as AppointmentAction, s, () => true)).toBe(allowed.includes(s));
      }
    }
  });

  it('without permissions only the ungated actions remain', () => {
    for (const s of states) {
      expect(canDo('car', 'process', s, () => false)).toBe(s !== 0);
      for (const action of ['edit', 'copy', 'delay', 'submit', 'revoke', 'delete', 'reject', 'resume'] as const) {
        expect(canDo('car', action, s, () => false)).toBe(false);
      }
    }
  });

  it('each action is gated by its spec code', () => {
    const only = (code: string) => (c: string | undefined) => c === code;
    expect(canDo('car', 'edit', AppState.DRAFT, only('carApply:edit'))).toBe(true);
    expect(canDo('car', 'copy', AppState.APPROVED, only('carApply:add'))).toBe(true);
    expect(canDo('car', 'submit', AppState.DRAFT, only('carApply:commit'))).toBe(true);
    expect(canDo('car', 'revoke', AppState.REVIEW, only('carApply:revoke'))).toBe(true);
    expect(canDo('car', 'delete', AppState.REJECTED, only('carApply:delete'))).toBe(true);
    expect(canDo('car', 'historyRevoke', AppState.APPROVED, only('carApplyHis:revoke'))).toBe(true);
    expect(canDo('car', 'reject', AppState.REVIEW, only('carApplyAllHis:revoke'))).toBe(true);
    expect(canDo('car', 'resume', AppState.REVOKED, only('carApplyAllHis:revoke'))).toBe(true);
    expect(canDo('person', 'submit', AppState.DRAFT, only('personApply:commit'))).toBe(true);
    expect(canDo('person', 'resume', AppState.REJECTED, only('personApplyAllHis:revoke'))).toBe(true);
    expect(canDo('person', 'submit', AppState.DRAFT, only('carApply:commit'))).toBe(false);
    expect(canDo('car', 'edit', AppState.DRAFT, only('carApply:add'))).toBe(false);
  });

  it('explains a refused action with the current and the allowed states', () => {
    expect(stateConflictMessage('submit', AppState.APPROVED)).toBe('当前状态为“审核通过”，不能提交（仅“草稿”状态可以）');
    expect(stateConflictMessage('resume', AppState.REVIEW)).toBe('当前状态为“审核中”，不能继续审批（仅“已驳回”、“已撤销”状态可以）');
    expect(stateConflictMessage('delete', 9)).toContain('当前状态为“9”');
  });
});

describe('vehicle process and queues', () => {
  it('picks the process from cargo and model', () => {
    expect(vehicleProcessType('小型轿车', 1)).toBe(ProcessType.CHEMICALS);
    expect(vehicleProcessType('重型自卸货车', 1)).toBe(ProcessType.CHEMICALS);
    expect(vehicleProcessType('危险品运输车', 0)).toBe(ProcessType.CHEMICALS);
    expect(vehicleProcessType('重型自卸货车', 0)).toBe(ProcessType.HEAVY_DUMP);
    expect(vehicleProcessType('中型客车', null)).toBe(ProcessType.BUS);
    expect(vehicleProcessType('小型轿车', undefined)).toBe(ProcessType.CAR);
    expect(vehicleProcessType(null, null)).toBe(ProcessType.CAR);
  });

  it('lists the queues whose list code is held, in menu order (the home rows before the counts come)', () => {
    expect(listableApprovalQueues(new Set())).toEqual([]);
    expect(listableApprovalQueues(new Set(['personAppyApproval:list', 'carApplyApproval:list', 'carApplyApproval:check']))).toEqual(['car_task', 'person_task']);
    // Queues listed by their check code: holding only the batch code lists nothing.
    expect(listableApprovalQueues(new Set(['carShddFinalCheck:check', 'personShddFinalCheck:check']))).toEqual(['car_final', 'person_final']);
    expect(listableApprovalQueues(new Set(['carApplyApproval:batch']))).toEqual([]);
  });

  it('routes a task to the queue of its process, the last node to the final review', () => {
    expect(queueFor(ProcessType.PERSON, false)).toBe('person_task');
    expect(queueFor(ProcessType.PERSON, true)).toBe('person_final');
    expect(queueFor(ProcessType.CAR, false)).toBe('car_task');
    expect(queueFor(ProcessType.HEAVY_DUMP, false)).toBe('car_zxzxc');
    expect(queueFor(ProcessType.BUS, false)).toBe('car_bus');
    expect(queueFor(ProcessType.CHEMICALS, false)).toBe('car_chemicals');
    for (const t of [ProcessType.CAR, ProcessType.HEAVY_DUMP, ProcessType.BUS, ProcessType.CHEMICALS]) expect(queueFor(t, true)).toBe('car_final');
    for (const t of [ProcessType.REGISTRATION, ProcessType.CAR_LIST, ProcessType.PERSON_LIST, ProcessType.WAYBILL]) {
      expect(queueFor(t, false)).toBeNull();
      expect(queueFor(t, true)).toBeNull();
    }
  });
});
