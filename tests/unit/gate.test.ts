import { describe, expect, it } from 'vitest';
import { Direction, gateDecision } from '../../domain/gate';
import { isDocumentNumber } from '../../domain/identity';
import type { LookupApplication, PassLookup } from '../../domain/pass';
import { eventProblem } from '../../domain/schemas/device-event';
import { isValidDateTime } from '../../domain/visit-rules';

const app = (o: Partial<LookupApplication> = {}): LookupApplication => ({
  kind: 'car',
  id: 1,
  application_number: 'CA20261125000001',
  state: 2,
  begin: '2026-11-25 00:00:00',
  end: '2026-11-26 23:59:59',
  validity: 'valid',
  name: '张三',
  idcard_masked: '4413**********1234',
  visitor_company: '惠州测试物流有限公司',
  interviewee_name: '李强',
  interviewee_depart_name: '中海壳牌',
  is_delayed: 0,
  in_black_list: 0,
  license_plate: '粤L12345',
  ...o,
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
const entry = (type: number) => ({ id: 1, type, in_reason: '多次违规', start_time: null, end_time: type === 2 ? '2027-01-01 23:59:59' : null });
const flag = (alarm_id: number) => ({
  id: 1,
  car_application_id: null,
  remark: '闯卡',
  color_id: 1,
  label_type_id: 2,
  alarm_id,
  photo: '',
  create_time: '2026-11-25 09:00:00',
  create_user_name: '张伟',
});
const registered = () => false;

describe('gateDecision (DESIGN.md §8)', () => {
  it('allows an approved appointment valid now, with its number and end', () => {
    expect(gateDecision(lookup(), Direction.IN, registered)).toEqual({ allow: true, reason: '预约已通过，放行', application_number: 'CA20261125000001', valid_until: '2026-11-26 23:59:59' });
  });
  it('never holds an exit, whatever the lists say', () => {
    expect(gateDecision(lookup({ lists: [entry(1)] }), Direction.OUT, registered)).toEqual({ allow: true, reason: '出场放行' });
  });
  it('refuses a black-listed subject before anything else, even a white entry or an approved visit', () => {
    expect(gateDecision(lookup({ lists: [entry(2), entry(1)] }), Direction.IN, registered)).toEqual({ allow: false, reason: '黑名单车辆：多次违规', list_type: 1 });
    expect(gateDecision(lookup({ subject: { kind: 'person', idcard_masked: '', name: '王五' }, lists: [entry(1)] }), Direction.IN, registered).reason).toBe('黑名单人员：多次违规');
  });
  it('refuses a 禁止入园 mark, but not a mark that only warns', () => {
    expect(gateDecision(lookup({ flags: [flag(1)] }), Direction.IN, registered)).toEqual({ allow: false, reason: '车辆已被标记为禁止入园：闯卡' });
    expect(gateDecision(lookup({ flags: [flag(3)] }), Direction.IN, registered).allow).toBe(true);
  });
  it('allows a white entry in force without an appointment', () => {
    expect(gateDecision(lookup({ application: null, lists: [entry(2)] }), Direction.IN, registered)).toEqual({
      allow: true,
      reason: '白名单车辆，放行',
      list_type: 2,
      valid_until: '2027-01-01 23:59:59',
    });
  });
  it('says what is wrong with the appointment otherwise', () => {
    expect(gateDecision(lookup({ application: null }), Direction.IN, registered).reason).toBe('无车辆预约记录，不能放行');
    expect(gateDecision(lookup({ application: app({ state: 1 }) }), Direction.IN, registered).reason).toBe('预约（CA20261125000001）尚未审批通过，不能放行');
    expect(gateDecision(lookup({ application: app({ validity: 'not-yet' }) }), Direction.IN, registered).reason).toBe('未到预约来访时间（2026-11-25 00:00:00 起），不能放行');
    expect(gateDecision(lookup({ application: app({ validity: 'expired' }) }), Direction.IN, registered).reason).toBe('预约已过期（2026-11-26 23:59:59 止），不能放行');
    expect(gateDecision(lookup(), Direction.IN, () => true)).toMatchObject({ allow: false, reason: '车辆（粤L12345）未备案或备案不在来访日期内，不能放行' });
  });
  it('refuses a pass whose signature does not hold, before looking at anything it claims', () => {
    const pass = (status: 'forged' | 'unknown-key' | 'malformed') => lookup({ pass: { status } as PassLookup['pass'] });
    expect(gateDecision(pass('forged'), Direction.OUT, registered)).toEqual({ allow: false, reason: '通行码无效（签名校验失败），不能放行' });
    expect(gateDecision(pass('unknown-key'), Direction.IN, registered).reason).toBe('通行码不是本园区签发的，不能放行');
  });
});

describe('what a device event may say (issue 23)', () => {
  const heartbeat = (o: Record<string, unknown>) => ({ event_id: 'E1', type: 'heartbeat', capture_time: '2026-11-25 08:00:00', ...o });

  it('takes only real calendar times', () => {
    for (const t of ['2024-02-29 00:00:00', '2026-12-31 23:59:59', '2026-01-01 00:00:00']) expect(isValidDateTime(t), t).toBe(true);
    for (const t of [
      '2025-02-30 08:00:00',
      '2025-02-29 08:00:00',
      '2025-04-31 08:00:00',
      '2025-13-01 08:00:00',
      '0000-00-00 00:00:00',
      '2025-01-01 25:61:61',
      '2025-01-01 24:00:00',
      '2025-01-01 23:60:00',
      '2025-01-01 23:59:60',
      '2025-01-01T08:00:00',
    ]) {
      expect(isValidDateTime(t), t).toBe(false);
    }
    expect(eventProblem(heartbeat({ capture_time: '2025-02-30 08:00:00' }))).toBe('抓拍时间不是真实的日期时间（月份 01-12、当月的日期、时 00-23、分秒 00-59）');
    expect(eventProblem(heartbeat({}))).toBeNull();
  });

  it('refuses an event id that is not well-formed text, and keeps one with a surrogate pair', () => {
    for (const id of ['A\uD800', '\uDC00B', 'A\uDC00\uD800']) expect(eventProblem(heartbeat({ event_id: id })), JSON.stringify(id)).toBe('事件ID含有无效字符（不成对的 UTF-16 代理项）');
    expect(eventProblem(heartbeat({ event_id: 'A😀' }))).toBeNull();
  });

  it('takes at a gate every document number an appointment takes', () => {
    for (const v of ['11010519491231002X', '11010519491231002x', 'E12345678', 'H1234567890', '810000199001011234'.slice(0, 10) + 'AB', 'abcde']) expect(isDocumentNumber(v), v).toBe(true);
    // An ID number's shape with a wrong check character is a mistyped ID, not another document.
    for (const v of ['110105194912310021', 'E-123', 'abcd', 'A'.repeat(31), '']) expect(isDocumentNumber(v), v).toBe(false);
    expect(eventProblem({ event_id: 'P1', type: 'person', capture_time: '2026-11-25 08:00:00', idcard: 'e12345678', direction: 1, open_result: 1 })).toBeNull();
  });
});
