/**
 * The gate's decision (DESIGN.md §8): may this plate, ID number or pass go
 * through now? One pure rule over what the scan screen's lookup finds
 * (domain/pass.ts PassLookup), so that the device API and any screen that
 * shows a verdict say the same thing, in the same words.
 */
import { appointmentKinds } from './appointment-kinds';
import { AppState } from './appointments';
import type { LookupApplication, PassLookup } from './pass';
import { ListType } from './registers';

export const Direction = { IN: 1, OUT: 2 } as const;

/** A vehicle mark whose alarm type is 禁止入园 (enums.markAlarmType) keeps the vehicle out. */
export const MARK_DENIES_ENTRY = 1;

export interface GateDecision {
  allow: boolean;
  /** Why, in Chinese, as the gate's display and the record show it. */
  reason: string;
  application_number?: string;
  /** Until when the allowing appointment or list entry holds (park time). */
  valid_until?: string;
  /** The list entry that decided: 1 black, 2 white. */
  list_type?: number;
}

const subjectWord = (l: PassLookup) => appointmentKinds[l.subject?.kind ?? 'car'].words.subject;

/**
 * The rule, in order: an exit is never held (a vehicle inside must be able
 * to leave, black-listed or not); a black-list entry in force denies; an
 * active mark of type 禁止入园 denies; a white-list entry in force allows; an
 * approved appointment valid now allows, provided its vehicle's registration
 * rule holds (`registrationMissing`, checked by the caller for that
 * appointment); anything else denies with what is wrong.
 */
export function gateDecision(l: PassLookup, direction: number, registrationMissing: (a: LookupApplication) => boolean): GateDecision {
  const pass = l.pass;
  if (pass && (pass.status === 'forged' || pass.status === 'malformed' || pass.status === 'unknown-key')) {
    return { allow: false, reason: pass.status === 'unknown-key' ? '通行码不是本园区签发的，不能放行' : '通行码无效（签名校验失败），不能放行' };
  }
  if (direction === Direction.OUT) return { allow: true, reason: '出场放行' };
  const who = subjectWord(l);
  const black = l.lists.find((e) => e.type === ListType.BLACK);
  if (black) return { allow: false, reason: `黑名单${who}：${black.in_reason}`, list_type: ListType.BLACK };
  const banned = l.flags.find((f) => f.alarm_id === MARK_DENIES_ENTRY);
  if (banned) return { allow: false, reason: `车辆已被标记为禁止入园：${banned.remark}` };
  const white = l.lists.find((e) => e.type === ListType.WHITE);
  if (white) return { allow: true, reason: `白名单${who}，放行`, list_type: ListType.WHITE, ...(white.end_time ? { valid_until: white.end_time } : {}) };

  const a = l.application;
  if (!a) return { allow: false, reason: `无${who}预约记录，不能放行` };
  const number = { application_number: a.application_number };
  if (a.state !== AppState.APPROVED) return { allow: false, reason: `预约（${a.application_number}）尚未审批通过，不能放行`, ...number };
  if (a.validity === 'not-yet') return { allow: false, reason: `未到预约来访时间（${a.begin} 起），不能放行`, ...number };
  if (a.validity === 'expired') return { allow: false, reason: `预约已过期（${a.end} 止），不能放行`, ...number };
  if (registrationMissing(a)) return { allow: false, reason: `车辆（${a.license_plate}）未备案或备案不在来访日期内，不能放行`, ...number };
  return { allow: true, reason: '预约已通过，放行', ...number, valid_until: a.end };
}
