import type { Kysely } from 'kysely';
import { enumLabel } from '../../../domain/enums';
import { AlarmLevel, strandedKinds, type StrandedKind } from '../../../domain/schemas/stranded';
import { NotificationKind, recordLink } from '../../../domain/notifications';
import { formatInZone } from '../../../domain/time';
import type { AppContext } from '../../core/context';
import { notify } from '../../core/notify';
import { deliverSms, enqueueSms, waitingSmsOf } from '../../core/sms-outbox';
import type { DB } from '../../db/schema';

/** A stranded-vehicle or stranded-person alarm as the alarm job raises it (spec 001 §3, "Stranded alarm"). */
export interface StrandedAlarm {
  kind: StrandedKind;
  /** The alarm row's id: the notification's tag, so a repeated push replaces rather than repeats. */
  alarmId: number;
  /** The plate of a vehicle, the name of a person. */
  subject: string;
  visitArea?: number | null;
  alarmTime: string;
  /** A black-listed subject's alarm says it came in, not that it stayed too long. */
  black: boolean;
  /** Why it was raised (stranded_alarm.level_type) where the words differ from a stay's: a hazardous vehicle refused for want of a waybill. */
  level?: number;
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
  /** 1: the SMS waits in the outbox for the commit (sendAlarmSms); 0: nothing to send, or settled. */
  sms_state: number;
}

/** Enabled users who may handle this kind of alarm through a live, enabled role (route deviations too, modules/driving-routes/deviation.ts). */
export async function holdersOf(trx: Kysely<DB>, code: string) {
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
  const noun = strandedKinds[alarm.kind].word;
  const gate = alarm.gate || '未知道闸';
  const area = alarm.visitArea ? enumLabel('visitArea', alarm.visitArea) : '园区';
  if (alarm.level === AlarmLevel.HAZMAT_NO_WAYBILL) {
    const title = '危化品车辆无运单';
    const body = `危化品车辆${alarm.subject}于${alarm.entryTime}到达${gate}，无有效运单，已拒绝入园，请立即核查`;
    const sms = (g: string) => `【园区出入管理】${title}：${alarm.subject}，${smsTime(alarm.entryTime)}在${g}被拒入园，请立即核查。`;
    return { title, body, sms: fitSms(sms, gate) };
  }
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
 * centre (and by Web Push) in the caller's transaction, and the SMS to each
 * holder's phone composed for sending after commit, because the security
 * lead must learn of it within seconds even where Web Push cannot reach
 * (DESIGN.md §5). The SMS is written into the outbox (core/sms-outbox.ts)
 * in the same transaction, and sendAlarmSms sends it once the transaction
 * has committed. Answers the SMS fields for the caller to store on the alarm
 * row in that transaction (sms_state 1 until the outbox settles it). Nothing
 * leaves the process here (DESIGN.md §11).
 */
export async function raiseStrandedAlarmNotifications(trx: Kysely<DB>, ctx: AppContext, alarm: StrandedAlarm): Promise<AlarmSmsFields> {
  const holders = await holdersOf(trx, strandedKinds[alarm.kind].deal);
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
      url: recordLink(strandedKinds[alarm.kind].screen, alarm.alarmId),
      tag: `stranded-${alarm.kind}-${alarm.alarmId}`,
    })),
  );
  const phones = [...new Set(holders.map((h) => h.phone.trim()).filter((p) => PHONE.test(p)))];
  if (phones.length === 0) return { phones: '', sms_send: 0, sms_content: texts.sms, sms_error_response: '没有可接收短信的告警处理人（无人持有处理权限或未登记手机号）', sms_state: 0 };
  // The account only labels the message in the provider's log; a phone shared by two holders goes once.
  const accounts = new Map(
    (await trx.selectFrom('sys_user').select(['account', 'phone']).where('phone', 'in', phones).where('deleted', '=', 0).orderBy('user_id').execute())
      .reverse()
      .map((u) => [u.phone.trim(), u.account]),
  );
  const time = ctx.time();
  await enqueueSms(
    trx,
    'stranded_alarm',
    alarm.alarmId,
    phones.map((phone) => ({ phone, account: accounts.get(phone) ?? '', text: texts.sms, time })),
    ctx.now(),
  );
  return { phones: phones.join(','), sms_send: 0, sms_content: texts.sms, sms_error_response: null, sms_state: 1 };
}

const PHONE = /^1\d{10}$/;

/**
 * Sends a committed alarm's SMS from the outbox, once (core/sms-outbox.ts:
 * the server whose claim succeeds sends it, after commit, bounded by a
 * timeout), and records the outcome on the alarm (sms_send,
 * sms_error_response, sms_state 0). Another server, or a second call, finds
 * nothing to claim. Answers whether this call sent it.
 */
export async function sendAlarmSms(ctx: AppContext, alarmId: number): Promise<boolean> {
  const messageId = await waitingSmsOf(ctx.db, 'stranded_alarm', alarmId);
  if (messageId === null) return false;
  const outcome = await deliverSms(ctx, messageId);
  if (!outcome) return false;
  await ctx.db
    .updateTable('stranded_alarm')
    .set({ sms_state: 0, sms_send: outcome.sent ? 1 : 0, sms_error_response: outcome.errors.length ? outcome.errors.join('；').slice(0, 500) : null })
    .where('id', '=', alarmId)
    .execute();
  return true;
}

/**
 * The safety net of the SMS outbox (the alarm job's minute pass): alarms
 * committed at least a minute ago whose SMS still waits, because the server
 * that raised them stopped before sending. Answers how many this call sent.
 */
export async function sendWaitingAlarmSms(ctx: AppContext, batch = 100): Promise<number> {
  const before = formatInZone(ctx.now() - 60_000, ctx.config.tz);
  const waiting = await ctx.db.selectFrom('stranded_alarm').select('id').where('sms_state', '=', 1).where('create_time', '<=', before).orderBy('id').limit(batch).execute();
  let sent = 0;
  for (const { id } of waiting) if (await sendAlarmSms(ctx, id)) sent++;
  return sent;
}
