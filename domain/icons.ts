import { z } from 'zod';
import { defineCall } from './contract';
import { labelled, optionalFilterText } from './schemas/common';
/**
 * The one icon set of the product (spec 002 §2 icon gallery): what the
 * gallery lists, what the permission form lets a person pick and what a menu
 * can show. Codes are antd-mobile-icons component names, the value the
 * permission table stores in `icon`; titles are what the gallery's search
 * box matches (the code matches too). The glyphs themselves live in the
 * PWA (src/components/icon-glyphs.tsx, loaded lazily); this file is data and
 * the gallery's call (iconApi below), so the server answers the gallery and
 * validates a permission's icon from it.
 *
 * Brand marks of the icon package (Alipay, Koubei, Ant) are left out: they
 * mean nothing in a park's back office.
 */
export const iconSet = [
  { code: 'AaOutline', title: '字体' },
  { code: 'AddCircleOutline', title: '添加（圆）' },
  { code: 'AddOutline', title: '添加' },
  { code: 'AddSquareOutline', title: '添加（方）' },
  { code: 'AddressBookFill', title: '通讯录（实心）' },
  { code: 'AppOutline', title: '应用' },
  { code: 'AppstoreOutline', title: '宫格' },
  { code: 'ArrowDownCircleOutline', title: '向下箭头（圆）' },
  { code: 'ArrowsAltOutline', title: '放大' },
  { code: 'AudioFill', title: '语音（实心）' },
  { code: 'AudioMutedOutline', title: '麦克风静音' },
  { code: 'AudioOutline', title: '语音' },
  { code: 'BankcardOutline', title: '银行卡' },
  { code: 'BellMuteOutline', title: '关闭提醒' },
  { code: 'BellOutline', title: '提醒' },
  { code: 'BillOutline', title: '账单' },
  { code: 'CalculatorOutline', title: '计算器' },
  { code: 'CalendarOutline', title: '日历' },
  { code: 'CameraOutline', title: '相机' },
  { code: 'ChatAddOutline', title: '新建对话' },
  { code: 'ChatCheckOutline', title: '对话确认' },
  { code: 'ChatWrongOutline', title: '对话错误' },
  { code: 'CheckCircleFill', title: '成功（实心）' },
  { code: 'CheckCircleOutline', title: '成功' },
  { code: 'CheckOutline', title: '勾选' },
  { code: 'CheckShieldFill', title: '安全认证（实心）' },
  { code: 'CheckShieldOutline', title: '安全认证' },
  { code: 'ClockCircleFill', title: '时钟（实心）' },
  { code: 'ClockCircleOutline', title: '时钟' },
  { code: 'CloseCircleFill', title: '关闭（实心圆）' },
  { code: 'CloseCircleOutline', title: '关闭（圆）' },
  { code: 'CloseOutline', title: '关闭' },
  { code: 'CloseShieldOutline', title: '安全拦截' },
  { code: 'CollectMoneyOutline', title: '收钱' },
  { code: 'CompassOutline', title: '指南针' },
  { code: 'ContentOutline', title: '内容' },
  { code: 'CouponOutline', title: '优惠券' },
  { code: 'DeleteOutline', title: '删除' },
  { code: 'DownCircleOutline', title: '向下（圆）' },
  { code: 'DownFill', title: '向下（实心）' },
  { code: 'DownOutline', title: '向下' },
  { code: 'DownlandOutline', title: '下载' },
  { code: 'EditFill', title: '编辑（实心）' },
  { code: 'EditSFill', title: '小编辑（实心）' },
  { code: 'EditSOutline', title: '编辑' },
  { code: 'EnvironmentOutline', title: '地点' },
  { code: 'ExclamationCircleFill', title: '警告（实心）' },
  { code: 'ExclamationCircleOutline', title: '警告' },
  { code: 'ExclamationOutline', title: '感叹号' },
  { code: 'ExclamationShieldFill', title: '安全警告（实心）' },
  { code: 'ExclamationShieldOutline', title: '安全警告' },
  { code: 'ExclamationTriangleOutline', title: '警示三角' },
  { code: 'EyeFill', title: '查看（实心）' },
  { code: 'EyeInvisibleFill', title: '隐藏（实心）' },
  { code: 'EyeInvisibleOutline', title: '隐藏' },
  { code: 'EyeOutline', title: '查看' },
  { code: 'FaceRecognitionOutline', title: '人脸识别' },
  { code: 'FileOutline', title: '文件' },
  { code: 'FileWrongOutline', title: '文件错误' },
  { code: 'FillinOutline', title: '填写' },
  { code: 'FilterOutline', title: '筛选' },
  { code: 'FingerdownOutline', title: '手指向下' },
  { code: 'FireFill', title: '火焰（实心）' },
  { code: 'FlagOutline', title: '旗帜标记' },
  { code: 'FolderOutline', title: '文件夹' },
  { code: 'ForbidFill', title: '禁止（实心）' },
  { code: 'FrownFill', title: '不满意（实心）' },
  { code: 'FrownOutline', title: '不满意' },
  { code: 'GiftOutline', title: '礼物' },
  { code: 'GlobalOutline', title: '全球网络' },
  { code: 'HandPayCircleOutline', title: '付款' },
  { code: 'HeartFill', title: '喜欢（实心）' },
  { code: 'HeartOutline', title: '喜欢' },
  { code: 'HistogramOutline', title: '柱状图统计' },
  { code: 'InformationCircleFill', title: '信息（实心）' },
  { code: 'InformationCircleOutline', title: '信息' },
  { code: 'KeyOutline', title: '钥匙密钥' },
  { code: 'LeftOutline', title: '向左' },
  { code: 'LikeOutline', title: '点赞' },
  { code: 'LinkOutline', title: '链接' },
  { code: 'LocationFill', title: '位置（实心）' },
  { code: 'LocationOutline', title: '位置' },
  { code: 'LockFill', title: '锁定（实心）' },
  { code: 'LockOutline', title: '锁定权限' },
  { code: 'LoopOutline', title: '循环' },
  { code: 'MailFill', title: '邮件（实心）' },
  { code: 'MailOpenOutline', title: '已读邮件' },
  { code: 'MailOutline', title: '邮件' },
  { code: 'MessageFill', title: '消息（实心）' },
  { code: 'MessageOutline', title: '消息' },
  { code: 'MinusCircleOutline', title: '减少（圆）' },
  { code: 'MinusOutline', title: '减少' },
  { code: 'MoreOutline', title: '更多' },
  { code: 'MovieOutline', title: '影片' },
  { code: 'PayCircleOutline', title: '支付' },
  { code: 'PhoneFill', title: '电话（实心）' },
  { code: 'PhonebookFill', title: '电话簿（实心）' },
  { code: 'PhonebookOutline', title: '电话簿' },
  { code: 'PictureOutline', title: '图片' },
  { code: 'PictureWrongOutline', title: '图片错误' },
  { code: 'PicturesOutline', title: '相册' },
  { code: 'PieOutline', title: '饼图' },
  { code: 'PlayOutline', title: '播放' },
  { code: 'QuestionCircleFill', title: '帮助（实心）' },
  { code: 'QuestionCircleOutline', title: '帮助' },
  { code: 'ReceiptOutline', title: '收据' },
  { code: 'ReceivePaymentOutline', title: '收款' },
  { code: 'RedoOutline', title: '刷新重做' },
  { code: 'RightOutline', title: '向右' },
  { code: 'ScanCodeOutline', title: '扫码' },
  { code: 'ScanningFaceOutline', title: '扫脸' },
  { code: 'ScanningOutline', title: '扫描' },
  { code: 'SearchOutline', title: '搜索' },
  { code: 'SendOutline', title: '发送' },
  { code: 'SetOutline', title: '设置' },
  { code: 'ShopbagOutline', title: '购物袋' },
  { code: 'ShrinkOutline', title: '缩小' },
  { code: 'SmileFill', title: '满意（实心）' },
  { code: 'SmileOutline', title: '满意' },
  { code: 'SoundMuteFill', title: '静音（实心）' },
  { code: 'SoundMuteOutline', title: '静音' },
  { code: 'SoundOutline', title: '声音公告' },
  { code: 'StarFill', title: '收藏（实心）' },
  { code: 'StarOutline', title: '收藏' },
  { code: 'StopOutline', title: '禁止停止' },
  { code: 'SystemQRcodeOutline', title: '二维码' },
  { code: 'TagOutline', title: '标签' },
  { code: 'TeamFill', title: '团队（实心）' },
  { code: 'TeamOutline', title: '团队部门' },
  { code: 'TextDeletionOutline', title: '删除文字' },
  { code: 'TextOutline', title: '文本' },
  { code: 'TransportQRcodeOutline', title: '乘车码' },
  { code: 'TravelOutline', title: '出行' },
  { code: 'TruckOutline', title: '货车' },
  { code: 'UndoOutline', title: '撤销' },
  { code: 'UnlockOutline', title: '解锁' },
  { code: 'UnorderedListOutline', title: '列表' },
  { code: 'UpCircleOutline', title: '向上（圆）' },
  { code: 'UpOutline', title: '向上' },
  { code: 'UploadOutline', title: '上传' },
  { code: 'UserAddOutline', title: '添加用户' },
  { code: 'UserCircleOutline', title: '用户头像' },
  { code: 'UserContactOutline', title: '联系人' },
  { code: 'UserOutline', title: '用户' },
  { code: 'UserSetOutline', title: '用户设置' },
  { code: 'VideoOutline', title: '视频' },
] as const satisfies ReadonlyArray<{ code: string; title: string }>;

export type IconCode = (typeof iconSet)[number]['code'];
export const iconItem = z.object({ code: z.enum(iconSet.map((i) => i.code) as [IconCode, ...IconCode[]]), title: z.string() });
export type IconItem = z.infer<typeof iconItem>;

/** The gallery's page size (spec 002 §9). */
export const ICON_PAGE_SIZE = 72;

const codes: ReadonlySet<string> = new Set(iconSet.map((i) => i.code));

export const isIconCode = (v: unknown): v is IconCode => typeof v === 'string' && codes.has(v);

/**
 * One page of the set, filtered by `title` (matched against title and code,
 * ignoring ASCII case): the answer of GET /icon/getList, and what the
 * permission form's picker shows without asking the server.
 */
export function searchIcons(title: string | undefined, current = 1, pageSize = ICON_PAGE_SIZE): { data: IconItem[]; totalCount: number } {
  const q = (title ?? '').trim().toLowerCase();
  const hits = q ? iconSet.filter((i) => i.title.toLowerCase().includes(q) || i.code.toLowerCase().includes(q)) : iconSet;
  const from = (Math.max(1, current) - 1) * pageSize;
  return { data: hits.slice(from, from + pageSize).map((i) => ({ code: i.code, title: i.title })), totalCount: hits.length };
}

/** GET /icon/getList (spec 002 §7 Icons): the gallery's page of the one icon set. */
export const iconListLabels = { current: '页码', pageSize: '每页条数', title: '图标名称' };
const pageNumber = (label: string, fallback: number, max: number) =>
  z.preprocess(
    (v) => (v === undefined || v === null || v === '' ? fallback : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v),
    z
      .number({ error: `${label}必须是整数` })
      .int({ error: `${label}必须是整数` })
      .min(1, { error: `${label}至少为1` })
      .max(max, { error: `${label}不能超过${max}` }),
  );
export const iconListQuery = labelled(z.object({ current: pageNumber('页码', 1, 10_000), pageSize: pageNumber('每页条数', ICON_PAGE_SIZE, 200), title: optionalFilterText }), iconListLabels);

/**
 * 图标库 on the wire. The spec's client reads `data` (the page's icons) and
 * `totalCount` beside it in the envelope: `totalCount` is declared as the
 * envelope's extra field (server/modules/icons.ts answers it, the client's
 * icons api folds it into the page).
 */
export const iconApi = {
  list: defineCall({
    method: 'GET',
    path: '/icon/getList',
    permission: 'sys:manage',
    summary: '图标库（current、pageSize 默认72、title 按名称或编码搜索）',
    input: iconListQuery,
    answer: z.array(iconItem),
  }),
  /** Beside `data` in the envelope: how many icons match the search. */
  envelopeExtra: { totalCount: z.number().int() },
};
/** A page as the gallery reads it: the envelope's data and its totalCount. */
export interface IconPage {
  data: IconItem[];
  totalCount: number;
}
