import type { ComponentType, ReactNode } from 'react';
import type { Call } from '../../../domain/contract';
import type { PermissionCode } from '../../../domain/permissions';
import { registerAllows, registerQueues, type RegisterAction, type RegisterContract } from '../../../domain/registers';
import { revokeBody } from '../../../domain/schemas/car-application';
import { TaskFlags, type FlaggedTask } from '../../components/approval/task-flags';
import { batchReviewModalFor, reviewModalFor, type ReviewKind, type ReviewTask } from '../../components/approval/review-modal';
import { processDrawerFor, type ProcessSubject } from '../../components/process/process-drawer';
import { ReasonModal } from '../../components/reason-modal';
import { ApiError, call } from '../../lib/http';
import { defineScreen, DetailLines, failureText, fieldErrorMap, type DeclaredField, type Row, type RowAction, type ScreenDef, type ScreenModalProps, type ToolbarAction } from '../../list-screen';
import { showToast } from '../../lib/feedback';
import type { RevealRecord } from '../../../domain/schemas/pii';

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
  /** Screen key prefix. */
  key: string;
  title: string;
  /** The register on the wire (domain/registers.ts defineRegister): its noun, labels, codes, schemas, calls, queue and wrapper. */
  contract: RegisterContract;
  fields: DeclaredField<R>[];
  card: { title: string; extra?: string };
  /** The record its rows are, for revealing a masked ID number or phone in the detail (domain/schemas/pii.ts). */
  reveal?: RevealRecord;
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

function revokeModal<R extends ApprovableRow>(s: RegisterScreens<R>, revoke: Call<typeof revokeBody> = s.contract.revoke): ComponentType<ScreenModalProps<R>> {
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
        notice={`撤销后，该${s.contract.noun}的审批将终止${s.revokeEffect ? `，${s.revokeEffect}` : ''}。`}
        danger
        errorKey="reason"
        onClose={onClose}
        submit={async (reason) => {
          const parsed = revokeBody.safeParse({ id: row?.id, reason });
          if (!parsed.success) return fieldErrorMap(parsed.error.issues);
          try {
            await call(revoke, parsed.data);
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
      call: s.contract.processInfo,
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

/** The register's own list: add, edit, detail, process, submit, urge, revoke, delete, each shown by the state table. */
export function registerListScreen<R extends ApprovableRow>(s: RegisterScreens<R>): ScreenDef<R> {
  const { contract: c } = s;
  const { codes, calls } = c;
  const rowActions: RowAction<R>[] = [
    { key: 'detail', label: '详情', type: 'detail' },
    { key: 'edit', label: '编辑', type: 'edit', permission: codes.edit, visible: when('edit', s.stateKey) },
    { key: 'process', label: '审批流程', type: 'modal', component: processDrawerFor<R>(processSubject(s)), visible: when('process', s.stateKey) },
    {
      key: 'submit',
      label: '提交',
      type: 'call',
      permission: codes.commit,
      visible: when('submit', s.stateKey),
      confirm: (r) => `确认提交“${s.name(r)}”？提交后将进入审批流程。`,
      path: c.push,
      body: (r) => ({ id: r.id }),
      success: '提交成功！',
      failure: '提交失败',
    },
    {
      key: 'urge',
      label: '催办',
      type: 'call',
      permission: codes.revoke,
      visible: when('urge', s.stateKey),
      path: c.urge,
      body: (r) => ({ id: r.id }),
      success: '催办成功，已通知审核人',
      failure: '催办失败',
    },
    { key: 'revoke', label: '撤销', type: 'modal', component: revokeModal(s), permission: codes.revoke, visible: when('revoke', s.stateKey), danger: true },
    { key: 'delete', label: '删除', type: 'delete', permission: codes.delete, visible: when('delete', s.stateKey), path: calls.delete, body: (r) => ({ id: r.id }) },
  ];
  return defineScreen<R>({
    key: s.key,
    title: s.title,
    labels: c.labels,
    list: { path: calls.list, permission: codes.list },
    rowKey: 'id' as keyof R & string,
    ...(s.reveal ? { reveal: s.reveal } : {}),
    card: s.card,
    fields: s.fields,
    toolbar: [{ key: 'add', label: `新增${c.noun}`, type: 'create', permission: codes.add }, ...(s.toolbar ?? [])],
    rowActions,
    form: {
      schema: { create: c.schemas.create!, edit: c.schemas.update! },
      create: { path: calls.save!, title: `新增${c.noun}` },
      edit: { path: calls.edit!, title: `编辑${c.noun}`, idParam: 'id' },
      submit: { path: c.push, permission: codes.commit },
      width: 640,
    },
    detail: { title: `${c.noun}详情`, fetch: async (r) => (await call(calls.detail, { id: r.id })) as unknown as R, ...(s.detail ? { render: s.detail, width: 760 } : {}) },
  });
}

/** A task of the register's queue, laid over the row it wraps so the list's fields read it as they read the register. */
export type RegisterTask<R extends ApprovableRow> = R & ReviewTask & FlaggedTask & { process_task_id: number; ref_id: number; approval_status?: number | null };

const reviewKinds = new WeakMap<object, ReviewKind<never>>();
function reviewKind<R extends ApprovableRow>(s: RegisterScreens<R>, screen: ScreenDef<R>): ReviewKind<RegisterTask<R>> {
  let k = reviewKinds.get(s) as ReviewKind<RegisterTask<R>> | undefined;
  if (!k) {
    const q = registerQueues[s.contract.queue];
    k = {
      name: s.contract.queue,
      checkPath: s.contract.task.check.path,
      check: q.check,
      processCall: processSubject(s).call,
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
  const q = registerQueues[s.contract.queue];
  const kind = reviewKind(s, listScreen);
  const Review = reviewModalFor(kind);
  type T = RegisterTask<R>;
  return defineScreen<T>({
    key: `${s.key}.queue`,
    title: q.title,
    labels: s.contract.labels,
    list: {
      path: s.contract.task.page,
      permission: q.list,
      arrange: (rows) => rows.map((t) => ({ ...((t as unknown as Record<string, unknown>)[s.contract.wrapper] as R), ...t, id: (t as ReviewTask).ref_id }) as T),
    },
    rowKey: 'process_task_id',
    // 已催办 / 已超时 (docs/approvals.md) where the register shows its state: at the right of a phone card's title, the column after the key on a desktop,
    // where it is never cut and so counts whole towards whether the table fits: narrow enough for a waybill's eleven columns at 1440 px, the two tags one above the other.
    card: { title: s.card.title, extra: 'flags' },
    // The register's columns, then when it was submitted; the queue searches by the register's text fields only (spec 001 §2).
    fields: [
      ...(s.fields.filter((f) => !f.hideInTable && f.name !== (s.stateKey ?? 'status') && f.name !== 'validity') as DeclaredField<T>[]),
      { name: 'submit_time', label: '提交时间', kind: 'text', width: 170 } satisfies DeclaredField<T>,
      { name: 'flags', label: '催办/超时', kind: 'custom', width: 120, hideInSearch: true, hideInDetail: true, render: (r) => <TaskFlags task={r} dash /> } satisfies DeclaredField<T>,
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
export function registerHistoryScreen<R extends ApprovableRow>(s: RegisterScreens<R>, key: string): ScreenDef<R> {
  const c = s.contract;
  const h = c.histories[key]!;
  const detail = h.detail ?? c.calls.detail;
  return defineScreen<R>({
    key: `${s.key}.${key}`,
    title: h.title,
    labels: c.labels,
    list: { path: h.list, permission: h.list.permission as PermissionCode },
    rowKey: 'id' as keyof R & string,
    ...(s.reveal ? { reveal: s.reveal } : {}),
    card: s.card,
    fields: s.fields,
    rowActions: [
      { key: 'detail', label: '详情', type: 'detail' },
      { key: 'process', label: '审批流程', type: 'modal', component: processDrawerFor<R>(processSubject(s)), visible: when('process', s.stateKey) },
      ...(h.revoke
        ? [
            {
              key: 'revoke',
              label: '撤销',
              type: 'modal' as const,
              component: revokeModal(s, h.revoke),
              permission: h.revoke.permission as PermissionCode,
              visible: when('revoke', s.stateKey),
              danger: true,
            },
          ]
        : []),
    ],
    detail: { title: `${c.noun}详情`, fetch: async (r) => (await call(detail, { id: r.id })) as unknown as R, ...(s.detail ? { render: s.detail, width: 760 } : {}) },
  });
}
