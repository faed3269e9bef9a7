import { Button, Tag } from 'antd-mobile';
import { CheckCircleFill, ClockCircleFill, CloseCircleFill, ExclamationCircleFill, QuestionCircleFill } from 'antd-mobile-icons';
import type { ReactNode } from 'react';
import { appointmentKinds } from '../../../domain/appointment-kinds';
import { AppState, stateLabel, type AppointmentKind } from '../../../domain/appointments';
import { enumLabel, enums } from '../../../domain/enums';
import type { LookupApplication, LookupFlag, LookupListEntry, PassCheck, PassLookup, PassPayload, PassStatus, Validity } from '../../../domain/pass';
import { ImageList } from '../../components/image-viewer';
import { splitFileNames } from '../../lib/files';
import { PlateBadge } from '../../components/plate-badge';

/**
 * What a scan found, in the order a patrol at a gate needs it: the verdict
 * on the pass, what its signature proves, then what the park knows now
 * (state, lists, flags), which needs the network and says so when it has none.
 */

export type Scanned = { type: 'pass'; text: string } | { type: 'plate'; plate: string } | { type: 'idcard'; idcard: string };

export type LookupState = { status: 'loading' } | { status: 'offline' } | { status: 'error'; message: string } | { status: 'done'; data: PassLookup };

const VERDICT: Record<PassStatus | 'no-key', { tone: 'ok' | 'warn' | 'bad' | 'unknown'; title: string; icon: ReactNode }> = {
  valid: { tone: 'ok', title: '通行码有效', icon: <CheckCircleFill /> },
  'not-yet': { tone: 'warn', title: '通行码未到有效期', icon: <ClockCircleFill /> },
  expired: { tone: 'warn', title: '通行码已过期', icon: <ClockCircleFill /> },
  forged: { tone: 'bad', title: '伪造或被篡改的通行码', icon: <CloseCircleFill /> },
  'unknown-key': { tone: 'unknown', title: '无法核验此通行码', icon: <QuestionCircleFill /> },
  malformed: { tone: 'bad', title: '不是园区通行码', icon: <CloseCircleFill /> },
  'no-key': { tone: 'unknown', title: '本机尚无核验密钥', icon: <QuestionCircleFill /> },
};

function verdictDetail(status: PassStatus | 'no-key', p?: PassPayload): string {
  switch (status) {
    case 'valid':
      return `园区签名核验通过，当前在有效期内（至 ${p?.end}）。`;
    case 'not-yet':
      return `园区签名核验通过，但有效期自 ${p?.begin} 起，现在还不能凭此码入园。`;
    case 'expired':
      return `园区签名核验通过，但有效期已于 ${p?.end} 结束。`;
    case 'forged':
      return '签名与内容不符：此码被改动过或并非园区签发。请勿放行，核实来人身份。';
    case 'unknown-key':
      return '此码不是用本机保存的园区密钥签发的（密钥可能已更换）。请联网后重新扫码。';
    case 'malformed':
      return '二维码内容不是园区通行码。';
    case 'no-key':
      return '本机还没有保存园区的签名公钥，无法离线核验。联网打开本页面一次后即可离线使用。';
  }
}

export function Verdict({ status, payload }: { status: PassStatus | 'no-key'; payload?: PassPayload }) {
  const v = VERDICT[status];
  return (
    <div className={`sr-verdict sr-verdict--${v.tone}`} role="status" aria-label="核验结果">
      <span className="sr-verdict__icon" aria-hidden>
        {v.icon}
      </span>
      <div>
        <div className="sr-verdict__title">{v.title}</div>
        <div className="sr-verdict__detail">{verdictDetail(status, payload)}</div>
      </div>
    </div>
  );
}

function Lines({ children }: { children: ReactNode }) {
  return <dl className="sr-lines">{children}</dl>;
}
/** A field's label in its kind's catalogue (appointmentKinds[kind].labels); a missing one is a programming error. */
function labelOf(kind: AppointmentKind, name: string): string {
  const label = appointmentKinds[kind].labels[name];
  if (!label) throw new Error(`no ${kind} label for ${name}`);
  return label;
}

function Line({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="sr-line">
      <dt>{label}</dt>
      <dd>{children === null || children === undefined || children === '' ? <span className="sr-dash">-</span> : children}</dd>
    </div>
  );
}

const range = (begin: string, end: string) => `${begin.slice(0, 16)} 至 ${end.slice(0, 16)}`;

const VALIDITY: Record<Validity, [string, 'success' | 'primary' | 'warning']> = {
  valid: ['有效期内', 'success'],
  'not-yet': ['未到有效期', 'primary'],
  expired: ['已过期', 'warning'],
};
function ValidityTag({ validity }: { validity: Validity }) {
  return (
    <Tag color={VALIDITY[validity][1]} fill="outline" className="sr-tag">
      {VALIDITY[validity][0]}
    </Tag>
  );
}
function StateTag({ state }: { state: number }) {
  const o = enums.applicationState.find((s) => s.value === state);
  return (
    <Tag color={o?.color ?? 'default'} fill="outline" className="sr-tag">
      {o?.label ?? String(state)}
    </Tag>
  );
}

/** Whom a pass names: a vehicle by its plate, a person by name and masked ID number (what the payload holds). */
function PayloadHolder({ payload }: { payload: PassPayload }) {
  if (payload.plate !== undefined) {
    return (
      <Line label={labelOf('car', 'license_plate')}>
        <PlateBadge className="sr-plate" plate={payload.plate} color={payload.plateColor} />
      </Line>
    );
  }
  return (
    <>
      <Line label={labelOf('person', 'visitor_name')}>{payload.name}</Line>
      <Line label={labelOf('person', 'visitor_idcard')}>{payload.idMasked}</Line>
    </>
  );
}

/** What the signature proves, readable with no network. */
export function SignedContent({ payload }: { payload: PassPayload }) {
  return (
    <section className="sr-card" aria-label="通行码内容">
      <h3 className="sr-card__title">
        通行码内容<span className="sr-card__sub">由园区签名证明</span>
      </h3>
      <Lines>
        <Line label={labelOf(payload.kind, 'application_number')}>{payload.number}</Line>
        {/* 类型, 有效期 and 签发时间 describe the pass itself (its kind, begin to end, issue time), no field of an application: literals. */}
        <Line label="类型">{appointmentKinds[payload.kind].noun}</Line>
        <PayloadHolder payload={payload} />
        <Line label="有效期">{range(payload.begin, payload.end)}</Line>
        <Line label="签发时间">{payload.issuedAt}</Line>
      </Lines>
    </section>
  );
}

function ListStatus({ lists }: { lists: LookupListEntry[] }) {
  if (!lists.length) {
    return (
      <Tag color="default" fill="outline" className="sr-tag">
        未列入黑白名单
      </Tag>
    );
  }
  return (
    <div className="sr-lists">
      {lists.map((e) => (
        <div key={e.id} className={`sr-list sr-list--${e.type === 1 ? 'black' : 'white'}`}>
          <b>{enumLabel('blackWhiteType', e.type)}</b>
          <span>{e.in_reason || '未填写原因'}</span>
          <small>{e.end_time ? `有效至 ${e.end_time.slice(0, 10)}` : '长期有效'}</small>
        </div>
      ))}
    </div>
  );
}

const SWATCH: Record<number, string> = { 1: '#ff3141', 2: '#faad14', 3: '#1677ff' };

function Flags({ flags }: { flags: LookupFlag[] }) {
  if (!flags.length) return <div className="sr-none">无标记</div>;
  return (
    <ul className="sr-flags">
      {flags.map((f) => (
        <li key={f.id} className="sr-flag">
          <div className="sr-flag__head">
            <i className="sr-flag__dot" style={{ background: SWATCH[f.color_id] ?? '#999' }} aria-hidden />
            <b>{enumLabel('markLabelType', f.label_type_id)}</b>
            <Tag color={f.alarm_id === 1 ? 'danger' : f.alarm_id === 2 ? 'warning' : 'default'} fill="outline" className="sr-tag">
              {enumLabel('markAlarmType', f.alarm_id)}
            </Tag>
            <span className="sr-flag__color">{enumLabel('markColor', f.color_id)}标记</span>
          </div>
          <div className="sr-flag__remark">{f.remark}</div>
          <div className="sr-flag__meta">
            {f.create_user_name ?? '未知'} · {f.create_time.slice(0, 16)}
          </div>
          {splitFileNames(f.photo).length > 0 && <ImageList value={f.photo} className="sr-flag__photos" />}
        </li>
      ))}
    </ul>
  );
}

/** A plain warning a patrol cannot miss: black-listed, or the application no longer approved. */
function Alerts({ data }: { data: PassLookup }) {
  const alerts: string[] = [];
  if (data.lists.some((e) => e.type === 1)) alerts.push(appointmentKinds[data.subject?.kind ?? 'car'].words.blackListed);
  const a = data.application;
  if (a && a.state !== AppState.APPROVED) alerts.push(`该预约当前为“${stateLabel[a.state] ?? a.state}”，通行码已不能作为入园凭证`);
  if (data.pass?.payload && !a) alerts.push('通行码对应的预约已被删除');
  if (data.flags.some((f) => f.alarm_id === 1)) alerts.push('该车辆有“禁止入园”标记');
  if (!alerts.length) return null;
  return (
    <div className="sr-alerts" role="alert">
      {alerts.map((t) => (
        <div key={t} className="sr-alert">
          <ExclamationCircleFill aria-hidden /> {t}
        </div>
      ))}
    </div>
  );
}

function ApplicationLines({ a }: { a: LookupApplication }) {
  return (
    <Lines>
      <Line label={labelOf(a.kind, 'application_number')}>{a.application_number}</Line>
      <Line label={labelOf(a.kind, 'state')}>
        <StateTag state={a.state} />
        {a.is_delayed === 1 && (
          <Tag color="primary" fill="outline" className="sr-tag">
            已延期
          </Tag>
        )}
      </Line>
      {/* 有效期 spans begin and end, the holder line joins name and ID, 被访 joins department and name: no single field, literals. */}
      <Line label="有效期">
        <span className="sr-range">{range(a.begin, a.end)}</span> <ValidityTag validity={a.validity} />
      </Line>
      <Line label={appointmentKinds[a.kind].words.whoLabel}>
        {a.name}
        <span className="sr-muted"> {a.idcard_masked}</span>
      </Line>
      {a.vehicle_type_name !== undefined && <Line label={labelOf(a.kind, 'vehicle_type_name')}>{a.vehicle_type_name}</Line>}
      <Line label={labelOf(a.kind, 'visitor_company')}>{a.visitor_company}</Line>
      <Line label="被访">{[a.interviewee_depart_name, a.interviewee_name].filter(Boolean).join(' · ')}</Line>
    </Lines>
  );
}

function OtherApplications({ list, current }: { list: LookupApplication[]; current: LookupApplication | null }) {
  const others = list.filter((a) => a.application_number !== current?.application_number);
  if (!others.length) return null;
  return (
    <details className="sr-others">
      <summary>其他预约 {others.length} 条</summary>
      <ul>
        {others.map((a) => (
          <li key={a.application_number}>
            <span>{a.application_number}</span>
            <StateTag state={a.state} />
            <span className="sr-muted">{range(a.begin, a.end)}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}

interface ParkProps {
  data: PassLookup;
  /** Offered for a vehicle with an application to attach the flag to. */
  onFlag?: (application: LookupApplication) => void;
}

/** What the park knows now, from the lookup. */
export function ParkRecord({ data, onFlag }: ParkProps) {
  const s = data.subject;
  if (!s) return null;
  const a = data.application;
  const k = appointmentKinds[s.kind];
  const flagTarget = k.flaggable ? (a ?? data.applications[0] ?? null) : null;
  return (
    <>
      <Alerts data={data} />
      <section className="sr-card" aria-label={`${k.words.subject}信息`}>
        <h3 className="sr-card__title">
          {k.words.subject}
          <span className="sr-card__sub">园区记录 · {data.checkedAt.slice(11, 16)} 查询</span>
        </h3>
        <div className="sr-subject">
          {'license_plate' in s ? (
            <PlateBadge className="sr-plate" plate={s.license_plate} color={a?.license_plate_color} />
          ) : (
            <span className="sr-subject__name">
              {s.name ?? '未知姓名'} <span className="sr-muted">{s.idcard_masked}</span>
            </span>
          )}
          <ListStatus lists={data.lists} />
        </div>
        {a ? <ApplicationLines a={a} /> : <div className="sr-none">{k.words.noApplication}</div>}
        <OtherApplications list={data.applications} current={a} />
      </section>
      {k.flaggable && (
        <section className="sr-card" aria-label="车辆标记">
          <h3 className="sr-card__title">
            车辆标记<span className="sr-card__count">{data.flags.length ? `${data.flags.length} 条` : ''}</span>
          </h3>
          <Flags flags={data.flags} />
          {onFlag && flagTarget && (
            <Button block color="warning" fill="outline" className="sr-flag-btn" onClick={() => onFlag(flagTarget)}>
              标记此车辆
            </Button>
          )}
          {onFlag && !flagTarget && <div className="sr-none">这辆车在园区没有预约记录，无法标记</div>}
        </section>
      )}
    </>
  );
}

/** The verdict line of a check, preferring the server's when it has answered (it holds the current key). */
export function verdictOf(local: PassCheck | null, lookup: LookupState): { status: PassStatus | 'no-key'; payload?: PassPayload } {
  if (lookup.status === 'done' && lookup.data.pass) return lookup.data.pass;
  return local ?? { status: 'no-key' };
}
