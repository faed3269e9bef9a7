import { useSearchParams } from 'react-router-dom';
import { ListScreen } from '../../list-screen';
import { carStrandedScreen } from './stranded-screens';
import { StrandedStatsScreen } from './stranded-stats';
import './stranded.css';

const TAB_PARAM = 'tab';
const STAT = 'stat';

/**
 * 车辆滞留告警 with its daily statistics (车辆滞留统计) as a second tab: the
 * spec gives the statistics no menu entry or code of their own, and they
 * need the alarm list's code, so they live where that code already leads.
 * The tab is in the address (?tab=stat), so a reload or a shared link keeps it.
 */
export default function StrandedCarPage() {
  const [params, setParams] = useSearchParams();
  const stat = params.get(TAB_PARAM) === STAT;
  const show = (next: boolean) =>
    setParams(
      (p) => {
        if (next) p.set(TAB_PARAM, STAT);
        else p.delete(TAB_PARAM);
        return p;
      },
      { replace: true },
    );
  return (
    <>
      <div className="sc-tabs" role="tablist" aria-label="车辆滞留">
        <button type="button" role="tab" aria-selected={!stat} className={stat ? '' : 'is-active'} onClick={() => show(false)}>
          滞留告警
        </button>
        <button type="button" role="tab" aria-selected={stat} className={stat ? 'is-active' : ''} onClick={() => show(true)}>
          滞留统计
        </button>
      </div>
      {/* Only the shown tab is mounted: the list reads the address's ?open= link on its own. */}
      {stat ? <StrandedStatsScreen /> : <ListScreen key="alarms" def={carStrandedScreen} />}
    </>
  );
}
