import { z } from 'zod';
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

/** A device row as the API answers it: the kind's fields plus state from the device API (issue 12). */
export interface EquipmentRow {
  id: number;
  name: string;
  number: string;
  type: number | null;
  entrances_type: number | null;
  is_security_check: number | null;
  temporary_reservation: number | null;
  lane_number: string | null;
  plate: string | null;
  longitude: number | null;
  latitude: number | null;
  state: number;
  state_update_time: string | null;
  /** When the device's key (DESIGN.md §8) was last issued; null while it has none. The key and its hash never leave the server. */
  key_issued_time: string | null;
  create_time: string;
  update_time: string;
}
