import { queryOptions, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { Link } from 'react-router-dom';
import { enumLabel } from '../../../domain/enums';
import { bigScreenApi, type GateTraffic } from '../../../domain/schemas/big-screen';
import { ParkMap, ParkMarker } from '../../components/park-map/park-map';
import { mapTilesQuery } from '../../components/park-map/tiles';
import { call } from '../../lib/http';
import { FIGURES_POLL_MS, figuresKey } from '../../lib/live-figures';
import './map-board.css';

/** Today's traffic per gate: refetched when the stream says a crossing committed, and every 60 s besides. */
const gateTrafficQuery = queryOptions({
  queryKey: [...figuresKey, 'gateTraffic'],
  queryFn: () => call(bigScreenApi.gateTraffic),
  refetchInterval: FIGURES_POLL_MS,
});

type Placed = GateTraffic & { latitude: number; longitude: number };
const isPlaced = (g: GateTraffic): g is Placed => g.latitude !== null && g.longitude !== null;

/** About 150 m around the park: closer than that, two gates' names would overlap at the zoom that shows the park. */
const NEAR_DEGREES = 0.0015;
/** Each gate's name goes on the side away from its nearest close neighbour (a gate's car lane and its footway stand metres apart). */
function labelSides(gates: Placed[]): Map<number, 'left' | 'right'> {
  const sides = new Map<number, 'left' | 'right'>();
  for (const g of gates) {
    let nearest: Placed | undefined;
    let best = NEAR_DEGREES;
    for (const o of gates) {
      const d = Math.hypot(o.latitude - g.latitude, o.longitude - g.longitude);
      if (o !== g && d < best) [nearest, best] = [o, d];
    }
    sides.set(g.id, nearest && (nearest.longitude > g.longitude || (nearest.longitude === g.longitude && nearest.id > g.id)) ? 'left' : 'right');
  }
  return sides;
}

/**
 * 地图看板 (spec 002 §2 "Map board"): every gate of the equipment register
 * at its coordinates, its popup today's car and person entries and exits,
 * kept live by the notification stream (issue 26 item 6).
 */
export default function MapBoardPage({ title }: { title: string }) {
  const gates = useQuery(gateTrafficQuery);
  const tiles = useQuery(mapTilesQuery);
  const list = gates.data;
  const placed = useMemo(() => (list ?? []).filter(isPlaced), [list]);
  const unplaced = useMemo(() => (list ?? []).filter((g) => !isPlaced(g)), [list]);
  const sides = useMemo(() => labelSides(placed), [placed]);
  const sum = (key: 'carIn' | 'carOut' | 'personIn' | 'personOut') => (list ?? []).reduce((n, g) => n + g[key], 0);
  // The map is made once the tile settings are known (or known unreachable): its centre and system follow from them.
  const tilesKnown = !tiles.isPending;

  return (
    <div className="mb-page">
      <header className="mb-head">
        <Link to="/" className="mb-back">
          ‹ 返回后台
        </Link>
        <h1 className="mb-title">{title}</h1>
        <dl className="mb-totals" aria-label="今日合计">
          <div>
            <dt>车辆进/出</dt>
            <dd>
              {sum('carIn')}/{sum('carOut')}
            </dd>
          </div>
          <div>
            <dt>人员进/出</dt>
            <dd>
              {sum('personIn')}/{sum('personOut')}
            </dd>
          </div>
        </dl>
      </header>
      <main className="mb-map" data-testid="map-board">
        {tilesKnown && (
          <ParkMap tiles={tiles.data ?? null}>
            {placed.map((g) => (
              <ParkMarker key={g.id} position={[g.latitude, g.longitude]} label={g.name} tone={g.state === 1 ? 'normal' : 'muted'} labelSide={sides.get(g.id)}>
                <GatePopup gate={g} />
              </ParkMarker>
            ))}
          </ParkMap>
        )}
        {gates.isError && !list && <p className="mb-note is-error">道闸数据加载失败，稍后自动重试</p>}
        {unplaced.length > 0 && <p className="mb-note">未标注位置：{unplaced.map((g) => g.name).join('、')}</p>}
      </main>
    </div>
  );
}

function GatePopup({ gate }: { gate: GateTraffic }) {
  return (
    <div className="mb-popup" data-testid="gate-popup">
      <strong>{gate.name}</strong>
      <span className="mb-popup-sub">
        {enumLabel('entranceType', gate.entrances_type)} · {gate.state === 1 ? '在线' : '离线'}
      </span>
      <table>
        <thead>
          <tr>
            <th>今日</th>
            <th>进</th>
            <th>出</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th>车辆</th>
            <td>{gate.carIn}</td>
            <td>{gate.carOut}</td>
          </tr>
          <tr>
            <th>人员</th>
            <td>{gate.personIn}</td>
            <td>{gate.personOut}</td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}
