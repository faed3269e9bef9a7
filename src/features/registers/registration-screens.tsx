import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, ErrorBlock, Skeleton } from 'antd-mobile';
import { useEffect, useState } from 'react';
import { enumLabel } from '../../../domain/enums';
import { registerQueues } from '../../../domain/registers';
import { REGISTRATION_AREA_ALL, registrationAmendBody, registrationDocuments, vehicleRegistrationApi, type VehicleRegistrationRow } from '../../../domain/schemas/vehicle-registration';
import { DateRangeInput } from '../../components/date-inputs';
import { ApiError, call } from '../../lib/http';
import { useIsDesktop } from '../../lib/use-media';
import { failureText, FormItem, ScreenModal, type DeclaredField, type RowAction, type ScreenDef, type ScreenModalProps } from '../../list-screen';
import { registerHistoryScreen, registerListScreen, registerQueueScreen, type RegisterScreens, type RegisterTask } from './approvable-screens';
import { DetailSections, type DetailSection } from './register-detail';
import { showToast } from '../../lib/feedback';

/** Vehicle registrations (车辆备案, spec 001 §2): the filer's list, the history (车辆备案记录) and the review queue, from one declaration. */

type R = VehicleRegistrationRow;
type T = RegisterTask<R>;

const api = vehicleRegistrationApi;
const queue = registerQueues[api.queue];

/** Lines only the form and the detail show. */
const formOnly = { hideInSearch: true, hideInTable: true, hideInCard: true } as const;
const day = (v: string | null | undefined) => (v ? v.slice(0, 10) : '');
const range = (begin: string | null | undefined, end: string | null | undefined) => (begin || end ? `${day(begin) || '不限'} 至 ${day(end) || '不限'}` : '-');

/** A validity pair of the permits and the tank report: one date range in the form, its two columns on the wire. */
function validity(name: string, label: string, begin: keyof R & string, end: keyof R & string): DeclaredField<R> {
  return { name, label, kind: 'dateRange', ...formOnly, render: (r) => range(r[begin] as string | null, r[end] as string | null), form: { rangeKeys: [begin, end] } };
}

const fields: DeclaredField<R>[] = [
  // The filters of spec 001 §2 and the columns.
  { name: 'application_number', kind: 'text', width: 170, hideInForm: true },
  { name: 'license_plate', kind: 'text', width: 110, form: { placeholder: '如 粤L12345' } },
  { name: 'license_plate_color', kind: 'enum', options: 'plateColor', ...formOnly },
  { name: 'visitor_company', kind: 'text', width: 200 },
  { name: 'visit_area', kind: 'enum', options: 'visitArea', width: 120, search: { default: REGISTRATION_AREA_ALL } },
  // Detail only: with them the desktop table cut every column of the row to fit its pane.
  { name: 'phone', kind: 'text', ...formOnly },
  { name: 'total_mass', kind: 'number', unit: '吨', ...formOnly },
  {
    name: 'valid_time',
    label: '备案有效期',
    kind: 'dateRange',
    width: 210,
    render: (r) => range(r.begin_time, r.end_time),
    // The filter finds the registrations whose validity overlaps the range; the form sets the validity (at most one year).
    search: { rangeKeys: ['begin_time', 'end_time'] },
    form: { rangeKeys: ['begin_time', 'end_time'], required: true, help: '备案有效期最长1年，需覆盖车辆来访日期' },
  },
  { name: 'state', kind: 'enum', options: 'applicationState', tag: true, hideInForm: true, width: 96, search: { default: -1 } },
  // Permits and tank: optional (spec 001 §2).
  { name: 'company_road_transport_number', kind: 'text', ...formOnly },
  validity('company_road_transport_valid', '企业道路运输经营许可证有效期', 'company_road_transport_begin', 'company_road_transport_end'),
  { name: 'road_transport_number', kind: 'text', ...formOnly },
  validity('road_transport_valid', '道路运输证有效期', 'road_transport_begin', 'road_transport_end'),
  { name: 'tank_number', kind: 'text', ...formOnly },
  { name: 'tank_volume', kind: 'number', unit: 'm³', ...formOnly },
  { name: 'tank_medium_range', kind: 'text', ...formOnly },
  validity('tank_report_valid', '罐体检测报告有效期', 'tank_report_begin', 'tank_report_end'),
  // Documents, each with its most images (spec 001 §5).
  ...registrationDocuments.map(([name, , max]): DeclaredField<R> => ({ name, kind: 'images', max, ...formOnly, form: { help: `最多${max}张` } })),
  { name: 'revoke_reason', kind: 'text', ...formOnly, hideInForm: true, render: (r) => r.revoke_reason || '-' },
  { name: 'create_user_name', kind: 'text', hideInSearch: true, hideInForm: true, hideInCard: true, width: 96, render: (r) => r.create_user_name ?? '-' },
  { name: 'create_time', kind: 'text', hideInSearch: true, hideInForm: true, hideInCard: true, width: 170 },
];

const sections: DetailSection[] = [
  { title: '备案信息', fields: ['application_number', 'state', 'valid_time', 'visit_area', 'visitor_company', 'phone', 'revoke_reason', 'create_user_name', 'create_time'] },
  { title: '车辆信息', fields: ['license_plate', 'license_plate_color', 'total_mass'] },
  { title: '证照信息', fields: ['company_road_transport_number', 'company_road_transport_valid', 'road_transport_number', 'road_transport_valid'] },
  { title: '罐体信息', fields: ['tank_number', 'tank_volume', 'tank_medium_range', 'tank_report_valid'] },
  { title: '证件资料', fields: registrationDocuments.map(([name]) => ({ name, wide: true })) },
];

const isTask = (row: R | T): row is T => typeof (row as Partial<T>).process_task_id === 'number';

function Sections({ row }: { row: R }) {
  return <DetailSections sections={sections} fields={registrationScreen.fields} row={row} />;
}

/** The review loads the registration itself (the queue's row carries the task's state over it); spec 001 §8 names its failure. */
function ReviewedRegistration({ task }: { task: T }) {
  const q = useQuery({ queryKey: ['detail', 'registers.registration', task.ref_id], queryFn: () => call(api.calls.detail, { id: task.ref_id }), retry: false });
  if (q.isLoading) return <Skeleton.Paragraph lineCount={6} animated />;
  if (q.isError || !q.data)
    return (
      <ErrorBlock status="default" title="获取备案车辆信息失败" description={q.error instanceof Error ? q.error.message : undefined}>
        <Button size="small" color="primary" fill="outline" onClick={() => void q.refetch()}>
          重试
        </Button>
      </ErrorBlock>
    );
  return <Sections row={q.data} />;
}

export const registration: RegisterScreens<R> = {
  reveal: 'vehicle_registration',
  key: 'registers.registration',
  title: '车辆备案',
  contract: api,
  revokeEffect: '已通过的备案随之失效',
  fields,
  card: { title: 'license_plate', extra: 'state' },
  stateKey: 'state',
  detail: (row) => (isTask(row) ? <ReviewedRegistration task={row} /> : <Sections row={row} />),
  name: (r) => r.license_plate,
  subtitle: (r) => `${r.visitor_company} · ${enumLabel('visitArea', r.visit_area)} · ${range(r.begin_time, r.end_time)}`,
};

/**
 * 修改备案有效期 (spec 001 §2, §4, §8): only the validity range. The button
 * follows the rule the server's canAmend applies to a row of this queue (a
 * pending task of the caller's, the registration under review, the check
 * code); opening asks canAmend itself, so a row that changed since the page
 * loaded is refused before anything is typed.
 */
function AmendModal({ open, row, onClose, onDone }: ScreenModalProps<T>) {
  const desktop = useIsDesktop();
  const qc = useQueryClient();
  const task = row!;
  const ids = { id: task.ref_id, process_instance_id: task.process_instance_id };
  const allowed = useQuery({
    queryKey: ['registration', 'canAmend', task.ref_id, task.process_instance_id],
    queryFn: () => call(api.canAmend, ids),
    enabled: open,
    retry: false,
    staleTime: 0,
  });
  const [value, setValue] = useState<[unknown, unknown]>([task.begin_time, task.end_time]);
  const [error, setError] = useState<string>();
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (allowed.data === false) {
      showToast({ icon: 'fail', content: '该备案已不在您的待审核中，不能修改有效期' });
      onClose();
    }
  }, [allowed.data, onClose]);

  const submit = async () => {
    if (saving || allowed.data !== true) return;
    const parsed = registrationAmendBody.safeParse({ ...ids, begin_time: value[0], end_time: value[1] });
    if (!parsed.success) return setError(parsed.error.issues[0]?.message);
    setSaving(true);
    try {
      await call(api.amend, parsed.data);
      showToast({ icon: 'success', content: '编辑成功！' });
      void qc.invalidateQueries({ queryKey: ['detail', 'registers.registration', task.ref_id] });
      onDone();
    } catch (err) {
      const msg = err instanceof ApiError || err instanceof Error ? err.message : String(err);
      const fieldErr = err instanceof ApiError ? err.fieldErrors.find((f) => f.field === 'begin_time' || f.field === 'end_time') : undefined;
      if (fieldErr) setError(fieldErr.message);
      showToast({ icon: 'fail', content: failureText('编辑错误：', msg), duration: 3000 });
    } finally {
      setSaving(false);
    }
  };

  return (
    <ScreenModal open={open} title="修改备案有效期" onClose={onClose} onOk={() => void submit()} okText={desktop ? '确定' : '保存'} okLoading={saving || allowed.isLoading}>
      <div className="am-subject">
        <div className="am-subject__main">
          <b>{task.license_plate}</b>
        </div>
        <div className="am-subject__meta">当前有效期：{range(task.begin_time, task.end_time)}</div>
      </div>
      <div className={`ef pf-boxed ${desktop ? 'ef--horizontal' : 'ef--vertical'}`}>
        <FormItem label="备案有效期" required error={error} help="最长1年，需覆盖车辆来访日期">
          <DateRangeInput
            aria-label="备案有效期"
            value={value}
            disabled={saving}
            onChange={(v) => {
              setValue(Array.isArray(v) ? [v[0], v[1]] : [undefined, undefined]);
              setError(undefined);
            }}
          />
        </FormItem>
      </div>
    </ScreenModal>
  );
}

const amendAction: RowAction<T> = {
  key: 'amend',
  label: '修改有效期',
  type: 'modal',
  permission: queue.check,
  visible: (r, can) => r.approval_status === 1 && r.state === 0 && can(queue.check),
  component: AmendModal,
};

export const registrationScreen = registerListScreen(registration);
export const registrationHistoryScreen = registerHistoryScreen(registration, 'history');
const queueScreen = registerQueueScreen(registration);
/** The queue's filters of spec 001 §2 beside its text ones: the registered park (default 3) and when the task came in. */
export const registrationQueueScreen: ScreenDef<T> = {
  ...queueScreen,
  fields: [
    ...queueScreen.fields.map((f) => (f.name === 'visit_area' ? { ...f, hideInSearch: false } : f)),
    { name: 'submit_range', label: '提交时间', kind: 'dateRange', search: { rangeKeys: ['begin_time', 'end_time'] }, hideInTable: true, hideInCard: true, hideInForm: true, hideInDetail: true },
  ],
  rowActions: [...(queueScreen.rowActions ?? []), amendAction],
};
