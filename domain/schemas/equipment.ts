import { z } from 'zod';
import { col, defineCall, defineResourceContract } from '../contract';
import { idBody } from './car-application';
import { choice01, idField, intField, labelled, optionalFilterInt, optionalFilterText, optionalText, pageQuery, requiredText } from './common';
import type { CrudPrefix } from '../permissions';

/**
 * The seven equipment kinds of spec 001 (§2 Equipment lists, §3 Devices,
 * §6 codes, §7 paths). `gate` and `bumpingPost` are our path names for the
 * two kinds whose paths the spec does not show; the lifting anti-collision
 * pillar has no codes in the spec and gets its own (docs/decisions.md).
 */
export const equipmentLabels = {
  id: '设备ID',
  name: '设备名称',
  number: '设备编号',
  type: '道闸类型',
  entrances_type: '入口归属',
  is_security_check: '是否安检',
  temporary_reservation: '适用临时预约',
  lane_number: '通道编号',
  plate: '车牌号',
  longitude: '经度',
  latitude: '纬度',
  state: '在线状态',
  state_update_time: '最后状态时间',
  key_issued_time: '密钥签发时间',
  allowlist_version: '名单版本',
  allowlist_time: '名单更新时间',
};
export type EquipmentField = keyof typeof equipmentLabels;

export const NUMBER_PATTERN = /^[0-9A-Za-z_-]+$/;

/** A coordinate in degrees, optional; digit strings from forms are numbers. */
const coordinate = (label: string, limit: number) =>
  z.preprocess(
    (v) => (v === '' || v === null || v === undefined ? null : typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : v),
    z
      .number({ error: `${label}必须是数字` })
      .min(-limit, { error: `${label}范围为-${limit}至${limit}` })
      .max(limit, { error: `${label}范围为-${limit}至${limit}` })
      .nullable(),
  );

/** Every input field a kind's form may hold, with its rule. */
const fieldRules = {
  name: requiredText('请输入设备名称', 30, '不能超过30个文字'),
  number: requiredText('请输入设备编号', 50, '不能超过50个字符').regex(NUMBER_PATTERN, { error: '仅限数字、英文字母、下划线和中划线' }),
  type: intField('请选择道闸类型').pipe(z.union([z.literal(1), z.literal(2)], { error: '请选择道闸类型' })),
  entrances_type: intField('请选择入口归属').pipe(z.union([z.literal(1), z.literal(2), z.literal(3)], { error: '请选择入口归属' })),
  is_security_check: choice01('请选择是否安检'),
  temporary_reservation: choice01('请选择是否适用临时预约'),
  lane_number: requiredText('请输入通道编号', 30, '不能超过30个字符'),
  plate: optionalText(10, '车牌号不能超过10个字符'),
  longitude: coordinate('经度', 180),
  latitude: coordinate('纬度', 90),
} satisfies Partial<Record<EquipmentField, z.ZodType>>;
type InputField = keyof typeof fieldRules;

/** Filters and their rule; 'state' -1 means all (spec 001 §1). */
const filterRules = {
  name: optionalFilterText,
  number: optionalFilterText,
  plate: optionalFilterText,
  type: optionalFilterInt,
  entrances_type: optionalFilterInt,
  state: optionalFilterInt,
};
type FilterField = keyof typeof filterRules;

export interface EquipmentKindDef {
  /** The path segment: /equipment/{kind}/list ... */
  kind: string;
  title: string;
  /** Permission code prefix: `${codes}:list`, add, edit, delete. */
  codes: CrudPrefix;
  /** Form fields in order. */
  fields: readonly InputField[];
  filters: readonly FilterField[];
}

const located = ['name', 'number', 'longitude', 'latitude'] as const;

export const equipmentKinds = {
  gate: {
    kind: 'gate',
    title: '道闸设备',
    codes: 'gateDevice',
    fields: ['name', 'number', 'type', 'entrances_type', 'is_security_check', 'temporary_reservation', 'longitude', 'latitude'],
    filters: ['number', 'name', 'type', 'entrances_type', 'state'],
  },
  bumpingPost: { kind: 'bumpingPost', title: '防撞柱', codes: 'bumpingPostDevice', fields: located, filters: ['name', 'number', 'state'] },
  tireCrushing: { kind: 'tireCrushing', title: '破胎器', codes: 'tireBreakerDevice', fields: located, filters: ['name', 'number', 'state'] },
  liftingAntiCollisionPillar: { kind: 'liftingAntiCollisionPillar', title: '升降防撞柱', codes: 'liftingPillarDevice', fields: located, filters: ['name', 'number', 'state'] },
  securityLaneIdentification: {
    kind: 'securityLaneIdentification',
    title: '安检通道识别',
    codes: 'securityLaneIDevice',
    fields: ['name', 'number', 'lane_number', 'longitude', 'latitude'],
    filters: ['name', 'number'],
  },
  truckScales: { kind: 'truckScales', title: '地磅系统', codes: 'carScaleSystemDevice', fields: located, filters: ['name', 'number'] },
  carMountedFacialRecognition: {
    kind: 'carMountedFacialRecognition',
    title: '车载人脸识别',
    codes: 'carFaceDevice',
    fields: ['name', 'number', 'plate'],
    filters: ['name', 'number', 'plate', 'state'],
  },
} as const satisfies Record<string, EquipmentKindDef>;

export type EquipmentKind = keyof typeof equipmentKinds;
export const equipmentKindList = Object.values(equipmentKinds) as EquipmentKindDef[];

const pick = <K extends string, V>(rules: Record<K, V>, keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, rules[k]])) as Record<K, V>;

/** The wire schemas of one kind: list filters, create, update (with id) and the id body. */
export function equipmentSchemas(def: EquipmentKindDef) {
  const fields = pick(fieldRules, def.fields);
  return {
    list: labelled(pageQuery.extend(pick(filterRules, def.filters)), equipmentLabels),
    create: labelled(z.object(fields), equipmentLabels),
    update: labelled(z.object({ ...fields, id: idField(equipmentLabels.id) }), equipmentLabels),
    id: labelled(z.object({ id: idField(equipmentLabels.id) }), equipmentLabels),
  };
}

/** Answer-side columns of the kinds' own fields; a kind answers only its own (EquipmentKindDef.fields). */
const kindColumns = {
  type: col.int.nullable(),
  entrances_type: col.int.nullable(),
  is_security_check: col.flag.nullable(),
  temporary_reservation: col.flag.nullable(),
  lane_number: col.text.nullable(),
  plate: col.text.nullable(),
  longitude: col.num.nullable(),
  latitude: col.num.nullable(),
};
type KindColumn = keyof typeof kindColumns;

/** Every kind answers these: its name and number, and the state the device API sets (DESIGN.md §8). */
const baseColumns = {
  id: col.id,
  name: col.text,
  number: col.text,
  state: col.int,
  state_update_time: col.time.nullable(),
  /** When the device's key (DESIGN.md §8) was last issued; null while it has none. The key and its hash never leave the server. */
  key_issued_time: col.time.nullable(),
  /** The offline allow-list the device's heartbeat last reported (docs/offline-gates.md): its version and the park time it was built; null while none. */
  allowlist_version: col.int.nullable(),
  allowlist_time: col.time.nullable(),
  /** 1 when that list is older than ALLOWLIST_MAX_AGE: the device refuses visitors while offline. */
  allowlist_stale: col.flag,
  create_time: col.time,
  update_time: col.time,
};

/** The columns a kind's rows are read with (key_hash and last_seen_at stay on the server). */
export const equipmentColumns = (def: EquipmentKindDef): string[] => [
  'id',
  'name',
  'number',
  ...def.fields.filter((f) => f !== 'name' && f !== 'number'),
  'state',
  'state_update_time',
  'key_issued_time',
  'allowlist_version',
  'allowlist_time',
  'create_time',
  'update_time',
];

/** A device row of one kind as the API answers it: the kind's own fields plus the device API's state. */
export const equipmentRowOf = (def: EquipmentKindDef) =>
  z.object({
    ...baseColumns,
    ...pick(
      kindColumns,
      def.fields.filter((f): f is KindColumn => f in kindColumns),
    ),
  }) as unknown as z.ZodType<EquipmentRow>;

/** A device row of any kind: the base columns, and the kind's own fields where the kind has them. */
export type EquipmentRow = z.infer<z.ZodObject<typeof baseColumns>> & Partial<z.infer<z.ZodObject<typeof kindColumns>>>;

/**
 * One kind on the wire (spec 001 §7): /equipment/{kind}/list, GET detail,
 * save, edit, delete under its codes, and issueKey (DESIGN.md §8), which
 * changes the device and is its edit code's.
 */
export function equipmentApiOf(def: EquipmentKindDef) {
  const base = `/equipment/${def.kind}`;
  const schemas = equipmentSchemas(def);
  return {
    ...defineResourceContract({
      noun: def.title,
      key: 'id',
      labels: equipmentLabels,
      row: equipmentRowOf(def),
      paths: { list: `${base}/list`, detail: { url: `${base}/detail`, method: 'GET' }, save: `${base}/save`, edit: `${base}/edit`, delete: `${base}/delete` },
      permissions: { list: `${def.codes}:list`, save: `${def.codes}:add`, edit: `${def.codes}:edit`, delete: `${def.codes}:delete` },
      schemas,
    }),
    kind: def,
    issueKey: defineCall({
      method: 'POST',
      path: `${base}/issueKey`,
      permission: `${def.codes}:edit`,
      summary: `签发${def.title}的接入密钥（只显示一次，再次签发即作废旧密钥）`,
      operation: `签发${def.title}密钥`,
      input: idBody,
      // hmac_key: the device's key for the allow-list's subject hashes (docs/offline-gates.md), shown this once with the key.
      answer: z.object({ key: col.text, hmac_key: col.text }),
    }),
  };
}
export type EquipmentApi = ReturnType<typeof equipmentApiOf>;

/** Each kind's calls, by kind: the server registers them, the screens call them. */
export const equipmentApi = Object.fromEntries(Object.entries(equipmentKinds).map(([kind, def]) => [kind, equipmentApiOf(def)])) as Record<EquipmentKind, EquipmentApi>;
