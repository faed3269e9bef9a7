import { queryOptions, useQuery } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { enumLabel } from '../../../domain/enums';
import { alarmKindKeys, alarmKindTitles, bigScreenApi, type FeedItem, type GateTraffic } from '../../../domain/schemas/big-screen';
import { call } from '../../lib/http';
import { FIGURES_POLL_MS, figuresKey } from '../../lib/live-figures';
import { clockText } from './clock';
import { CANVAS_HEIGHT, useCanvasFit } from './fit';
import './big-screen.css';

/** Lines of the live feed on the canvas: what fits the panel; the server bounds it too. */
const FEED_LINES = 9;
/** Gates listed in the traffic table; more are summed in the tiles above it. */
const GATE_LINES = 10;

const alarmCountsQuery = queryOptions({
  queryKey: [...figuresKey, 'deviceAlarmCounts'],
  queryFn: () => call(bigScreenApi.deviceAlarmCounts),
  refetchInterval: FIGURES_POLL_MS,
});
const feedQuery = queryOptions({
  queryKey: [...figuresKey, 'liveFeed', FEED_LINES],
  queryFn: () => call(bigScreenApi.liveFeed, { size: FEED_LINES }),
  refetchInterval: FIGURES_POLL_MS,
});
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
 * spec, today's gate traffic and a live feed of stranded alarms and gate
 * refusals. It runs unattended for days: every list is bounded by the
 * server, queries replace their data in place, and every timer and listener
 * is removed on unmount (scripts/big-screen-soak.ts measures the heap).
 */
export default function BigScreenPage({ title, userName, onLogout }: BigScreenProps) {
  const fit = useCanvasFit();
  const alarms = useQuery(alarmCountsQuery);
  const feed = useQuery(feedQuery);
  const gates = useQuery(gateTrafficQuery);
  const updated = Math.max(alarms.dataUpdatedAt, feed.dataUpdatedAt, gates.dataUpdatedAt);
  const stale = [alarms, feed, gates].some((q) => q.isError);

  return (
    <div className="bs-viewport">
      <div
        className={`bs-canvas ${fit.width > 1920 ? 'is-wall' : ''}`}
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
        <div className="bs-body">
          <AlarmPanel counts={alarms.data} />
          <TrafficPanel gates={gates.data} />
          <FeedPanel items={feed.data} />
        </div>
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

function FeedPanel({ items }: { items: FeedItem[] | undefined }) {
  const today = clockText(Date.now()).slice(0, 10).replaceAll('/', '-');
  return (
    <Panel title="实时动态" className="bs-feed">
      {items && items.length === 0 && <p className="bs-empty">近 7 天没有滞留告警或拒绝通行</p>}
      <ol className="bs-feed-list" data-testid="live-feed">
        {(items ?? []).map((f) => (
          <li key={f.key} className={`bs-feed-item is-${f.source}`}>
            <span className="bs-feed-tag">{f.source === 'stranded' ? '滞留告警' : '拒绝通行'}</span>
            <span className="bs-feed-subject">{f.subject}</span>
            <span className="bs-feed-detail">{f.detail}</span>
            <time className="bs-feed-time">{feedTime(f.time, today)}</time>
          </li>
        ))}
      </ol>
    </Panel>
  );
}
