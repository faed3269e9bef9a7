import { describe, expect, it } from 'vitest';
import { Direction, gateDecision, hazmatDenial, parksOfArea, waybillCovers, type HazmatFacts } from '../../domain/gate';
import type { LookupApplication, PassLookup } from '../../domain/pass';
import { hazmatCapOf, safetySettingInput } from '../../domain/schemas/safety-setting';

const app = (): LookupApplication => ({
  kind: 'car',
  id: 1,
  application_number: 'CA20261125000001',
  state: 2,
  begin: '2026-11-25 00:00:00',
  end: '2026-11-26 23:59:59',
  validity: 'valid',
  name: '张三',
  idcard_masked: '4413**********1234',
  visitor_company: '惠州恒通危险品运输有限公司',
  interviewee_name: '李强',
  interviewee_depart_name: '中海壳牌',
  is_delayed: 0,
  in_black_list: 0,
  license_plate: '粤L12345',
});
const lookup = (o: Partial<PassLookup> = {}): PassLookup => ({
  subject: { kind: 'car', license_plate: '粤L12345' },
  application: app(),
  applications: [],
  lists: [],
  flags: [],
  checkedAt: '2026-11-25 10:00:00',
  ...o,
});
const facts = (o: Partial<HazmatFacts> = {}): HazmatFacts => ({ plate: '粤L12345', waybill: '441300202600000001', parks: [{ park: 1, inside: 2, cap: 3 }], ...o });
const registered = () => false;
const entry = (type: number) => ({ id: 1, type, in_reason: '多次违规', start_time: null, end_time: null });

describe('危化品 at the gate (domain/gate.ts)', () => {
  it('lets a hazardous vehicle in with a covering waybill and room under the cap', () => {
    expect(gateDecision(lookup(), Direction.IN, registered, () => facts())).toMatchObject({ allow: true, reason: '预约已通过，放行' });
    expect(hazmatDenial(facts({ parks: [{ park: 1, inside: 100, cap: null }] }))).toBeNull();
  });
  it('refuses one without a waybill, naming the plate', () => {
    const d = gateDecision(lookup(), Direction.IN, registered, () => facts({ waybill: null }));
    expect(d).toEqual({ allow: false, reason: '危化品车辆（粤L12345）无有效运单，不能放行', application_number: 'CA20261125000001' });
  });
  it('refuses the next one once a park of its visit is at its cap', () => {
    const d = gateDecision(lookup(), Direction.IN, registered, () =>
      facts({
        parks: [
          { park: 1, inside: 1, cap: 5 },
          { park: 2, inside: 2, cap: 2 },
        ],
      }),
    );
    expect(d.allow).toBe(false);
    expect(d.reason).toContain('危化品车辆已达上限');
    expect(d.reason).toContain('港区在园2辆，上限2辆');
  });
  it('keeps the lists first and never holds an exit', () => {
    const none = () => facts({ waybill: null });
    expect(gateDecision(lookup({ lists: [entry(2)] }), Direction.IN, registered, none)).toMatchObject({ allow: true, list_type: 2 });
    expect(gateDecision(lookup({ lists: [entry(1)] }), Direction.IN, registered, none)).toMatchObject({ allow: false, list_type: 1 });
    expect(gateDecision(lookup(), Direction.OUT, registered, none)).toEqual({ allow: true, reason: '出场放行' });
    // A missing registration is said before the waybill.
    expect(gateDecision(lookup(), Direction.IN, () => true, none).reason).toContain('未备案');
  });
  it('reads a waybill as covering its shipment date and the day after', () => {
    expect(waybillCovers('2026-11-25', '2026-11-25')).toBe(true);
    expect(waybillCovers('2026-11-25', '2026-11-26')).toBe(true);
    expect(waybillCovers('2026-11-25', '2026-11-27')).toBe(false);
    expect(waybillCovers('2026-11-26', '2026-11-25')).toBe(false);
  });
  it('puts a visit to both parks in each', () => {
    expect(parksOfArea(3)).toEqual([1, 2]);
    expect(parksOfArea(2)).toEqual([2]);
    expect(parksOfArea(null)).toEqual([]);
    expect(hazmatCapOf({ hazmat_cap_chemical: 4, hazmat_cap_port: null }, 1)).toBe(4);
    expect(hazmatCapOf({ hazmat_cap_chemical: 4, hazmat_cap_port: null }, 2)).toBeNull();
  });
});

describe('安全设置 input', () => {
  it('takes an empty cap as none and digit strings as numbers', () => {
    expect(safetySettingInput.parse({ hazmat_cap_chemical: '', hazmat_cap_port: '12', repeat_offender_threshold: '3', repeat_offender_days: 90 })).toEqual({
      hazmat_cap_chemical: null,
      hazmat_cap_port: 12,
      repeat_offender_threshold: 3,
      repeat_offender_days: 90,
    });
  });
  it('refuses each field out of its rule with its name', () => {
    const bad = (o: Record<string, unknown>) => safetySettingInput.safeParse({ repeat_offender_threshold: 3, repeat_offender_days: 90, ...o }).error?.issues[0]?.message;
    expect(bad({ hazmat_cap_chemical: 0 })).toBe('化工区危化品车辆上限必须是1到10000之间的整数');
    expect(bad({ hazmat_cap_port: '2.5' })).toBe('港区危化品车辆上限必须是1到10000之间的整数');
    expect(bad({ repeat_offender_threshold: 1 })).toBe('重复告警次数必须是2到20之间的整数');
    expect(bad({ repeat_offender_days: 366 })).toBe('重复告警统计天数必须是7到365之间的整数');
    expect(bad({ repeat_offender_days: undefined })).toBe('请填写重复告警统计天数');
    expect(bad({ hazmat_cap_chemical: 'abc' })).toBe('化工区危化品车辆上限必须是1到10000之间的整数');
  });
});
