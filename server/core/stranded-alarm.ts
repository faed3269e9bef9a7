import type { Kysely } from 'kysely';
import { enumLabel } from '../../domain/enums';
import { NotificationKind, recordLink } from '../../domain/notifications';
import type { DB } from '../db/schema';
import type { AppContext } from './context';
import { notify } from './notify';

/** A stranded-vehicle or stranded-person alarm as the alarm job raises it (spec 001 §3, "Stranded alarm"). */
export interface StrandedAlarm {
  kind: 'car' | 'person';
  /** The alarm row's id: the notification's tag, so a repeated push replaces rather than repeats. */
  alarmId: number;
  /** The plate of a vehicle, the name of a person. */
  subject: string;
  visitArea?: number | null;
  alarmTime: string;
  /** A black-listed subject's alarm says it came in, not that it stayed too long. */
  black: boolean;
  /** The gate it came in by (its equipment name), and when. */
  gate: string;
  entryTime: string;
}

/** What the alarm row records about its SMS (spec: phones, sms_send, sms_content, sms_error_response). */
export interface AlarmSmsFields {
  phones: string;
  /** 1 when every recipient's message was accepted by the SMS provider, otherwise 0. */
  sms_send: number;
  sms_content: string;
  sms_error_response: string | null;
}

const dealCode = { car: 'strandedManagementCar:deal', person: 'strandedManagementPerson:deal' } as const;
const screen = { car: '/security/stranded-car', person: '/security/stranded-person' } as const;
/** A provider that does not answer must not hold the alarm job (and its transaction) for long. */
const SMS_TIMEOUT_MS = 10_000;

/** Enabled users who may handle this kind of alarm through a live, enabled role. */
async function holdersOf(trx: Kysely<DB>, code: string) {
  return trx
    .selectFrom('sys_user as u')
    .innerJoin('sys_user_role as ur', 'ur.user_id', 'u.user_id')
    .innerJoin('sys_role as r', 'r.role_id', 'ur.role_id')
    .innerJoin('sys_role_permission as rp', 'rp.role_id', 'r.role_id')
    .innerJoin('sys_permission as p', 'p.permission_id', 'rp.permission_id')
    .select(['u.user_id', 'u.account', 'u.phone'])
    .distinct()
    .where('p.code', '=', code)
    .where('p.deleted', '=', 0)
    .where('p.status', '=', 1)
    .where('r.deleted', '=', 0)
    .where('r.status', '=', 1)
    .where('u.deleted', '=', 0)
    .where('u.status', '=', 1)
    .orderBy('u.user_id')
    .execute();
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`短信服务${ms / 1000}秒内未响应`)), ms)))]).finally(() => clearTimeout(timer));
}

/**
 * Tells everyone who may handle a stranded alarm: a notification in the
 * centre (and by Web Push) in the caller's transaction, and an SMS to each
 * holder's phone, because the security lead must learn of it within seconds
 * even where Web Push cannot reach (DESIGN.md §5). Answers the SMS fields for
 * the caller to store on the alarm row in the same transaction. The SMS is
 * sent before that commit: should the transaction then fail, the next run of
 * the alarm job raises (and texts) the alarm again, which is the safe side.
 */
/**
 * One SMS segment holds 70 characters of Chinese text (UCS-2); a longer
 * message arrives in parts that phones may show apart, cut anywhere, even
 * inside a time ("1 / 8:28:06"). The texts are built to fit one segment: the
 * time with neither year nor spaces, and a long gate name shortened.
 */
export const SMS_SEGMENT = 70;

/** '11月27日18:28:06': no space or slash where a phone may break the line, and short. */
export function smsTime(time: string): string {
  return `${Number(time.slice(5, 7))}月${Number(time.slice(8, 10))}日${time.slice(11, 19)}`;
}

/** The notification's and the SMS's words for what happened (spec 001 §3, issue 24 item 4). */
export function alarmTexts(alarm: Omit<StrandedAlarm, 'alarmId'>): { title: string; body: string; sms: string } {
  const noun = alarm.kind === 'car' ? '车辆' : '人员';
  const gate = alarm.gate || '未知道闸';
  const area = alarm.visitArea ? enumLabel('visitArea', alarm.visitArea) : '园区';
  if (alarm.black) {
    const title = `黑名单${noun}入园`;
    const body = `黑名单${noun}${alarm.subject}于${alarm.entryTime}经${gate}入园，请立即处理`;
    const sms = (g: string) => `【园区出入管理】${title}：${alarm.subject}，${smsTime(alarm.entryTime)}经${g}入园，请立即处理。`;
    return { title, body, sms: fitSms(sms, gate) };
  }
  const title = `${noun}滞留告警`;
  const body = `${noun}${alarm.subject}在${area}滞留超时（告警时间 ${alarm.alarmTime}），${alarm.entryTime}经${gate}入园，请及时处理`;
  const sms = (g: string) => `【园区出入管理】${title}：${alarm.subject}在${area}滞留超时，${smsTime(alarm.alarmTime)}告警，经${g}入园，请及时处理。`;
  return { title, body, sms: fitSms(sms, gate) };
}

/** The SMS with the gate name shortened as far as one segment needs (the plate or name and the time are never cut). */
function fitSms(text: (gate: string) => string, gate: string): string {
  const over = text(gate).length - SMS_SEGMENT;
  if (over <= 0) return text(gate);
  const keep = Math.max(1, gate.length - over - 1);
  return text(`${gate.slice(0, keep)}…`);
}

/**
 * Tells everyone who may handle a stranded alarm: a notification in the
 * centre (and by Web Push) in the caller's transaction, and an SMS to each
 * holder's phone, because the security lead must learn of it within seconds
 * even where Web Push cannot reach (DESIGN.md §5). Answers the SMS fields for
 * the caller to store on the alarm row in the same transaction. The SMS is
 * sent before that commit: should the transaction then fail, the next run of
 * the alarm job raises (and texts) the alarm again, which is the safe side.
 */
export async function raiseStrandedAlarmNotifications(trx: Kysely<DB>, ctx: AppContext, alarm: StrandedAlarm): Promise<AlarmSmsFields> {
  const holders = await holdersOf(trx, dealCode[alarm.kind]);
  const texts = alarmTexts(alarm);
  await notify(
    trx,
    ctx,
    holders.map((h) => ({
      userId: h.user_id,
      kind: NotificationKind.STRANDED_ALARM,
      title: texts.title,
      body: texts.body,
      // Opens the alarm itself on its screen (the list screen reads ?open=<id>).
      url: recordLink(screen[alarm.kind], alarm.alarmId),
      tag: `stranded-${alarm.kind}-${alarm.alarmId}`,
    })),
  );

  const smsContent = texts.sms;
  const recipients = holders.filter((h) => /^1\d{10}$/.test(h.phone.trim()));
  const phones = [...new Set(recipients.map((h) => h.phone.trim()))];
  if (phones.length === 0) return { phones: '', sms_send: 0, sms_content: smsContent, sms_error_response: '没有可接收短信的告警处理人（无人持有处理权限或未登记手机号）' };

  const time = ctx.time();
  const errors: string[] = [];
  await Promise.all(
    phones.map(async (phone) => {
      const account = recipients.find((h) => h.phone.trim() === phone)!.account;
      try {
        await withTimeout(ctx.sms.send({ phone, account, text: smsContent, time }), SMS_TIMEOUT_MS);
      } catch (err) {
        errors.push(`${phone}：${err instanceof Error ? err.message : String(err)}`);
      }
    }),
  );
  return {
    phones: phones.join(','),
    sms_send: errors.length === 0 ? 1 : 0,
    sms_content: smsContent,
    sms_error_response: errors.length ? errors.sort().join('；').slice(0, 500) : null,
  };
}
