import { useQuery } from '@tanstack/react-query';
import { Button, ErrorBlock, Skeleton, Tag } from 'antd-mobile';
import { ClockCircleOutline } from 'antd-mobile-icons';
import { useState, type ComponentType, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { enumLabel, enums, type EnumName } from '../../../domain/enums';
import { recordLink } from '../../../domain/notifications';
import { menuRoutes } from '../../../domain/permissions';
import { carApplicationLabels } from '../../../domain/schemas/car-application';
import { personApplicationLabels } from '../../../domain/schemas/person-application';
import {
  isAlarmHandled,
  smsSendOptions,
  strandedApi,
  strandedHandledOptions,
  strandedLabels,
  type AlarmList,
  type DeviationCrossing,
  type StrandedAlarmRow,
  type StrandedKind,
} from '../../../domain/schemas/stranded';
import { isNetworkFailure } from '../../lib/files';
import { call } from '../../lib/http';
import { useCan } from '../../lib/me';
import { stateLabels, useOutbox } from '../../lib/outbox';
import { ScreenModal, type ScreenModalProps } from '../../list-screen';
import { AlarmDeal } from './alarm-deal-modal';
import { alarmKinds, waitingDeal } from './alarm-kinds';
import './stranded.css';

type Value = ReactNode | string | number | null | undefined;
interface Line {
  label: string;
  value: Value;
  wide?: boolean;
}

const blank = (v: Value) => v === null || v === undefined || v === '';
const code = (name: EnumName, v: number | null | undefined) => (v === null || v === undefined ? null : enumLabel(name, v));
const range = (from: string | null | undefined, to: string | null | undefined) => (from || to ? `${from || '-'} 至 ${to || '-'}` : null);

const GATE_RECORDS_CODE = 'vehicleGateCrosRecords:list';
const GATE_RECORDS_MENU = 'menu:vehicleGateCrosRecords';

function tagOf(options: typeof strandedHandledOptions, v: number | null | undefined): ReactNode {
  const o = options.find((x) => x.value === v);
  return o ? (
    <Tag color={o.color ?? 'default'} fill="outline" className="ls-tag">
      {o.label}
    </Tag>
  ) : null;
}

/** 处理状态 of a row: handled, waiting in this device's outbox, or not handled yet. */
export function HandledState({ list, row }: { list: AlarmList; row: StrandedAlarmRow }) {
  const box = useOutbox();
  if (isAlarmHandled(row)) return <>{tagOf(strandedHandledOptions, 1)}</>;
  const waiting = waitingDeal(list, row.id, box);
  if (waiting)
    return (
      <span title={waiting.error}>
        <Tag color={waiting.state === 'conflict' || waiting.state === 'failed' ? 'danger' : 'primary'} fill="outline" className="ls-tag">
          <ClockCircleOutline /> {stateLabels[waiting.state]}
        </Tag>
      </span>
    );
  return <>{tagOf(strandedHandledOptions, 0)}</>;
}

function Section({ title, lines }: { title: string; lines: Line[] }) {
  return (
    <section className="sd-section" aria-label={title}>
      <h4 className="sd-title">{title}</h4>
      <dl className="sd-grid">
        {lines.map((l) => (
          <div key={l.label} className={`sd-item${l.wide ? ' sd-item--wide' : ''}`}>
            <dt className="sd-label">{l.label}</dt>
            <dd className="sd-value">{blank(l.value) ? <span className="ls-dash">-</span> : l.value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

type Info = StrandedAlarmRow['application_info'];

/** How each kind's alarm names its subject in the detail: the plate, or the person's name and ID number. */
const subjectLines: Record<StrandedKind, (row: StrandedAlarmRow) => Line[]> = {
  car: (row) => [{ label: strandedLabels.license_plate!, value: row.license_plate }],
  person: (row) => [
    { label: strandedLabels.person_name!, value: row.person_name },
    { label: strandedLabels.idcard!, value: row.idcard },
  ],
};

/** The visit as each kind's appointment kept it (application_info): a person's visitor and visit, a vehicle's applicant, vehicle and visit. */
const visitSections: Record<StrandedKind, (row: StrandedAlarmRow, info: Info) => ReactNode> = {
  person: (_row, info) => {
    const P = personApplicationLabels;
    return (
      <>
        <Section
          title="申请人信息"
          lines={[
            { label: P.visitor_name!, value: info.visitor_name },
            { label: P.visitor_phone!, value: info.visitor_phone },
            { label: P.visitor_company!, value: info.visitor_company },
          ]}
        />
        <Section
          title="来访信息"
          lines={[
            { label: P.application_number!, value: info.application_number },
            { label: '来访时间', value: range(info.visit_begin_time, info.visit_end_time) },
            { label: P.interviewee_name!, value: info.interviewee_name },
            { label: P.interviewee_phone!, value: info.interviewee_phone },
            { label: P.interviewee_depart_id!, value: info.interviewee_depart_name },
          ]}
        />
      </>
    );
  },
  car: (row, info) => {
    const C = carApplicationLabels;
    return (
      <>
        <Section
          title="申请人信息"
          lines={[
            { label: C.applicant_name!, value: info.applicant_name },
            { label: C.applicant_phone!, value: info.applicant_phone },
            { label: C.visitor_company!, value: info.visitor_company },
          ]}
        />
        <Section
          title="车辆信息"
          lines={[
            { label: C.license_plate!, value: info.license_plate || row.license_plate },
            { label: C.vehicle_type_name!, value: info.vehicle_type_name },
            { label: C.cargo_type!, value: blank(info.cargo_type) ? null : info.cargo_type === 1 ? '危险货物' : '普通货物' },
            { label: C.cargo_name!, value: info.cargo_name },
          ]}
        />
        <Section
          title="来访信息"
          lines={[
            { label: C.application_number!, value: info.application_number },
            { label: '来访时间', value: range(info.visitor_begin_time, info.visitor_end_time) },
            { label: C.interviewee_name!, value: info.interviewee_name },
            { label: C.interviewee_phone!, value: info.interviewee_phone },
            { label: C.interviewee_depart_id!, value: info.interviewee_depart_name },
          ]}
        />
      </>
    );
  },
};

const optionTag = (name: 'gateDirection' | 'gateOpenResult', v: number) => tagOf(enums[name], v);

/**
 * 偏离记录: each crossing off the route, by capture time: when, which gate,
 * which way, whether it opened; a link to its gate record for whoever may
 * read the vehicle crossing records.
 */
function DeviationCrossings({ crossings }: { crossings: DeviationCrossing[] }) {
  const can = useCan();
  const records = can(GATE_RECORDS_CODE) ? menuRoutes.get(GATE_RECORDS_MENU)?.route : undefined;
  return (
    <section className="sd-section" aria-label={strandedLabels.crossings}>
      <h4 className="sd-title">
        {strandedLabels.crossings}
        <span className="sd-count">共 {crossings.length} 次</span>
      </h4>
      <ol className="sd-crossings">
        {crossings.map((c) => (
          <li key={c.record_id} className="sd-crossing">
            <span className="sd-crossing__time">{c.capture_time}</span>
            <span className="sd-crossing__gate">{c.gate}</span>
            <span className="sd-crossing__tags">
              {optionTag('gateDirection', c.direction)}
              {optionTag('gateOpenResult', c.open_result)}
            </span>
            <span className="sd-crossing__record">{records && <Link to={recordLink(records, c.record_id)}>{strandedLabels.record_id}</Link>}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

/** What each list shows of the alarm itself: a stay's entry, alarm, exit and SMS; a route deviation's route, first crossing and stay, and no SMS (none is sent). */
function alarmLines(list: AlarmList, row: StrandedAlarmRow): Line[] {
  const L = strandedLabels;
  const subject = subjectLines[alarmKinds[list].kind](row);
  if (alarmKinds[list].deviation) {
    const stay = row.entry_gate_name !== null;
    return [
      ...subject,
      { label: L.visit_area!, value: code('visitArea', row.visit_area) },
      { label: L.level_type!, value: code('strandedLevel', row.level_type) },
      { label: L.route_name!, value: row.application_info?.route_name },
      { label: L.alarm_time!, value: row.alarm_time },
      { label: L.deviation_gate!, value: row.crossings[0]?.gate },
      { label: L.deviation_count!, value: `${row.crossings.length} 次` },
      // A crossing that opened no stay (refused, or an exit whose entry was never recorded) has no entry to show.
      { label: L.entry_time!, value: stay ? row.entry_time : null },
      { label: L.entry_gate_name!, value: row.entry_gate_name },
      { label: L.exit_time!, value: row.exit_time },
    ];
  }
  return [
    ...subject,
    { label: L.visit_area!, value: code('visitArea', row.visit_area) },
    { label: L.level_type!, value: code('strandedLevel', row.level_type) },
    { label: L.is_black!, value: code('yesNo', row.is_black) },
    { label: L.entry_time!, value: row.entry_time },
    { label: L.entry_gate_name!, value: row.entry_gate_name },
    { label: L.alarm_time!, value: row.alarm_time },
    { label: L.exit_time!, value: row.exit_time },
    { label: L.phones!, value: row.phones?.split(',').join('、') },
    { label: L.sms_send!, value: row.sms_send === null ? null : tagOf(smsSendOptions, row.sms_send) },
    { label: L.sms_content!, value: row.sms_content, wide: true },
    { label: L.sms_error_response!, value: row.sms_error_response, wide: true },
  ];
}

/**
 * The read-only detail of an alarm (spec 001 §2): alarm information (with its
 * SMS and its handling; a route deviation's crossings off the route), then the
 * applicant, the vehicle and the visit as they were when the alarm was raised
 * (application_info). A subject that came in without an approved visit has
 * none of those, and they are left out.
 */
export function StrandedDetail({ list, row }: { list: AlarmList; row: StrandedAlarmRow }) {
  const L = strandedLabels;
  const kind = alarmKinds[list].kind;
  const info = row.application_info ?? {};
  const handled = isAlarmHandled(row);
  const alarm: Line[] = [
    ...alarmLines(list, row),
    { label: L.handled!, value: <HandledState list={list} row={row} /> },
    { label: L.handle_user_name!, value: row.handle_user_name },
    { label: L.handle_time!, value: row.handle_time },
    { label: L.false_alarm!, value: handled ? code('yesNo', row.false_alarm) : null },
    { label: L.handled_remark!, value: row.handled_remark, wide: true },
  ];
  const crossings = row.crossings.length > 0 && <DeviationCrossings crossings={row.crossings} />;
  // A subject let in without an approved visit (a black-listed one) has no applicant, vehicle or visit to show.
  if (row.application_id == null) {
    return (
      <div className="sd">
        <Section title="告警信息" lines={alarm} />
        {crossings}
        <p className="sd-note">{row.is_black ? '黑名单入园，没有关联的预约，无申请人与来访信息。' : '入园时没有有效预约，无申请人与来访信息。'}</p>
      </div>
    );
  }
  return (
    <div className="sd">
      <Section title="告警信息" lines={alarm} />
      {crossings}
      {visitSections[kind](row, info)}
    </div>
  );
}

/** GET detail (spec 001 §7); without a signal the list's own row (it carries every field) stands in. */
export const fetchAlarm = (list: AlarmList) => (row: StrandedAlarmRow) => call(strandedApi[list].calls.detail, { id: row.id }).catch((e: unknown) => (isNetworkFailure(e) ? row : Promise.reject(e)));

const detailModals = new Map<AlarmList, ComponentType<ScreenModalProps<StrandedAlarmRow>>>();

/**
 * What a tap on an alarm (or a notification's link to it) opens: its detail,
 * with 处理告警 at hand while it waits for handling and the signed-in user
 * may handle it, so a lead goes from the notification to handling in two taps.
 */
export function strandedDetailModalFor(list: AlarmList, screenKey: string): ComponentType<ScreenModalProps<StrandedAlarmRow>> {
  let C = detailModals.get(list);
  if (C) return C;
  const k = alarmKinds[list];
  const fetch = fetchAlarm(list);
  C = function StrandedDetailModal({ open, row, onClose, onDone }: ScreenModalProps<StrandedAlarmRow>) {
    const can = useCan();
    const box = useOutbox();
    const [dealing, setDealing] = useState(false);
    const q = useQuery({ queryKey: ['detail', screenKey, row?.id], queryFn: () => fetch(row!), enabled: !!row && open, retry: false });
    if (!row) return null;
    const data = q.data ?? row;
    if (dealing) return <AlarmDeal list={list} open={open} row={data} onClose={() => setDealing(false)} onDone={onDone} onQueued={onClose} />;
    const mayDeal = can(k.deal) && !isAlarmHandled(data) && !waitingDeal(list, data.id, box);
    return (
      <ScreenModal open={open} title={`${k.noun}详情`} onClose={onClose} width={760} onOk={mayDeal ? () => setDealing(true) : undefined} okText="处理告警" cancelText="关闭">
        {q.isLoading ? (
          <Skeleton.Paragraph lineCount={8} animated />
        ) : q.isError ? (
          <ErrorBlock status="default" title="获取详情失败" description={q.error instanceof Error ? q.error.message : undefined}>
            <Button size="small" color="primary" fill="outline" onClick={() => void q.refetch()}>
              重试
            </Button>
          </ErrorBlock>
        ) : (
          <StrandedDetail list={list} row={data} />
        )}
      </ScreenModal>
    );
  };
  detailModals.set(list, C);
  return C;
}
