/**
 * The gate's decision (DESIGN.md §8): may this plate, ID number or pass go
 * through now? One pure rule over what the scan screen's lookup finds
 * (domain/pass.ts PassLookup), so that the device API and any screen that
 * shows a verdict say the same thing, in the same words.
 */
import { appointmentKinds } from './appointment-kinds';
import { AppState } from './appointments';
import { enumLabel } from './enums';
import type { LookupApplication, PassLookup } from './pass';
import { ListType } from './registers';
import { addDays } from './visit-rules';

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

/**
 * A waybill covers its shipment date (起运日期) and the day after: a delivery
 * may set out the evening before it reaches the park (docs/decisions.md).
 */
export const WAYBILL_DAYS_AFTER_SHIPMENT = 1;

/** Whether a waybill shipped on `shipmentDate` covers the park day `day` (both 'YYYY-MM-DD'). */
export const waybillCovers = (shipmentDate: string, day: string): boolean => shipmentDate <= day && day <= addDays(shipmentDate, WAYBILL_DAYS_AFTER_SHIPMENT);

/** The first shipment date whose waybill still covers `day`: the lower bound of the server's lookup. */
export const earliestCoveringShipment = (day: string): string => addDays(day, -WAYBILL_DAYS_AFTER_SHIPMENT);

/** The parks a visit's area (enums.visitArea) is inside: 3 is both 化工区 and 港区. */
export const PARKS = [1, 2] as const;
export const parksOfArea = (area: number | null | undefined): number[] => (area === 3 ? [...PARKS] : area === 1 || area === 2 ? [area] : []);

/**
 * What the gate needs to know of a vehicle whose model is hazardous
 * (appointments.ts isHazardousModel), looked up by the server: the approved
 * waybill naming its plate that covers today, and for each park its visit is
 * to, the hazardous vehicles inside now (itself not counted) and the park's cap.
 */
export interface HazmatFacts {
  plate: string;
  /** The covering waybill's number (全国运单编号); null when there is none. */
  waybill: string | null;
  parks: Array<{ park: number; inside: number; cap: number | null }>;
}

/**
 * The hazardous-goods rule: without a covering waybill it stays out; with
 * one, it stays out while any park of its visit holds as many hazardous
 * vehicles as that park's cap. Null: the rule lets it in.
 */
export function hazmatDenial(f: HazmatFacts): string | null {
  if (!f.waybill) return `危化品车辆（${f.plate}）无有效运单，不能放行`;
  const full = f.parks.find((p) => p.cap !== null && p.inside >= p.cap);
  if (full) return `危化品车辆已达上限（${enumLabel('visitArea', full.park)}在园${full.inside}辆，上限${full.cap}辆），不能放行`;
  return null;
}

const subjectWord = (l: PassLookup) => appointmentKinds[l.subject?.kind ?? 'car'].words.subject;

/**
 * The rule, in order: an exit is never held (a vehicle inside must be able
 * to leave, black-listed or not); a black-list entry in force denies; an
 * active mark of type 禁止入园 denies; a white-list entry in force allows; an
 * approved appointment valid now allows, provided its vehicle's registration
 * rule holds (`registrationMissing`, checked by the caller for that
 * appointment) and, for a hazardous model, the waybill and cap rule
 * (`hazmat`: the facts the caller looked up, null for any other vehicle);
 * anything else denies with what is wrong. So a white-listed vehicle is let
 * in without a waybill, and a black-listed one is refused for the black list.
 */
export function gateDecision(
  l: PassLookup,
  direction: number,
  registrationMissing: (a: LookupApplication) => boolean,
  hazmat: (a: LookupApplication) => HazmatFacts | null = () => null,
): GateDecision {
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
  const facts = hazmat(a);
  const hazmatRefusal = facts && hazmatDenial(facts);
  if (hazmatRefusal) return { allow: false, reason: hazmatRefusal, ...number };
  return { allow: true, reason: '预约已通过，放行', ...number, valid_until: a.end };
}
