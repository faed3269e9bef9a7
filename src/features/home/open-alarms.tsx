import { useQuery } from '@tanstack/react-query';
import { ExclamationCircleOutline, RightOutline } from 'antd-mobile-icons';
import { Link } from 'react-router-dom';
import { recordLink } from '../../../domain/notifications';
import type { OpenAlarm } from '../../../domain/schemas/stranded';
import { shellCalls } from '../../../domain/shell-calls';
import { STRANDED_KINDS, strandedKinds } from '../../../domain/stranded-kinds';
import { call } from '../../lib/http';
import { useCan } from '../../lib/me';
import './open-alarms.css';

const openAlarmsQuery = {
  queryKey: ['home', 'open-alarms'],
  queryFn: () => call(shellCalls.openAlarms, {}),
  // Alarms are why a lead opens the app: ask again on every visit and on focus.
  staleTime: 0,
  refetchOnMount: 'always' as const,
  refetchOnWindowFocus: 'always' as const,
};

const subjectOf = (a: OpenAlarm) => strandedKinds[a.kind].subject(a);
const whatOf = (a: OpenAlarm) => (a.is_black ? `黑名单${strandedKinds[a.kind].word}入园` : `${strandedKinds[a.kind].word}滞留超时`);

/** 待处理告警 (issue 24 item 4): the alarms nobody has handled, counted, newest first, before the menus; for whoever may list them. */
export function OpenAlarms() {
  const can = useCan();
  const mayList = can(strandedKinds.car.list) || can(strandedKinds.person.list);
  const { data } = useQuery({ ...openAlarmsQuery, enabled: mayList });
  if (!mayList || !data) return null;
  // The rest of the open alarms are on the two alarm screens.
  const more = [...STRANDED_KINDS.filter((kind) => can(strandedKinds[kind].list)).map((kind) => ({ to: strandedKinds[kind].screen, label: `全部${strandedKinds[kind].noun}` }))];
  return (
    <section className="oa" aria-label="待处理告警" data-testid="open-alarms">
      <h3 className="section-title oa-title">
        待处理告警
        <span className={`oa-total${data.total ? '' : ' oa-total--zero'}`} data-testid="open-alarms-total">
          {data.total ? `共 ${data.total} 条` : '暂无待处理告警'}
        </span>
      </h3>
      {data.total > 0 && (
        <div className="card oa-card">
          {data.list.map((a) => (
            <Link key={a.id} to={recordLink(strandedKinds[a.kind].screen, a.id)} className="oa-row" aria-label={`${whatOf(a)}，${subjectOf(a)}`}>
              <span className={`oa-icon${a.is_black ? ' oa-icon--black' : ''}`} aria-hidden>
                <ExclamationCircleOutline />
              </span>
              <span className="oa-main">
                <span className="oa-head">
                  <span className="oa-subject">{subjectOf(a)}</span>
                  <span className={`oa-kind${a.is_black ? ' oa-kind--black' : ''}`}>{whatOf(a)}</span>
                </span>
                <span className="oa-meta">
                  {a.entry_gate_name ?? '未知闸口'} · {a.is_black ? `入园 ${a.entry_time.slice(5, 16)}` : `告警 ${a.alarm_time.slice(5, 16)}`}
                </span>
              </span>
              <RightOutline className="oa-arrow" />
            </Link>
          ))}
          {data.total > data.list.length && (
            <div className="oa-more">
              {more.map((m) => (
                <Link key={m.to} to={m.to}>
                  {m.label} <RightOutline />
                </Link>
              ))}
            </div>
          )}
        </div>
      )}
    </section>
  );
}
