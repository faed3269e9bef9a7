import { ALL } from '../../../domain/enums';
import { addMinutes, formatInZone } from '../../../domain/time';
import { dateOf } from '../../../domain/visit-rules';
import { DEFAULT_LOG_WINDOW_MINUTES, logApi, loginLogLabels, operationLogLabels, type LoginLogRow, type OperationLogRow } from '../../../domain/schemas/logs';
import { defineScreen, type DeclaredField, type Row } from '../../list-screen';
import './log-screens.css';

/**
 * 登录日志 and 操作日志 (spec 002 §2 Logs): read only, newest first. Both
 * lists start at the last 24 hours in park time (the server answers exactly
 * that window when none is sent), the login log and the operation
 * log at 全部; a row opens as its detail, the operation's parameters laid out
 * as indented JSON (already without secrets: the server masks them).
 */

/** A desktop row opens by its 详情 button, not by a double-click alone. */
const detailAction = { key: 'detail', label: '详情', type: 'detail' } as const;

const dash = (v: string | null | undefined) => v || '-';

/**
 * The last 24 hours in park time, from the whole hour they start in to the
 * end of today: read whenever the filters start or are reset, it stays the
 * same value for an hour (so remembered filters and the phone's filter count
 * agree with it), and a refresh later today still shows the newest rows.
 */
const lastDay = () => {
  const now = formatInZone(new Date());
  return [`${addMinutes(now, -DEFAULT_LOG_WINDOW_MINUTES).slice(0, 13)}:00:00`, `${dateOf(now)} 23:59:59`];
};

/** The time range filter: a getter, so a screen left open starts from the new "now" on reset. */
const timeRange = <R extends Row>(label: string): DeclaredField<R> => ({
  name: 'timeRange',
  label,
  kind: 'datetimeRange',
  hideInTable: true,
  hideInCard: true,
  hideInDetail: true,
  search: {
    rangeKeys: ['start_time', 'end_time'],
    get default() {
      return lastDay();
    },
  },
});

/** Stored params are JSON (cut off at 4000 characters, then shown as they are). */
function prettyParams(text: string): string {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && Object.keys(value).length === 0) return '';
    return JSON.stringify(value, null, 2);
  } catch {
    return text;
  }
}

export const loginLogScreen = defineScreen<LoginLogRow>({
  key: 'logs.login',
  title: '登录日志',
  labels: loginLogLabels,
  list: { path: logApi.login, permission: 'loginLog:list' },
  rowKey: 'id',
  card: { title: 'account', extra: 'result' },
  detail: { title: '登录日志详情' },
  rowActions: [detailAction],
  fields: [
    timeRange<LoginLogRow>('登录时间'),
    { name: 'userName', dataIndex: 'user_name', kind: 'text', width: 110, search: { placeholder: '姓名或账号' }, render: (r) => dash(r.user_name) },
    { name: 'account', kind: 'text', hideInSearch: true, width: 120 },
    { name: 'user_id', kind: 'text', hideInSearch: true, hideInTable: true, hideInCard: true, render: (r) => (r.user_id === null ? '-' : String(r.user_id)) },
    { name: 'depart_name', kind: 'text', hideInSearch: true, width: 150, render: (r) => dash(r.depart_name) },
    { name: 'ip', kind: 'text', hideInSearch: true, width: 130 },
    { name: 'result', kind: 'enum', options: 'loginResult', tag: true, width: 90, search: { default: ALL } },
    { name: 'login_time', kind: 'text', hideInSearch: true, width: 170 },
    { name: 'remark', kind: 'text', hideInSearch: true, width: 180, render: (r) => dash(r.remark) },
  ],
});

export const operationLogScreen = defineScreen<OperationLogRow>({
  key: 'logs.operation',
  title: '操作日志',
  labels: operationLogLabels,
  list: { path: logApi.operation, permission: 'operationLog:list' },
  rowKey: 'id',
  card: { title: 'operation', extra: 'result' },
  detail: { title: '操作日志详情', width: 720 },
  rowActions: [detailAction],
  fields: [
    { name: 'id', kind: 'text', hideInSearch: true, hideInTable: true, hideInCard: true },
    { name: 'user_id', kind: 'text', hideInSearch: true, width: 164, render: (r) => (r.user_name ? `${r.user_name}（${r.account}）` : dash(r.account)) },
    { name: 'account', kind: 'text', hideInTable: true, hideInCard: true, search: { placeholder: '账号或其中几位' } },
    { name: 'userId', dataIndex: 'user_id', label: '用户ID', kind: 'text', hideInSearch: true, hideInTable: true, hideInCard: true, render: (r) => (r.user_id === null ? '-' : String(r.user_id)) },
    { name: 'depart_name', kind: 'text', hideInSearch: true, width: 130, render: (r) => dash(r.depart_name) },
    // The key column widens to the page's longest name (list-screen DataTable, up to KEY_MAX_WIDTH), so no name is cut.
    { name: 'operation', kind: 'text', hideInSearch: true, width: 110 },
    { name: 'result', kind: 'enum', options: 'operationResult', tag: true, width: 84, search: { default: ALL } },
    { name: 'operate_time', kind: 'text', hideInSearch: true, width: 166 },
    { name: 'api', kind: 'text', hideInSearch: true, hideInCard: true, width: 170 },
    { name: 'method', kind: 'text', hideInSearch: true, hideInCard: true, width: 76 },
    // One line in the table; the detail shows the whole of it, indented.
    { name: 'params', kind: 'text', hideInSearch: true, hideInCard: true, hideInDetail: true, width: 176 },
    {
      name: 'paramsDetail',
      dataIndex: 'params',
      label: operationLogLabels.params,
      kind: 'text',
      hideInSearch: true,
      hideInTable: true,
      hideInCard: true,
      render: (r) => {
        const text = prettyParams(r.params);
        return text ? <pre className="lg-params">{text}</pre> : <span className="lg-empty">无</span>;
      },
    },
    timeRange<OperationLogRow>('操作时间'),
  ],
});
