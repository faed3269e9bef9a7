import type { ComponentType, ReactNode } from 'react';
import type { z } from 'zod';
import type { PermissionCode } from '../../../domain/permissions';
import { registerAllows, registerQueues, type ApprovablePaths, type RegisterAction, type RegisterQueueName } from '../../../domain/registers';
import { revokeBody } from '../../../domain/schemas/car-application';
import type { FieldLabels } from '../../../domain/schemas/common';
import { batchReviewModalFor, reviewModalFor, type ReviewKind, type ReviewTask } from '../../components/approval/review-modal';
import { processDrawerFor, type ProcessSubject } from '../../components/process/process-drawer';
import { ReasonModal } from '../../components/reason-modal';
import { ApiError, get, post } from '../../lib/http';
import { defineScreen, DetailLines, failureText, type DeclaredField, type Row, type RowAction, type ScreenDef, type ScreenModalProps, type ToolbarAction } from '../../list-screen';
import { showToast } from '../../lib/feedback';

/**
 * The screens of a register under approval (spec 001 §2, §4, §8), written
 * once: the register's list with the state table's buttons, and its approval
 * queue with the shared review. Each register is a declaration of this.
 */
export interface ApprovableRow extends Row {
  id: number;
  /** The spec's state (0 draft … 4 revoked): `status` on the lists, `state` on registrations and waybills (RegisterScreens.stateKey). */
  status?: number;
  state?: number;
  process_instance_id: number | null;
}

type StateKey = 'status' | 'state';

export interface RegisterScreens<R extends ApprovableRow> {
  /** Screen key prefix and the register's noun ('车辆黑白名单'). */
  key: string;
  noun: string;
  title: string;
  paths: ApprovablePaths;
  codes: { list: PermissionCode; add: PermissionCode; edit: PermissionCode; delete: PermissionCode; commit: PermissionCode; revoke: PermissionCode };
  queue: RegisterQueueName;
  /** The row's key inside a task of the queue (the server's wrapper). */
  wrapper: string;
  labels: FieldLabels;
  fields: DeclaredField<R>[];
  card: { title: string; extra?: string };
  schemas: { create: z.ZodType; update: z.ZodType };
  /** What a revoke undoes besides the approval, said in the revoke modal ('已生效的名单随之失效'). */
  revokeEffect?: string;
  /** Toolbar buttons beside 新增 (an import). */
  toolbar?: ToolbarAction<R>[];
  /** Where a row holds its state (default 'status'). */
  stateKey?: StateKey;
  /** The read-only detail (sections), also the review's summary; the fields' lines when absent. */
  detail?: (row: R) => ReactNode;
  /** The line naming a row: a plate, a person. */
  name: (row: R) => string;
  subtitle: (row: R) => string;
}

const when =
  (action: RegisterAction, key: StateKey = 'status') =>
  (r: ApprovableRow) =>
    registerAllows(action, r[key] ?? -1);

function revokeModal<R extends ApprovableRow>(s: RegisterScreens<R>, path = s.paths.revoke): ComponentType<ScreenModalProps<R>> {
  return function RegisterRevokeModal({ open, row, onClose, onDone }: ScreenModalProps<R>) {
    return (
      <ReasonModal
        open={open}
        subject={
          row ? (
            <div className="am-subject">
              <div className="am-subject__main">
                <b>{s.name(row)}</b>
              </div>
              <div className="am-subject__meta">{s.subtitle(row)}</div>
            </div>
          ) : null
        }
        title="撤销审核"
        label="撤销理由"
        placeholder="请输入撤销理由"
        notice={`撤销后，该${s.noun}的审批将终止${s.revokeEffect ? `，${s.revokeEffect}` : ''}。`}
        danger
        errorKey="reason"
        onClose={onClose}
        submit={async (reason) => {
          const parsed = revokeBody.safeParse({ id: row?.id, reason });
          if (!parsed.success) return Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0] ?? ''), i.message]));
          try {
            await post(path, parsed.data);
            showToast({ icon: 'success', content: '撤销审核成功！' });
            onDone();
          } catch (e) {
            showToast({ icon: 'fail', content: failureText('撤销审核失败', e instanceof ApiError || e instanceof Error ? e.message : String(e)), duration: 3000 });
          }
          return null;
        }}
      />
    );
  };
}

const processSubjects = new WeakMap<object, ProcessSubject>();
function processSubject<R extends ApprovableRow>(s: RegisterScreens<R>): ProcessSubject {
  let p = processSubjects.get(s);
  if (!p) {
    p = {
      path: s.paths.processInfo,
      idOf: (row) => {
        const r = row as Record<string, unknown> | undefined;
        const v = r?.ref_id ?? r?.id;
        return typeof v === 'number' ? v : undefined;
      },
      subtitle: (row) => (row ? s.name(row as R) : ''),
    };
    processSubjects.set(s, p);
  }
  return p;
}

/** The register's own list: add, edit, detail, process, submit, revoke, delete, each shown by the state table. */
export function registerListScreen<R extends ApprovableRow>(s: RegisterScreens<R>): ScreenDef<R> {
  const rowActions: RowAction<R>[] = [
    { key: 'detail', label: '详情', type: 'detail' },
    { key: 'edit', label: '编辑', type: 'edit', permission: s.codes.edit, visible: when('edit', s.stateKey) },
    { key: 'process', label: '审批流程', type: 'modal', component: processDrawerFor<R>(processSubject(s)), visible: when('process', s.stateKey) },
    {
      key: 'submit',
      label: '提交',
      type: 'call',
      permission: s.codes.commit,
      visible: when('submit', s.stateKey),
      confirm: (r) => `确认提交“${s.name(r)}”？提交后将进入审批流程。`,
      path: s.paths.push,
      body: (r) => ({ id: r.id }),
      success: '提交成功！',
      failure: '提交失败',
    },
    { key: 'revoke', label: '撤销', type: 'modal', component: revokeModal(s), permission: s.codes.revoke, visible: when('revoke', s.stateKey), danger: true },
    { key: 'delete', label: '删除', type: 'delete', permission: s.codes.delete, visible: when('delete', s.stateKey), path: s.paths.delete, body: (r) => ({ id: r.id }) },
  ];
  return defineScreen<R>({
    key: s.key,
    title: s.title,
    labels: s.labels,
    list: { path: s.paths.list, permission: s.codes.list },
    rowKey: 'id' as keyof R & string,
    card: s.card,
    fields: s.fields,
    toolbar: [{ key: 'add', label: `新增${s.noun}`, type: 'create', permission: s.codes.add }, ...(s.toolbar ?? [])],
    rowActions,
    form: {
      schema: { create: s.schemas.create, edit: s.schemas.update },
      create: { path: s.paths.save, title: `新增${s.noun}` },
      edit: { path: s.paths.edit, title: `编辑${s.noun}`, idParam: 'id' },
      submit: { path: s.paths.push, permission: s.codes.commit },
      width: 640,
    },
    detail: { title: `${s.noun}详情`, fetch: (r) => get<R>(s.paths.detail, { id: r.id }), ...(s.detail ? { render: s.detail, width: 760 } : {}) },
  });
}

/** A task of the register's queue, laid over the row it wraps so the list's fields read it as they read the register. */
export type RegisterTask<R extends ApprovableRow> = R & ReviewTask & { process_task_id: number; ref_id: number; approval_status?: number | null };

const reviewKinds = new WeakMap<object, ReviewKind<never>>();
function reviewKind<R extends ApprovableRow>(s: RegisterScreens<R>, screen: ScreenDef<R>): ReviewKind<RegisterTask<R>> {
  let k = reviewKinds.get(s) as ReviewKind<RegisterTask<R>> | undefined;
  if (!k) {
    const q = registerQueues[s.queue];
    k = {
      name: s.queue,
      checkPath: s.paths.taskCheck,
      check: q.check,
      processPath: processSubject(s).path,
      // Spec 001 §4: approving pre-fills the opinion '审批通过。'.
      approvedText: '审批通过。',
      title: (r) => s.name(r),
      subtitle: (r) => s.subtitle(r),
      // Spec 001 §2: review only while the entry is under approval (its state 1, which the task page answers as approval_status); the task's own state is 0 while pending.
      reviewable: (r) => r.approval_status === 1 && r.state === 0,
      Summary: ({ row }) => (s.detail ? s.detail(row) : <DetailLines fields={screen.fields.filter((f) => !f.hideInDetail)} row={row} />),
    };
    reviewKinds.set(s, k as unknown as ReviewKind<never>);
  }
  return k;
}

/** The register's approval queue: the caller's pending tasks, review (single or batch), 60 s refresh. */
export function registerQueueScreen<R extends ApprovableRow>(s: RegisterScreens<R>): ScreenDef<RegisterTask<R>> {
  const listScreen = registerListScreen(s);
  const q = registerQueues[s.queue];
  const kind = reviewKind(s, listScreen);
  const Review = reviewModalFor(kind);
  type T = RegisterTask<R>;
  return defineScreen<T>({
    key: `${s.key}.queue`,
    title: q.title,
    labels: s.labels,
    list: {
      path: s.paths.taskPage,
      permission: q.list,
      arrange: (rows) => rows.map((t) => ({ ...((t as unknown as Record<string, unknown>)[s.wrapper] as R), ...t, id: (t as ReviewTask).ref_id }) as T),
    },
    rowKey: 'process_task_id',
    card: s.card,
    // The register's columns, then when it was submitted; the queue searches by the register's text fields only (spec 001 §2).
    fields: [
      ...(s.fields.filter((f) => !f.hideInTable && f.name !== (s.stateKey ?? 'status') && f.name !== 'validity') as DeclaredField<T>[]),
      { name: 'submit_time', label: '提交时间', kind: 'text', width: 170 } satisfies DeclaredField<T>,
    ].map((f): DeclaredField<T> => ({ ...f, hideInSearch: f.hideInSearch || f.kind !== 'text' || f.name === 'submit_time', hideInForm: true })),
    rowActions: [
      { key: 'review', label: '审核', type: 'modal', permission: q.check, visible: (r) => kind.reviewable(r), component: Review },
      { key: 'process', label: '审批流程', type: 'modal', component: processDrawerFor<T>(processSubject(s)) },
    ],
    batch: [{ key: 'batch', label: '批量审核', type: 'modal', permission: q.check, component: batchReviewModalFor(kind) }],
    detail: { component: Review },
    autoRefresh: 60_000,
  });
}

/** A history screen of a register (spec 001: 车辆备案记录, 运单记录, 运单总记录): every row it may list, detail, process and revoke with its own code. */
export interface RegisterHistory {
  key: string;
  title: string;
  list: string;
  /** GET; the register's own detail call when absent. */
  detail?: string;
  permission: PermissionCode;
  revoke?: { path: string; permission: PermissionCode };
}

export function registerHistoryScreen<R extends ApprovableRow>(s: RegisterScreens<R>, h: RegisterHistory): ScreenDef<R> {
  return defineScreen<R>({
    key: `${s.key}.${h.key}`,
    title: h.title,
    labels: s.labels,
    list: { path: h.list, permission: h.permission },
    rowKey: 'id' as keyof R & string,
    card: s.card,
    fields: s.fields,
    rowActions: [
      { key: 'detail', label: '详情', type: 'detail' },
      { key: 'process', label: '审批流程', type: 'modal', component: processDrawerFor<R>(processSubject(s)), visible: when('process', s.stateKey) },
      ...(h.revoke
        ? [{ key: 'revoke', label: '撤销', type: 'modal' as const, component: revokeModal(s, h.revoke.path), permission: h.revoke.permission, visible: when('revoke', s.stateKey), danger: true }]
        : []),
    ],
    detail: { title: `${s.noun}详情`, fetch: (r) => get<R>(h.detail ?? s.paths.detail, { id: r.id }), ...(s.detail ? { render: s.detail, width: 760 } : {}) },
  });
}
