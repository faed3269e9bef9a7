/**
 * What a park device sends (DESIGN.md §8): the bodies of /api/device/events
 * and /api/device/access. Shared by the server, the gate simulator and the
 * demo seed, which all feed the same ingestion code.
 */
import { z } from 'zod';
import { binary, col, defineCall, defineUpload } from '../contract';
import { isDocumentNumber, PLATE_PATTERN } from '../identity';
import { isValidDateTime } from '../visit-rules';
import { labelled, type FieldLabels } from './common';

export const MAX_EVENTS_PER_CALL = 500;
/** A capture time further ahead of the server's clock than this is a device clock gone wrong, not an event. */
export const MAX_CLOCK_AHEAD_MS = 10 * 60_000;
/**
 * The oldest capture a gate may still deliver: a gate that lost its network
 * replays its buffer when it is back, and a month covers any repair; an older
 * time is a device clock reset (1970) or garbage, and would rewrite stays
 * long closed (docs/decisions.md, Issue 23).
 */
export const MAX_CAPTURE_AGE_DAYS = 30;
/** A device that sends nothing (heartbeat or event) for this long is offline. */
export const OFFLINE_AFTER_MS = 5 * 60_000;

export const deviceEventLabels: FieldLabels = {
  events: '事件列表',
  event_id: '事件ID',
  type: '事件类型',
  capture_time: '抓拍时间',
  license_plate: '车牌号',
  license_plate_color: '车牌颜色',
  direction: '进出方向',
  open_result: '开闸结果',
  plate_image: '车牌图片',
  vehicle_image: '车辆图片',
  vehicle_brand: '车辆品牌',
  vehicle_type: '车辆类型',
  vehicle_color: '车身颜色',
  vehicle_compare_result: '车辆比对结果',
  face_compare_result: '人脸比对结果',
  idcard: '证件号码',
  person_name: '姓名',
  card_number: '卡号',
  card_status: '卡状态',
  image_type: '图片类型',
  snapshot: '抓拍图片',
  state: '设备状态',
  alarm_type: '告警类型',
  remark: '备注',
  pass: '通行码',
  list_version: '名单版本',
  list_age: '名单时长',
  since: '名单版本',
};

const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const text = (max: number, label: string) =>
  z
    .string({ error: `${label}必须是文本` })
    .trim()
    .max(max, { error: `${label}不能超过${max}个字符` });
const optionalText = (max: number, label: string) =>
  text(max, label)
    .optional()
    .transform((v) => v ?? '');
const code = (label: string, values: readonly number[]) =>
  z
    .number({ error: `${label}必须是数字` })
    .int({ error: `${label}必须是整数` })
    .refine((v) => values.includes(v), { error: `${label}只能是${values.join('、')}` });
const optionalCode = (label: string, values: readonly number[]) =>
  code(label, values)
    .optional()
    .nullable()
    .transform((v) => v ?? null);
/** A stored file name from /api/device/files (or none). */
const fileName = (label: string) => optionalText(80, label).refine((v) => v === '' || /^[0-9a-f]{32}\.[a-z0-9]{1,5}$/.test(v), { error: `${label}必须是 /api/device/files 返回的文件名` });

const base = {
  event_id: z
    .string({ error: '请提供事件ID' })
    .trim()
    .min(1, { error: '请提供事件ID' })
    .max(64, { error: '事件ID不能超过64个字符' })
    // A lone surrogate cannot be stored as text (UTF-8 turns each into U+FFFD), so two different ids would collide as a replay.
    .refine((v) => !/[\uD800-\uDFFF]/u.test(v), { error: '事件ID含有无效字符（不成对的 UTF-16 代理项）' }),
  capture_time: z
    .string({ error: '请提供抓拍时间' })
    .regex(TIME, { error: '抓拍时间格式应为 YYYY-MM-DD HH:mm:ss' })
    .refine(isValidDateTime, { error: '抓拍时间不是真实的日期时间（月份 01-12、当月的日期、时 00-23、分秒 00-59）' }),
};
const direction = code('进出方向', [1, 2]);
const openResult = code('开闸结果', [0, 1]);

export const vehicleEvent = z.object({
  ...base,
  type: z.literal('vehicle'),
  license_plate: z.string({ error: '请提供车牌号' }).trim().toUpperCase().regex(PLATE_PATTERN, { error: '车牌号格式不正确' }),
  license_plate_color: optionalCode('车牌颜色', [1, 2, 3, 4, 5, 6, 7]),
  direction,
  open_result: openResult,
  plate_image: fileName('车牌图片'),
  vehicle_image: fileName('车辆图片'),
  vehicle_brand: optionalText(30, '车辆品牌'),
  vehicle_type: optionalText(30, '车辆类型'),
  vehicle_color: optionalCode('车身颜色', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
  vehicle_compare_result: optionalCode('车辆比对结果', [0, 1]),
  face_compare_result: optionalCode('人脸比对结果', [0, 1]),
});
export const personEvent = z.object({
  ...base,
  type: z.literal('person'),
  idcard: z.string({ error: '请提供证件号码' }).trim().toUpperCase().refine(isDocumentNumber, { error: '证件号码格式不正确（身份证号，或其他证件的 5-30 位字母数字）' }),
  person_name: optionalText(30, '姓名'),
  card_number: optionalText(30, '卡号'),
  card_status: optionalCode('卡状态', [0, 1, 2]),
  image_type: optionalCode('图片类型', [1, 2]),
  direction,
  open_result: openResult,
  snapshot: fileName('抓拍图片'),
});
/** A whole number ≥ 0 no larger than a bigint column holds safely. */
const count = (label: string) =>
  z
    .number({ error: `${label}必须是数字` })
    .int({ error: `${label}必须是整数` })
    .min(0, { error: `${label}不能为负数` })
    .max(Number.MAX_SAFE_INTEGER, { error: `${label}过大` });
/**
 * A sign of life; a gate deciding offline (docs/offline-gates.md) adds its
 * allow-list's version and age in seconds (now minus the list's iat), which
 * the equipment screens show as 名单版本 and 名单更新时间.
 */
export const heartbeatEvent = z.object({
  ...base,
  type: z.literal('heartbeat'),
  state: optionalCode('设备状态', [0, 1]),
  list_version: count('名单版本')
    .optional()
    .nullable()
    .transform((v) => v ?? null),
  list_age: count('名单时长')
    .max(366 * 86_400, { error: '名单时长不能超过一年（秒）' })
    .optional()
    .nullable()
    .transform((v) => v ?? null),
});
export const alarmEvent = z.object({ ...base, type: z.literal('alarm'), alarm_type: text(30, '告警类型').min(1, { error: '请提供告警类型' }), remark: optionalText(200, '备注') });

/** One schema per event type; the server stores each type through its handler (server/modules/devices/event-handlers.ts). */
const eventTypes = [vehicleEvent, personEvent, heartbeatEvent, alarmEvent] as const;
const typeNames = eventTypes.map((s) => s.shape.type.value);
export const deviceEvent = z.discriminatedUnion('type', eventTypes, { error: `事件类型只能是 ${typeNames.slice(0, -1).join('、')} 或 ${typeNames.at(-1)}` });
export type DeviceEvent = z.output<typeof deviceEvent>;
export type VehicleEvent = z.output<typeof vehicleEvent>;
export type PersonEvent = z.output<typeof personEvent>;

/**
 * The batch: each event is checked on its own by the server (a bad one is
 * listed, the good ones of the batch kept), so the body only promises a list.
 */
export const eventsBody = labelled(
  z.object({
    events: z
      .array(z.unknown(), { error: '请提供事件列表（events 数组）' })
      .min(1, { error: '事件列表不能为空' })
      .max(MAX_EVENTS_PER_CALL, { error: `每次最多上报${MAX_EVENTS_PER_CALL}条事件` }),
  }),
  deviceEventLabels,
);

export const accessBody = labelled(
  z
    .object({
      direction,
      license_plate: z.preprocess((v) => (typeof v === 'string' ? v.trim().toUpperCase() || undefined : (v ?? undefined)), z.string().regex(PLATE_PATTERN, { error: '车牌号格式不正确' }).optional()),
      idcard: z.preprocess(
        (v) => (typeof v === 'string' ? v.trim().toUpperCase() || undefined : (v ?? undefined)),
        z.string().refine(isDocumentNumber, { error: '证件号码格式不正确（身份证号，或其他证件的 5-30 位字母数字）' }).optional(),
      ),
      pass: z.preprocess((v) => (typeof v === 'string' ? v.trim() || undefined : (v ?? undefined)), z.string().max(2000, { error: '通行码过长' }).optional()),
    })
    .refine((q) => [q.pass, q.license_plate, q.idcard].filter(Boolean).length === 1, { error: '请提供车牌号、证件号码或通行码中的一项', path: ['license_plate'] }),
  deviceEventLabels,
);

/** The first problem of one event, as its entry in `rejected` says it. */
export function eventProblem(event: unknown): string | null {
  const r = deviceEvent.safeParse(event);
  if (r.success) return null;
  const issue = r.error.issues[0]!;
  const field = String(issue.path[0] ?? '');
  const label = deviceEventLabels[field];
  return label && !issue.message.includes(label) ? `${label}：${issue.message}` : issue.message;
}

/** What a batch of events answers (DESIGN.md §8): how many were stored, how many were replays, and each refused event with why. */
export const ingestAnswer = z.object({ accepted: col.int, duplicates: col.int, rejected: z.array(z.object({ event_id: col.text, msg: col.text })) });

/** The gate's decision (domain/gate.ts GateDecision): the optional fields are there only when an appointment or a list entry decided. */
export const gateDecisionAnswer = z.object({
  allow: z.boolean(),
  /** Why, in Chinese, as the gate's display and the record show it. */
  reason: col.text,
  application_number: col.text.optional(),
  /** Until when the allowing appointment or list entry holds (park time). */
  valid_until: col.time.optional(),
  /** The list entry that decided: 1 black, 2 white. */
  list_type: col.int.optional(),
});

/** GET /api/device/allowlist: `since`, the version the gate holds; absent, the full list. */
export const allowlistQuery = labelled(
  z.object({
    since: z.preprocess(
      (v) => (typeof v === 'string' ? v.trim() || undefined : (v ?? undefined)),
      z
        .string({ error: '名单版本（since）必须是非负整数' })
        .regex(/^\d{1,15}$/, { error: '名单版本（since）必须是非负整数' })
        .transform(Number)
        .optional(),
    ),
  }),
  deviceEventLabels,
);

/** GET /api/device/allowlistKey: the ES256 public key the allow-list's JWS verifies with. */
export const allowlistKeyAnswer = z.object({
  alg: z.literal('ES256'),
  kid: col.text,
  jwk: z.object({ kty: z.literal('EC'), crv: z.literal('P-256'), x: col.text, y: col.text }),
});

/**
 * The device API (DESIGN.md §8, docs/api.md for gate vendors): a device's
 * key, never a user's session. Its paths, bodies and answers are the
 * contract integrators rely on.
 */
export const deviceApi = {
  events: defineCall({ method: 'POST', path: '/device/events', permission: 'device', summary: '设备上报事件（批量，按 event_id 去重）', input: eventsBody, answer: ingestAnswer }),
  files: defineUpload({
    method: 'POST',
    path: '/device/files',
    permission: 'device',
    summary: '设备上传图片（multipart，返回文件名供事件引用）',
    multipart: { file: '抓拍图片（JPG、PNG、WEBP、GIF，≤10MB），一次一个；每台设备每个园区自然日有上传数量上限（默认5000个，超出答复429）' },
    answer: z.object({ name: col.text, size: col.int, type: col.text }),
  }),
  access: defineCall({ method: 'POST', path: '/device/access', permission: 'device', summary: '闸机放行判定（车牌、证件号码或通行码）', input: accessBody, answer: gateDecisionAnswer }),
  // The answer is the compact JWS itself (application/jose), its payload the gzip-compressed list (docs/offline-gates.md).
  allowlist: defineCall({ method: 'GET', path: '/device/allowlist', permission: 'device', summary: '离线放行名单（签名，按版本增量）', input: allowlistQuery, answer: binary('application/jose') }),
  allowlistKey: defineCall({ method: 'GET', path: '/device/allowlistKey', permission: 'device', summary: '离线放行名单的验签公钥', input: z.object({}), answer: allowlistKeyAnswer }),
};
