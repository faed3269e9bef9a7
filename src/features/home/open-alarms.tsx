import { useQuery } from '@tanstack/react-query';
import { ExclamationCircleOutline, RightOutline } from 'antd-mobile-icons';
import { Link } from 'react-router-dom';
import { recordLink } from '../../../domain/notifications';
import type { OpenAlarm } from '../../../domain/schemas/stranded';
import { shellCalls } from '../../../domain/shell-calls';
import { ALARM_LISTS, alarmListOf, alarmLists, strandedKinds } from '../../../domain/stranded-kinds';
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
const isDeviation = (a: OpenAlarm) => alarmLists[alarmListOf(a)].deviation;
const whatOf = (a: OpenAlarm) => (isDeviation(a) ? `${strandedKinds[a.kind].word}偏离路线` : a.is_black ? `黑名单${strandedKinds[a.kind].word}入园` : `${strandedKinds[a.kind].word}滞留超时`);
/** Where and when: a route deviation's first gate off the route, a black-listed entry's gate and time, an overstay's entry gate and alarm time. */
const metaOf = (a: OpenAlarm) =>
  isDeviation(a)
    ? `${a.crossings[0]?.gate ?? '未知闸口'} · 偏离 ${a.alarm_time.slice(5, 16)}${a.crossings.length > 1 ? ` · 共 ${a.crossings.length} 次` : ''}`
    : `${a.entry_gate_name ?? '未知闸口'} · ${a.is_black ? `入园 ${a.entry_time.slice(5, 16)}` : `告警 ${a.alarm_time.slice(5, 16)}`}`;

/** 待处理告警 (issue 24 item 4): the alarms nobody has handled, counted, newest first, before the menus; for whoever may list them. */
export function OpenAlarms() {
  const can = useCan();
  const mayList = can(strandedKinds.car.list) || can(strandedKinds.person.list);
  const { data } = useQuery({ ...openAlarmsQuery, enabled: mayList });
  if (!mayList || !data) return null;
  // The rest of the open alarms are on the alarm screens.
  const more = ALARM_LISTS.filter((list) => can(alarmLists[list].list)).map((list) => ({ to: alarmLists[list].screen, label: `全部${alarmLists[list].noun}` }));
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
            <Link key={a.id} to={recordLink(alarmLists[alarmListOf(a)].screen, a.id)} className="oa-row">
              <span className={`oa-icon${a.is_black ? ' oa-icon--black' : ''}`} aria-hidden>
                <ExclamationCircleOutline />
              </span>
              <span className="oa-main">
                <span className="oa-head">
                  <span className="oa-subject">{subjectOf(a)}</span>
                  <span className={`oa-kind${a.is_black ? ' oa-kind--black' : ''}`}>{whatOf(a)}</span>
                </span>
                <span className="oa-meta">{metaOf(a)}</span>
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
