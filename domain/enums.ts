/**
 * Code tables shared by server and UI. The server answers them from
 * GET /api/common/enum/{name}; the UI keeps a copy for offline first paint.
 */
export interface EnumOption<V extends number | string = number> {
  value: V;
  label: string;
  /** Optional colour hint for tags: success, warning, danger, default. */
  color?: 'success' | 'warning' | 'danger' | 'primary' | 'default';
}

const opts = (pairs: Array<[number, string, EnumOption['color']?]>): EnumOption[] => pairs.map(([value, label, color]) => (color ? { value, label, color } : { value, label }));

export const ALL = -1;

export const enums = {
  /** Park / area type (visit_area). */
  visitArea: opts([
    [1, '化工区'],
    [2, '港区'],
    [3, '化工区和港区'],
  ]),
  gender: opts([
    [0, '男'],
    [1, '女'],
  ]),
  /** User and role status. */
  status: opts([
    [1, '启用', 'success'],
    [0, '停用', 'danger'],
  ]),
  idcardType: opts([
    [1, '第二代居民身份证'],
    [2, '港澳居民居住证'],
    [3, '外国人永久居留身份证'],
    [4, '港澳居民来往内地通行证'],
    [5, '台湾居民来往大陆通行证'],
    [6, '护照'],
  ]),
  driverType: opts([
    [1, '司机'],
    [2, '副驾驶'],
    [3, '乘客'],
  ]),
  carVisitorType: opts([
    [1, '施工'],
    [2, '维保'],
    [3, '临时'],
    [4, '业主'],
  ]),
  personVisitorType: opts([
    [1, '业主'],
    [2, '服务商'],
    [3, '建设单位'],
    [4, '临时访客'],
  ]),
  plateColor: opts([
    [1, '黄色'],
    [2, '蓝色'],
    [3, '绿色'],
    [4, '新能源绿色'],
    [5, '新能源黄绿色'],
    [6, '白色'],
    [7, '黑色'],
  ]),
  applicationState: opts([
    [0, '草稿', 'default'],
    [1, '审核中', 'primary'],
    [2, '审核通过', 'success'],
    [3, '已驳回', 'danger'],
    [4, '已撤销', 'warning'],
  ]),
  delayed: opts([
    [0, '否'],
    [1, '是'],
  ]),
  yesNo: opts([
    [0, '否'],
    [1, '是'],
  ]),
  blackWhiteType: opts([
    [1, '黑名单', 'danger'],
    [2, '白名单', 'success'],
  ]),
  /** Black/white list "validity type" filter (spec 001 §2; codes ours, domain/schemas/black-white-list.ts Validity). */
  listValidity: opts([
    [1, '生效中', 'success'],
    [2, '未生效', 'primary'],
    [3, '已失效', 'default'],
  ]),
  permissionType: opts([
    [0, '目录'],
    [1, '菜单'],
    [2, '权限'],
  ]),
  processTaskState: opts([
    [0, '待审核', 'primary'],
    [1, '已审核', 'success'],
    [2, '已关闭', 'default'],
    [3, '待加签人审核', 'warning'],
  ]),
  approvalResult: opts([
    [1, '同意', 'success'],
    [2, '驳回', 'danger'],
  ]),
  transportType: opts([
    [1, '提货'],
    [2, '送货'],
  ]),
  noticeType: opts([
    [1, '通知'],
    [2, '注意事项'],
  ]),
  noticeStatus: opts([
    [0, '草稿', 'default'],
    [1, '已启用', 'success'],
    [2, '已停用', 'warning'],
  ]),
  stateEquipmentType: opts([
    [1, '在线', 'success'],
    [0, '离线', 'danger'],
  ]),
  /** Gate devices (spec 001 §2): codes not shown by the spec, ours. */
  gateType: opts([
    [1, '车辆道闸'],
    [2, '人行闸机'],
  ]),
  /** A gate's 入口归属: the park its entrance leads into (3 both), which its crossings count for in the reports (docs/decisions.md). */
  entranceType: opts([
    [1, '化工区'],
    [2, '港区'],
    [3, '化工区和港区'],
  ]),
  loginResult: opts([
    [1, '成功', 'success'],
    [0, '失败', 'danger'],
  ]),
  operationResult: opts([
    [1, '成功', 'success'],
    [0, '失败', 'danger'],
  ]),
  processType: opts([
    [1, '人员预约'],
    [2, '车辆预约'],
    [3, '重型自卸货车预约'],
    [4, '中大型客车预约'],
    [5, '危险化学品车辆预约'],
    [6, '车辆备案'],
    [7, '车辆黑白名单'],
    [8, '人员黑白名单'],
    [9, '运输运单'],
  ]),
  /** Vehicle flags (spec 000 §5, 001 §2): defaults colour 2, type 1, alarm 3; codes not shown by the spec, ours. */
  markColor: opts([
    [1, '红色', 'danger'],
    [2, '黄色', 'warning'],
    [3, '蓝色', 'primary'],
  ]),
  markLabelType: opts([
    [1, '重点关注'],
    [2, '违规行为'],
    [3, '安全隐患'],
    [4, '其他'],
  ]),
  markAlarmType: opts([
    [1, '禁止入园'],
    [2, '入园报警'],
    [3, '仅提示'],
  ]),
  /** Gate crossing records (spec 001 §2, DESIGN.md §8): direction and open result as the device API sends them. */
  gateDirection: opts([
    [1, '入场', 'success'],
    [2, '出场', 'primary'],
  ]),
  gateOpenResult: opts([
    [1, '开闸', 'success'],
    [0, '未开闸', 'danger'],
  ]),
  /** Body colour codes 1-10 of the gates' plate recognition (the usual camera table); the spec names the filter only. */
  vehicleColor: opts([
    [1, '白色'],
    [2, '灰色'],
    [3, '黄色'],
    [4, '粉色'],
    [5, '红色'],
    [6, '紫色'],
    [7, '绿色'],
    [8, '蓝色'],
    [9, '棕色'],
    [10, '黑色'],
  ]),
  /** Vehicle and face comparison results of a vehicle crossing (1 match, 0 not, docs/api.md). */
  compareResult: opts([
    [1, '一致', 'success'],
    [0, '不一致', 'danger'],
  ]),
  /** Person crossings: card status 0-2 and image type 1-2 of the device API; the names are ours (docs/decisions.md). */
  gateCardStatus: opts([
    [1, '正常', 'success'],
    [2, '挂失', 'warning'],
    [0, '无效', 'danger'],
  ]),
  gateImageType: opts([
    [1, '人脸抓拍'],
    [2, '证件照片'],
  ]),
  /** Stranded alarms' level_type (DESIGN.md §8; the spec shows no values): past the visit's end, past the model's dwell limit, black-listed inside, off the visit's route (domain/stranded-kinds.ts AlarmLevel). */
  strandedLevel: opts([
    [1, '超出来访时间', 'warning'],
    [2, '超出停留时限', 'warning'],
    [3, '黑名单入园', 'danger'],
    [4, '偏离路线', 'warning'],
    [5, '危化品无运单', 'danger'],
  ]),
} satisfies Record<string, EnumOption[]>;

export type EnumName = keyof typeof enums;

export const enumNames = Object.keys(enums) as EnumName[];

export function isEnumName(name: string): name is EnumName {
  return Object.prototype.hasOwnProperty.call(enums, name);
}

export function enumLabel(name: EnumName, value: number | string | null | undefined): string {
  if (value === null || value === undefined) return '';
  const hit = (enums[name] as EnumOption[]).find((o) => String(o.value) === String(value));
  return hit ? hit.label : String(value);
}

/** Filter options: 'all' (-1) first, then the table. */
export function withAll(name: EnumName, allLabel = '全部'): EnumOption[] {
  return [{ value: ALL, label: allLabel }, ...(enums[name] as EnumOption[])];
}
