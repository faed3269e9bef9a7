import type { Kysely } from 'kysely';
import { addDays } from '../../domain/visit-rules';
import type { DB } from '../../server/db/schema';

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
/** A resident ID number with a valid check character; suites pass their own birth month so their numbers differ. */
export function idNumber(seq: number, birthMonth = '02'): string {
  const body = `4401061990${birthMonth}${String(10 + (seq % 18)).padStart(2, '0')}${String(seq % 1000).padStart(3, '0')}`;
  const sum = ID_WEIGHTS.reduce((acc, w, i) => acc + w * Number(body[i]), 0);
  return body + '10X98765432'[sum % 11];
}

/**
 * A valid vehicle application body for the API suites: a temporary visit to
 * the given department starting four days from `today` (vehicles must start
 * after the day after tomorrow). Callers give what must differ per row.
 */
export function carApplicationBody(v: { today: string; license_plate: string; applicant_idcard: string; vehicle_type_id: number; interviewee_depart_id: number }) {
  return {
    license_plate: v.license_plate,
    license_plate_color: 2,
    vehicle_type_id: v.vehicle_type_id,
    applicant_name: '测试司机',
    applicant_idcard: v.applicant_idcard,
    applicant_gender: 0,
    applicant_phone: '13900002222',
    visitor_idcard_type: 1,
    visit_area: 1,
    visitor_type: 3,
    visitor_company: '惠州测试物流有限公司',
    visitor_content: '送货',
    visitor_begin_time: addDays(v.today, 4),
    visitor_end_time: addDays(v.today, 5),
    interviewee_name: '李强',
    interviewee_phone: '13800000003',
    interviewee_depart_id: v.interviewee_depart_id,
  };
}

/**
 * A valid person application body for the API suites: a temporary visit
 * (type 4) to the given department tomorrow and the day after. Callers give
 * what must differ per row.
 */
export function personApplicationBody(v: { today: string; visitor_idcard: string; interviewee_depart_id: number }) {
  return {
    visitor_name: '测试访客',
    visitor_gender: 1,
    visitor_nation: '汉族',
    visitor_phone: '13900001111',
    visitor_company: '广州测试检测有限公司',
    visitor_type: 4,
    visitor_idcard_type: 1,
    visitor_idcard: v.visitor_idcard,
    visit_content: '设备验收',
    visit_begin_time: addDays(v.today, 1),
    visit_end_time: addDays(v.today, 2),
    visit_area: 1,
    interviewee_name: '李强',
    interviewee_phone: '13800000003',
    interviewee_depart_id: v.interviewee_depart_id,
  };
}

/**
 * An approved registration of `plate` valid from `begin` to `end` (dates), written
 * straight to the database: a vehicle model with need_record = 1 is submitted only
 * with one covering its visit (DESIGN.md §7). Suites about other things use this;
 * the registration's own walk is tests/api/vehicle-registrations.test.ts.
 */
export async function registerPlate(db: Kysely<DB>, plate: string, begin: string, end: string): Promise<void> {
  const now = `${begin} 00:00:00`;
  await db
    .insertInto('vehicle_registration')
    .values({
      license_plate: plate,
      visit_area: 3,
      visitor_company: '惠州测试物流有限公司',
      phone: '13900007777',
      total_mass: 31,
      begin_time: `${begin} 00:00:00`,
      end_time: `${end} 23:59:59`,
      state: 2,
      create_time: now,
      update_time: now,
    })
    .execute();
}

/** A valid vehicle registration body (spec 001): two hundred days from `today`, both documents the given upload. */
export function registrationBody(v: { today: string; license_plate: string; photo: string }) {
  return {
    license_plate: v.license_plate,
    license_plate_color: 1,
    visit_area: 1,
    visitor_company: '惠州测试运输有限公司',
    phone: '13900003333',
    total_mass: 31.5,
    begin_time: v.today,
    end_time: addDays(v.today, 200),
    registry_img: v.photo,
    business_license_img: v.photo,
  };
}

/** A valid transport waybill body (spec 001): shipped two days from `today`, its annex the given upload. */
export function waybillBody(v: { today: string; list_number: string; license_plate: string; annex: string }) {
  return {
    transport_type: 2,
    list_number: v.list_number,
    cargo_name: '乙二醇',
    cargo_quantity: 28.5,
    enterprise: '惠州市大亚湾恒通危险品运输有限公司',
    unified_social_credit_code: '91441300ma4w8k2l5t',
    business_license_number: '粤交运管许可惠字441300012345号',
    contact_phone: '0752-5568899',
    license_plate: v.license_plate,
    license_plate_color: 1,
    vehicle_transport_license: '粤交运管惠字441300001号',
    trailer_license: '粤K1234挂',
    trailer_transport_license: '粤交运管惠字441300009号',
    tank_volume: 30,
    driver: '黎志强',
    driver_qualification_certificate: '4413002019001234',
    driver_phone: '13922001101',
    supercargo: '罗小明',
    supercargo_qualification_certificate: '4413002020005678',
    supercargo_phone: '13600011122',
    shipper: '惠州宇新化工有限责任公司',
    shipper_phone: '0752-5561000',
    recipient: '中海壳牌石油化工有限公司',
    recipient_phone: '0752-5562000',
    carrier: '惠州市大亚湾恒通危险品运输有限公司',
    carrier_phone: '0752-5568899',
    loader: '钟伟',
    loader_phone: '13600022233',
    shipment_date: addDays(v.today, 2),
    shipment_addr: '惠州市大亚湾石化区宇新化工厂区',
    destination: '中海壳牌石化大道罐区',
    annex: v.annex,
  };
}

/**
 * A stored vehicle visit as a row of car_application, for suites and benches that write visits straight into the
 * database (the gates' lists read them as they are): the fields given, a general process, no photos or cargo.
 */
export function carVisitRow(v: {
  application_number: string;
  state: number;
  license_plate: string;
  vehicle_type_id: number;
  applicant_idcard: string;
  begin: string;
  end: string;
  interviewee_depart_id: number;
  time: string;
}) {
  return {
    application_number: v.application_number,
    state: v.state,
    process_type: 2,
    process_instance_id: null,
    license_plate: v.license_plate,
    license_plate_color: 2,
    vehicle_type_id: v.vehicle_type_id,
    applicant_name: '测试司机',
    applicant_idcard: v.applicant_idcard,
    applicant_gender: 0,
    applicant_phone: '13900002222',
    visitor_idcard_type: 1,
    visit_area: 1,
    visitor_type: 3,
    visitor_company: '惠州测试物流有限公司',
    visitor_content: '送货',
    visitor_begin_time: v.begin,
    visitor_end_time: v.end,
    interviewee_name: '李强',
    interviewee_phone: '13800000003',
    interviewee_depart_id: v.interviewee_depart_id,
    color_id: null,
    cargo_type: null,
    car_load: null,
    dump_truck_file: null,
    cargo_info: null,
    car_info_id: null,
    create_user_id: 1,
    create_time: v.time,
    update_time: v.time,
  };
}
