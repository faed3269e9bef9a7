import type { EnumOption } from './enums';

/**
 * 通知公告's codes and state rule (spec 001 §2, §3, §5), free of zod: the
 * home's 未读通知 reads them on its first load (domain/shell-calls.ts);
 * schemas/notice.ts re-exports them with the wire schemas.
 */

export const NoticeType = { NOTICE: 1, PRECAUTIONS: 2 } as const;
export const NoticeStatus = { DRAFT: 0, ENABLED: 1, DISABLED: 2 } as const;

export const noticeTypeOptions: EnumOption[] = [
  { value: NoticeType.NOTICE, label: '通知' },
  { value: NoticeType.PRECAUTIONS, label: '注意事项' },
];
/** Spec 001 §3: enabled shown green, disabled shown orange; a state reads 已启用 / 已停用, apart from the 启用 / 停用 buttons that change it. */
export const noticeStatusOptions: EnumOption[] = [
  { value: NoticeStatus.DRAFT, label: '草稿', color: 'default' },
  { value: NoticeStatus.ENABLED, label: '已启用', color: 'success' },
  { value: NoticeStatus.DISABLED, label: '已停用', color: 'warning' },
];

/** Spec 001 §5: attachments are uploaded one at a time, up to 5. */
export const NOTICE_MAX_ATTACHMENTS = 5;
export const NOTICE_TITLE_MAX = 50;
export const NOTICE_CONTENT_MAX = 5000;
/** A notice names departments, each standing for its whole branch of the tree. */
export const NOTICE_MAX_DEPARTS = 100;

export type NoticeAction = 'enable' | 'disable' | 'edit' | 'delete' | 'attach';

/** The state rule of spec 001 §2, one function for the screen's buttons and the server's refusal. */
export function noticeAllows(action: NoticeAction, status: number): boolean {
  switch (action) {
    case 'enable':
      return status === NoticeStatus.DRAFT || status === NoticeStatus.DISABLED;
    case 'disable':
      return status === NoticeStatus.ENABLED;
    default:
      return status !== NoticeStatus.ENABLED;
  }
}

export const noticeConflictMessage: Record<NoticeAction, string> = {
  enable: '只有草稿或停用的通知可以启用',
  disable: '只有启用的通知可以停用',
  edit: '启用中的通知不能编辑，请先停用',
  delete: '启用中的通知不能删除，请先停用',
  attach: '启用中的通知不能修改附件，请先停用',
};

/** The reader's route (src/app/routes.tsx): what a notice's notification and the home open. */
export const NOTICE_READER_ROUTE = '/notices';

export const noticeTypeWord = (type: number): string => noticeTypeOptions.find((o) => o.value === type)?.label ?? '通知';
