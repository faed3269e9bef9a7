import { Dialog, Selector, TextArea } from 'antd-mobile';
import { useEffect, useMemo, useRef, useState, type ComponentType, type ReactNode } from 'react';
import type { AppointmentKind } from '../../../../domain/appointments';
import { enums, type EnumOption } from '../../../../domain/enums';
import { appointmentKinds, kindCalls, labelApi } from '../../../../domain/appointment-kinds';
import type { Call } from '../../../../domain/contract';
import { MAX_LABEL_PHOTOS, labelBody, revokeBody } from '../../../../domain/schemas/car-application';
import { ChoiceRadio } from '../../../components/choice-radio';
import { ImageUpload } from '../../../components/image-upload';
import { ModalForm, ReasonModal } from '../../../components/reason-modal';
import { PHOTOS_PROCESSING, forgetLocalPhotos, photoLimitMessage, photosBusy, splitFileNames } from '../../../lib/files';
import { ApiError, api, http } from '../../../lib/http';
import { outboxPhotos, sendAction } from '../../../lib/outbox/action';
import { FormItem, ScreenModal, failureText, type Row, type ScreenModalProps } from '../../../list-screen';
import { fieldErrorMap } from '../../../list-screen/conventions';
import { applicationIdOf } from './process-drawer';
import './action-modals.css';
import { showToast } from '../../../lib/feedback';
import { useIsDesktop } from '../../../lib/use-media';

/**
 * POST that also answers the reply's msg: the history screens show the
 * server's own text on success (spec 000 §8), which `post` drops.
 */
export async function postForMessage<T>(to: Call, data: unknown): Promise<{ data: T; msg: string }> {
  let msg = '';
  const base = http.defaults.transformResponse;
  const chain = Array.isArray(base) ? base : base ? [base] : [];
  const result = await api<T>({
    method: to.method,
    url: to.path,
    data,
    transformResponse: [
      ...chain,
      (body: unknown) => {
        if (body && typeof body === 'object' && 'msg' in body) msg = String((body as { msg?: unknown }).msg ?? '');
        return body;
      },
    ],
  });
  return { data: result, msg };
}

/** A reply from the server (an envelope with a message), as opposed to a call that never got one. */
const serverMessage = (e: unknown): string | undefined => (e instanceof ApiError && e.status > 0 ? e.message : undefined);
const anyMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

const fail = (content: string) => showToast({ icon: 'fail', content, duration: 3000 });
const done = (content: string) => showToast({ icon: 'success', content });

/** What the modal acts on, so the person sees which application a reason is for. */
function Subject({ kind, row }: { kind: AppointmentKind; row?: Row }) {
  if (!row) return null;
  const r = row as Record<string, unknown>;
  const k = appointmentKinds[kind];
  const src = (r[k.wrapper] as Record<string, unknown> | undefined) ?? r;
  const main = src[k.who];
  const sub = k.whoDetails.map((f) => src[f]);
  return (
    <div className="am-subject">
      <div className="am-subject__main">
        <b>{String(main ?? '')}</b>
        {src.application_number ? <span className="am-subject__no">{String(src.application_number)}</span> : null}
      </div>
      <div className="am-subject__meta">{sub.filter(Boolean).join(' · ')}</div>
    </div>
  );
}

const cache = new Map<string, ComponentType<ScreenModalProps<Row>>>();
function once<R extends Row>(key: string, make: () => ComponentType<ScreenModalProps<Row>>): ComponentType<ScreenModalProps<R>> {
  let c = cache.get(key);
  if (!c) {
    c = make();
    c.displayName = key;
    cache.set(key, c);
  }
  return c as unknown as ComponentType<ScreenModalProps<R>>;
}

/**
 * 撤销: a required reason, then {id, reason} to the kind's revoke call, or to
 * a history screen's (historyRevoke: /revokeForHis, allRevoke: /revokeForAllHis),
 * where the server's own message is shown on success.
 */
export function revokeModalFor<R extends Row = Row>(kind: AppointmentKind, from: 'revoke' | 'historyRevoke' | 'allRevoke' = 'revoke'): ComponentType<ScreenModalProps<R>> {
  const to = kindCalls[kind][from];
  const own = from === 'revoke';
  return once<R>(`RevokeModal(${kind},${to.path})`, () => (props: ScreenModalProps<Row>) => (
    <ReasonModal
      open={props.open}
      subject={<Subject kind={kind} row={props.row} />}
      title="撤销审核"
      label="撤销理由"
      placeholder="请输入撤销理由"
      notice="撤销后，该申请的审批将终止，未处理的审批任务随之关闭。"
      danger
      errorKey="reason"
      onClose={props.onClose}
      submit={async (reason) => {
        const parsed = revokeBody.safeParse({ id: applicationIdOf(kind, props.row), reason });
        if (!parsed.success) return fieldErrorMap(parsed.error.issues);
        try {
          const { msg } = await postForMessage(to, parsed.data);
          done(own ? '撤销审核成功！' : msg || '撤销审核成功！');
          props.onDone();
        } catch (e) {
          fail(failureText('撤销审核失败', anyMessage(e)));
        }
        return null;
      }}
    />
  ));
}

/** 驳回 (all-history, state 1): a required opinion, then POST …/return {carApplicationId|personApplicationId, remark}. */
export function rejectModalFor<R extends Row = Row>(kind: AppointmentKind): ComponentType<ScreenModalProps<R>> {
  return once<R>(`RejectModal(${kind})`, () => (props: ScreenModalProps<Row>) => (
    <ReasonModal
      open={props.open}
      subject={<Subject kind={kind} row={props.row} />}
      title="驳回"
      label="审批意见"
      placeholder="请输入审批意见"
      notice="驳回后申请状态变为“已驳回”，可稍后“继续审批”从当前节点重新开始。"
      okText="驳回"
      danger
      errorKey="remark"
      onClose={props.onClose}
      submit={async (remark) => {
        const k = appointmentKinds[kind];
        const parsed = k.schemas.return.safeParse({ [k.returnKey]: applicationIdOf(kind, props.row), remark });
        if (!parsed.success) return fieldErrorMap(parsed.error.issues);
        try {
          await postForMessage(kindCalls[kind].return, parsed.data);
          done('驳回成功');
          props.onDone();
        } catch (e) {
          const m = serverMessage(e);
          fail(m === undefined ? '驳回失败，请重试' : m || '驳回失败');
        }
        return null;
      }}
    />
  ));
}

/** 继续审批 (all-history, state 3 or 4): a confirm, then POST …/returnSubmit; the approval restarts where it stopped. */
export function resumeModalFor<R extends Row = Row>(kind: AppointmentKind): ComponentType<ScreenModalProps<R>> {
  return once<R>(`ResumeModal(${kind})`, () => (props: ScreenModalProps<Row>) => <ResumeConfirm kind={kind} {...props} />);
}

/** A confirm that sends before it closes: the phone's dialog, or on a desktop the list screens' modal at a dialog's width. */
function ResumeConfirm({ kind, open, row, onClose, onDone }: ScreenModalProps<Row> & { kind: AppointmentKind }) {
  const desktop = useIsDesktop();
  const [busy, setBusy] = useState(false);
  const id = applicationIdOf(kind, row);
  const resume = async () => {
    const k = appointmentKinds[kind];
    const body = k.schemas.returnSubmit.safeParse({ [k.returnKey]: id });
    if (!body.success) {
      fail(body.error.issues[0]?.message ?? '操作失败');
      return;
    }
    setBusy(true);
    try {
      await postForMessage(kindCalls[kind].returnSubmit, body.data);
      done('操作成功');
      onDone();
    } catch (e) {
      fail(anyMessage(e));
    } finally {
      setBusy(false);
    }
  };
  const text = (
    <div className="am-confirm">
      <Subject kind={kind} row={row} />
      <p>确定继续审批该申请吗？审批将从撤销或驳回时所在的节点重新开始。</p>
    </div>
  );
  if (desktop)
    return (
      <ScreenModal open={open} title="继续审批" width={440} onClose={onClose} onOk={() => void resume()} okText="继续审批" okLoading={busy}>
        {text}
      </ScreenModal>
    );
  return (
    <Dialog
      visible={open}
      title="继续审批"
      content={text}
      closeOnMaskClick
      onClose={onClose}
      actions={[
        [
          { key: 'cancel', text: '取消', onClick: onClose },
          { key: 'ok', text: '继续审批', bold: true, disabled: busy, onClick: resume },
        ],
      ]}
    />
  );
}

// ---------------------------------------------------------------- flag (mark) vehicles

interface FlagRow {
  car_application_id: number;
  license_plate?: string;
  visitor_company?: string;
  label_status?: number;
}

const SWATCH: Record<number, string> = { 1: '#ff3141', 2: '#faad14', 3: '#1677ff' };

function ColourChoice({ value, onChange, options }: { value: number; onChange: (v: number) => void; options: EnumOption[] }) {
  return (
    <Selector
      className="am-colours"
      showCheckMark={false}
      columns={options.length}
      value={[value]}
      onChange={(v) => v.length && onChange(Number(v[0]))}
      options={options.map((o) => ({
        value: o.value,
        label: (
          <span className="am-colour">
            <i className="am-colour__dot" style={{ background: SWATCH[o.value as number] ?? '#999' }} aria-hidden />
            {o.label}
          </span>
        ),
      }))}
    />
  );
}

const choices = (table: EnumOption[]) => table.filter((o) => Number(o.value) >= 0);

/** The plates being flagged; a long selection folds into "等 N 辆". */
function Plates({ rows }: { rows: FlagRow[] }) {
  const shown = rows.slice(0, 8);
  return (
    <div className="am-plates" role="group" aria-label="标记车辆">
      {shown.map((r) => (
        <span key={r.car_application_id} className={`am-plate${r.label_status === 1 ? ' am-plate--flagged' : ''}`} title={r.label_status === 1 ? '已标记' : undefined}>
          {r.license_plate || `#${r.car_application_id}`}
        </span>
      ))}
      {rows.length > shown.length && <span className="am-plates__more">等 {rows.length} 辆</span>}
    </div>
  );
}

/** The outbox line of a flag: the plates, folded when many ('标记 粤L12345、粤B67890 等5辆'). */
function flagTitle(plates: string[]): string {
  const shown = plates.slice(0, 2).join('、');
  return plates.length > 2 ? `标记 ${shown} 等${plates.length}辆` : `标记 ${shown}`;
}

/** How long an online flag waits for its send before the modal lets go and leaves it to the outbox. */
const SEND_WAIT_MS = 20_000;

const WAITING_OFFLINE = '当前无网络，标记已保存，联网后自动发送';
const WAITING_SLOW = '网络不稳定，标记已保存，将自动重新发送';

function FlagModal({ open, row, rows, onClose, onDone }: ScreenModalProps<Row>) {
  const picked = useMemo(() => (rows?.length ? rows : row ? [row] : []) as unknown as FlagRow[], [row, rows]);
  const colours = choices(enums.markColor);
  const types = choices(enums.markLabelType);
  const alarms = choices(enums.markAlarmType);
  const [values, setValues] = useState({ color_id: 2, label_type_id: 1, alarm_id: 3, remark: '', photo: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [photoWait, setPhotoWait] = useState(false);
  const warned = useRef(false);
  const photoRef = useRef(values.photo);
  photoRef.current = values.photo;

  useEffect(() => {
    if (open && picked.length === 0 && !warned.current) {
      warned.current = true;
      showToast({ content: '请先选择要标记的车辆' });
      onClose();
    }
  }, [open, picked.length, onClose]);

  // Photos still on the device belong to this modal: once it closes (sent to the outbox or abandoned) they go.
  useEffect(() => () => forgetLocalPhotos(splitFileNames(photoRef.current)), []);

  const set = <K extends keyof typeof values>(k: K, v: (typeof values)[K]) => {
    setValues((s) => ({ ...s, [k]: v }));
    setErrors((e) => (k in e ? Object.fromEntries(Object.entries(e).filter(([x]) => x !== k)) : e));
  };

  const submit = async () => {
    if (busy) return;
    if (picked.length === 0) return void showToast({ content: '请先选择要标记的车辆' });
    setBusy(true);
    try {
      // Photos not uploaded yet (offline, or still sending) travel with the flag as Blobs; the outbox uploads them first.
      // Photos being compressed or sent are waited for (issue 24 item 2): sent ones go as stored names, not twice.
      setPhotoWait(photosBusy(values.photo));
      const local = await outboxPhotos(values.photo);
      setPhotoWait(false);
      if ('error' in local) return setErrors({ photo: local.error });
      const parsed = labelBody.safeParse({ ...values, photo: local.names, car_application_ids: picked.map((r) => r.car_application_id).join(',') });
      if (!parsed.success) {
        const errs = fieldErrorMap(parsed.error.issues);
        if (errs.car_application_ids) showToast({ content: errs.car_application_ids });
        return setErrors(errs);
      }
      const total = splitFileNames(parsed.data.photo).length + local.blobs.length;
      if (total > MAX_LABEL_PHOTOS) return setErrors({ photo: photoLimitMessage(MAX_LABEL_PHOTOS) });
      await sendAction(
        {
          kind: 'flag',
          url: labelApi.label.path,
          // The wire takes the ids as a comma string (spec 000 §3), not the parsed array.
          body: { ...parsed.data, car_application_ids: parsed.data.car_application_ids.join(',') },
          title: flagTitle(picked.map((r) => r.license_plate || `#${r.car_application_id}`)),
          ...(local.blobs.length ? { photos: { photo: local.blobs } } : {}),
          meta: { carApplicationIds: parsed.data.car_application_ids },
        },
        {
          waitMs: SEND_WAIT_MS,
          okText: '标记成功',
          waitingText: { offline: WAITING_OFFLINE, slow: WAITING_SLOW },
          onDone,
          // Refused while the person is still here: they read why and fix it in the modal.
          onRefused: ({ message }) => fail(message || '标记失败'),
          onQueued: onClose,
        },
      );
    } catch (e) {
      fail(serverMessage(e) || anyMessage(e) || '标记失败');
    } finally {
      setBusy(false);
    }
  };

  if (picked.length === 0) return null;
  return (
    <ScreenModal
      open={open}
      title={picked.length > 1 ? `标记车辆（${picked.length}辆）` : '标记车辆'}
      onClose={onClose}
      onOk={() => void submit()}
      okText="标记"
      okLoading={busy}
      okLoadingText={photoWait ? PHOTOS_PROCESSING : undefined}
      width={620}
    >
      <ModalForm>
        <FormItem label="标记车辆">
          <Plates rows={picked} />
        </FormItem>
        <FormItem label="标记颜色" required error={errors.color_id}>
          <ColourChoice value={values.color_id} onChange={(v) => set('color_id', v)} options={colours} />
        </FormItem>
        <FormItem label="标记类型" required error={errors.label_type_id}>
          <ChoiceRadio value={values.label_type_id} onChange={(v) => set('label_type_id', Number(v))} options={types} />
        </FormItem>
        <FormItem label="报警方式" required error={errors.alarm_id}>
          <ChoiceRadio value={values.alarm_id} onChange={(v) => set('alarm_id', Number(v))} options={alarms} />
        </FormItem>
        <FormItem label="标记原因" required error={errors.remark} htmlFor="am-flag-remark">
          <TextArea id="am-flag-remark" value={values.remark} onChange={(v) => set('remark', v)} placeholder="请输入标记原因" autoSize={{ minRows: 3, maxRows: 8 }} maxLength={200} showCount />
        </FormItem>
        <FormItem label="现场照片" error={errors.photo} help={`最多${MAX_LABEL_PHOTOS}张，无网络时先保存在本机`}>
          <ImageUpload value={values.photo} onChange={(v) => set('photo', v)} max={MAX_LABEL_PHOTOS} />
        </FormItem>
      </ModalForm>
    </ScreenModal>
  );
}

/** 标记 (vehicles only): the selected rows of a batch, or the row of a row action. */
export function flagModalFor<R extends Row = Row>(): ComponentType<ScreenModalProps<R>> {
  return FlagModal as unknown as ComponentType<ScreenModalProps<R>>;
}
