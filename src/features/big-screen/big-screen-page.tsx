import { queryOptions, useQuery } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { enumLabel, enums, type EnumOption } from '../../../domain/enums';
import { alarmKindKeys, alarmKindTitles, bigScreenApi, type FeedItem, type GateTraffic, type OpenAlarms } from '../../../domain/schemas/big-screen';
import { strandedKinds } from '../../../domain/stranded-kinds';
import { call } from '../../lib/http';
import { FIGURES_POLL_MS, figuresKey, musterCurrentKey } from '../../lib/live-figures';
import { useCan } from '../../lib/me';
import { musterApi, type MusterCurrentAnswer, type MusterRow } from '../../../domain/schemas/muster';
import { clockText } from './clock';
import { CANVAS_HEIGHT, useCanvasFit } from './fit';
import './big-screen.css';

/** Refusals listed: what fits their panel (taller on the wall, where the device alarms take two columns); the server bounds it too. */
const FEED_LINES = 5;
const WALL_FEED_LINES = 7;
/** Open alarms listed in the 16:9 panel, shared between the kinds; the wall lists this many of each, side by side. */
const ALARM_LINES = 10;
/** Gates listed in the traffic table; more are summed in the tiles above it. */
const GATE_LINES = 10;

const alarmCountsQuery = queryOptions({
  queryKey: [...figuresKey, 'deviceAlarmCounts'],
  queryFn: () => call(bigScreenApi.deviceAlarmCounts),
  refetchInterval: FIGURES_POLL_MS,
});
const openAlarmsQuery = queryOptions({
  queryKey: [...figuresKey, 'openAlarms', ALARM_LINES],
  queryFn: () => call(bigScreenApi.openAlarms, { size: ALARM_LINES }),
  refetchInterval: FIGURES_POLL_MS,
});
const feedQuery = (lines: number) =>
  queryOptions({
    queryKey: [...figuresKey, 'liveFeed', lines],
    queryFn: () => call(bigScreenApi.liveFeed, { size: lines }),
    refetchInterval: FIGURES_POLL_MS,
  });
/** A running muster is polled faster than the figures: the wall is where the lead watches the count go down. */
const MUSTER_POLL_MS = 5_000;

const gateTrafficQuery = queryOptions({
  queryKey: [...figuresKey, 'gateTraffic'],
  queryFn: () => call(bigScreenApi.gateTraffic),
  refetchInterval: FIGURES_POLL_MS,
});

export interface BigScreenProps {
  title: string;
  userName: string;
  onLogout: () => void;
}

/**
 * 大屏 (spec 002 §2 "Big-screen page"): a dark 1920×1080 canvas (3840×1080
 * on a 32:9 wall) scaled whole into any window; the clock, the title, who is
 * signed in, the way back and out; today's device alarms per kind; beyond the
 * spec, the alarms nobody has handled (pinned, whatever comes after them),
 * today's gate traffic and the latest gate refusals. It runs unattended for
 * days: every list is bounded by the server, queries replace their data in
 * place, and every timer and listener is removed on unmount
 * (scripts/big-screen-soak.ts measures the heap).
 */
export default function BigScreenPage({ title, userName, onLogout }: BigScreenProps) {
  const fit = useCanvasFit();
  const wall = fit.width > 1920;
  const alarms = useQuery(alarmCountsQuery);
  const open = useQuery(openAlarmsQuery);
  const feed = useQuery(feedQuery(wall ? WALL_FEED_LINES : FEED_LINES));
  const gates = useQuery(gateTrafficQuery);
  const mayMuster = useCan()('menu:muster');
  const muster = useQuery({ queryKey: musterCurrentKey, queryFn: () => call(musterApi.current), enabled: mayMuster, refetchInterval: MUSTER_POLL_MS });
  const running = muster.data?.muster ? (muster.data as MusterCurrentAnswer & { muster: MusterRow }) : null;
  const queries = [alarms, open, feed, gates];
  const updated = Math.max(...queries.map((q) => q.dataUpdatedAt));
  const stale = queries.some((q) => q.isError);

  return (
    <div className="bs-viewport">
      <div
        className={`bs-canvas ${wall ? 'is-wall' : ''}`}
        data-testid="big-screen-canvas"
        style={{ width: fit.width, height: CANVAS_HEIGHT, transform: `translate(${fit.left}px, ${fit.top}px) scale(${fit.scale})` }}
      >
        <header className="bs-head">
          <Clock />
          <h1 className="bs-title">{title}</h1>
          <div className="bs-user">
            <span className="bs-user-name" data-testid="big-screen-user">
              {userName}
            </span>
            <Link to="/" className="bs-link">
              返回后台
            </Link>
            <button type="button" className="bs-logout" aria-label="退出登录" title="退出登录" onClick={onLogout}>
              <svg viewBox="0 0 24 24" width="34" height="34" aria-hidden="true">
                <path d="M12 3v9" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" fill="none" />
                <path d="M6.3 6.8a8 8 0 1 0 11.4 0" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" fill="none" />
              </svg>
            </button>
          </div>
        </header>
        {running ? (
          <MusterPanel board={running} />
        ) : (
          <div className="bs-body">
            <div className="bs-column">
              <AlarmPanel counts={alarms.data} />
              <FeedPanel items={feed.data} />
            </div>
            <TrafficPanel gates={gates.data} />
            <OpenAlarmPanel open={open.data} sideBySide={wall} />
          </div>
        )}
        <footer className="bs-foot">
          {updated > 0 && <span>更新于 {clockText(updated).slice(-8)}</span>}
          {stale && <span className="bs-stale">数据暂未更新，显示上次结果</span>}
        </footer>
      </div>
    </div>
  );
}

/** Its own state, so the second's tick re-renders the clock only. The next tick is timed to the next whole second. */
function Clock() {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout>;
    const tick = () => {
      const t = Date.now();
      setNow(t);
      timer = setTimeout(tick, 1000 - (t % 1000));
    };
    timer = setTimeout(tick, 1000 - (Date.now() % 1000));
    return () => clearTimeout(timer);
  }, []);
  return (
    <time className="bs-clock" data-testid="big-screen-clock">
      {clockText(now)}
    </time>
  );
}

function Panel({ title, className = '', children }: { title: string; className?: string; children: ReactNode }) {
  return (
    <section className={`bs-panel ${className}`}>
      <h2 className="bs-panel-title">{title}</h2>
      <div className="bs-panel-body">{children}</div>
    </section>
  );
}

function AlarmPanel({ counts }: { counts: Record<string, number> | undefined }) {
  const max = Math.max(1, ...alarmKindKeys.map((k) => counts?.[k] ?? 0));
  return (
    <Panel title="今日设备告警" className="bs-alarms">
      <div className="bs-total" data-testid="alarm-total">
        <span className="bs-total-num">{counts?.total ?? '—'}</span>
        <span className="bs-total-label">告警总数</span>
      </div>
      <ul className="bs-bars">
        {alarmKindKeys.map((k) => {
          const n = counts?.[k] ?? 0;
          return (
            <li key={k} data-kind={k}>
              <span className="bs-bar-name">{alarmKindTitles[k]}</span>
              <span className="bs-bar-track">
                <span className={`bs-bar-fill ${n > 0 ? 'is-on' : ''}`} style={{ width: `${(n / max) * 100}%` }} />
              </span>
              <span className={`bs-bar-num ${n > 0 ? 'is-on' : ''}`}>{counts ? n : '—'}</span>
            </li>
          );
        })}
      </ul>
    </Panel>
  );
}

function TrafficPanel({ gates }: { gates: GateTraffic[] | undefined }) {
  const sum = (key: 'carIn' | 'carOut' | 'personIn' | 'personOut') => (gates ? gates.reduce((n, g) => n + g[key], 0) : undefined);
  const tiles = [
    ['车辆入园', sum('carIn')],
    ['车辆出园', sum('carOut')],
    ['人员入园', sum('personIn')],
    ['人员出园', sum('personOut')],
  ] as const;
  const shown = gates?.slice(0, GATE_LINES) ?? [];
  return (
    <Panel title="今日进出" className="bs-traffic">
      <div className="bs-tiles">
        {tiles.map(([label, n]) => (
          <div key={label} className="bs-tile">
            <span className="bs-tile-num">{n ?? '—'}</span>
            <span className="bs-tile-label">{label}</span>
          </div>
        ))}
      </div>
      <table className="bs-table">
        <thead>
          <tr>
            <th>道闸</th>
            <th>入口归属</th>
            <th>状态</th>
            <th>车辆进</th>
            <th>车辆出</th>
            <th>人员进</th>
            <th>人员出</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((g) => (
            <tr key={g.id}>
              <td className="bs-cell-name">{g.name}</td>
              <td>{enumLabel('entranceType', g.entrances_type)}</td>
              <td className={g.state === 1 ? 'bs-online' : 'bs-offline'}>{g.state === 1 ? '在线' : '离线'}</td>
              <td>{g.carIn}</td>
              <td>{g.carOut}</td>
              <td>{g.personIn}</td>
              <td>{g.personOut}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {gates && gates.length > GATE_LINES && <p className="bs-more">另有 {gates.length - GATE_LINES} 个道闸，计入上方合计</p>}
    </Panel>
  );
}

const feedTime = (time: string, today: string) => (time.startsWith(today) ? time.slice(11) : time.slice(5, 16));
const parkToday = () => clockText(Date.now()).slice(0, 10).replaceAll('/', '-');

/** A level's option (label and colour) from the code table, so a level added there shows here as it is named. */
const levelOption = (level: number): EnumOption | undefined => (enums.strandedLevel as EnumOption[]).find((o) => o.value === level);

/**
 * How many lines each kind gets of `lines`: half each, and what one kind
 * does not fill goes to the other.
 */
function shareLines(totals: readonly number[], lines: number): number[] {
  const shown = totals.map(() => 0);
  let left = lines;
  // Round-robin, one line at a time, to the kinds that have more to show.
  while (left > 0 && totals.some((t, i) => shown[i]! < t)) {
    for (let i = 0; i < totals.length && left > 0; i++) {
      if (shown[i]! < totals[i]!) {
        shown[i]!++;
        left--;
      }
    }
  }
  return shown;
}

/**
 * 未处理告警: every stranded alarm (of any level) nobody has handled, pinned
 * until someone does, newest first within each kind; the figure is red while
 * any is open. Refusals have their own panel, so no run of them pushes an
 * alarm off the screen.
 */
function OpenAlarmPanel({ open, sideBySide }: { open: OpenAlarms | undefined; sideBySide: boolean }) {
  const today = parkToday();
  const kinds = open?.kinds ?? [];
  const shown = sideBySide
    ? kinds.map((k) => Math.min(k.list.length, ALARM_LINES))
    : shareLines(
        kinds.map((k) => k.list.length),
        ALARM_LINES,
      );
  const total = open?.total;
  return (
    <section className={`bs-panel bs-open ${total ? 'has-open' : ''}`} data-testid="open-alarms">
      <h2 className="bs-panel-title bs-open-title">
        <span>未处理告警</span>
        <span className={`bs-open-total ${total ? 'is-alert' : total === 0 ? 'is-clear' : ''}`} data-testid="open-alarm-total">
          {total ?? '—'}
        </span>
      </h2>
      <div className={`bs-panel-body bs-open-body ${sideBySide ? 'is-side-by-side' : ''}`}>
        {total === 0 && <p className="bs-open-clear">当前没有未处理的告警</p>}
        {kinds.map((k, i) =>
          k.total === 0 && !sideBySide ? null : (
            <div key={k.kind} className="bs-open-group" data-kind={k.kind}>
              <h3 className="bs-open-kind">
                {strandedKinds[k.kind].word}告警 <b>{k.total}</b>
              </h3>
              <ol className="bs-open-list">
                {k.list.slice(0, shown[i]).map((a) => {
                  const level = levelOption(a.level_type);
                  return (
                    <li key={a.id} className={`bs-open-item is-${level?.color ?? 'default'}`} data-alarm-id={a.id}>
                      <span className="bs-open-level">{level?.label ?? enumLabel('strandedLevel', a.level_type)}</span>
                      <span className="bs-open-subject">{a.subject}</span>
                      <time className="bs-open-time">{feedTime(a.alarm_time, today)}</time>
                    </li>
                  );
                })}
              </ol>
              {k.total > (shown[i] ?? 0) && <p className="bs-more">另有 {k.total - (shown[i] ?? 0)} 条未显示</p>}
            </div>
          ),
        )}
      </div>
    </section>
  );
}

/** 拒绝通行: the latest refusals at the gates, newest first; they roll, the alarms above stay. */
function FeedPanel({ items }: { items: FeedItem[] | undefined }) {
  const today = parkToday();
  return (
    <Panel title="拒绝通行" className="bs-feed">
      {items && items.length === 0 && <p className="bs-empty">近 7 天没有拒绝通行</p>}
      <ol className="bs-feed-list" data-testid="live-feed">
        {(items ?? []).map((f) => (
          <li key={f.key} className="bs-feed-item">
            <span className="bs-feed-tag">{f.kind === 'person' ? '人员' : '车辆'}</span>
            <span className="bs-feed-subject">{f.subject}</span>
            <span className="bs-feed-detail">{f.detail}</span>
            <time className="bs-feed-time">{feedTime(f.time, today)}</time>
          </li>
        ))}
      </ol>
    </Panel>
  );
}

/** Enterprises listed on the muster panel, most unaccounted first; the rest are summed below. */
const MUSTER_LINES = 12;

/**
 * While a muster runs it takes over the screen (docs/muster.md): how many are
 * inside, accounted and unaccounted, and the enterprises with the most still
 * unaccounted.
 */
function MusterPanel({ board }: { board: MusterCurrentAnswer & { muster: MusterRow } }) {
  const m = board.muster;
  const open = m.total - m.accounted;
  const groups = board.groups.slice(0, MUSTER_LINES);
  return (
    <section className={`bs-panel bs-muster ${m.drill ? 'is-drill' : ''}`} data-testid="big-screen-muster">
      <h2 className="bs-panel-title bs-muster-title">
        {m.drill ? '应急演练进行中' : '应急清点进行中'} · {enumLabel('visitArea', m.visit_area)}
        <span className="bs-muster-since">发起于 {m.started_at.slice(11)}</span>
      </h2>
      <p className="bs-muster-message">{m.message}</p>
      <div className="bs-muster-figures">
        <div>
          <span>在园</span>
          <b>{m.total}</b>
        </div>
        <div className="is-ok">
          <span>已清点</span>
          <b data-testid="big-screen-muster-accounted">{m.accounted}</b>
        </div>
        <div className={open ? 'is-alert' : ''}>
          <span>未清点</span>
          <b data-testid="big-screen-muster-open">{open}</b>
        </div>
      </div>
      <ol className="bs-muster-groups">
        {groups.map((g) => {
          const total = g.persons + g.vehicles;
          const done = g.persons_accounted + g.vehicles_accounted;
          return (
            <li key={g.enterprise} className={done < total ? 'is-open' : ''}>
              <span className="bs-muster-name">{g.enterprise}</span>
              <span className="bs-muster-count">
                {done}/{total}
              </span>
              <span className="bs-muster-bar">
                <span style={{ width: `${total ? Math.round((done / total) * 100) : 100}%` }} />
              </span>
            </li>
          );
        })}
      </ol>
      {board.groups.length > MUSTER_LINES && <p className="bs-more">另有 {board.groups.length - MUSTER_LINES} 家企业未显示</p>}
    </section>
  );
}
