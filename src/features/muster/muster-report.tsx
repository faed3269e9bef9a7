import { useQuery } from '@tanstack/react-query';
import { Button } from 'antd-mobile';
import { enumLabel } from '../../../domain/enums';
import { musterApi, musterSourceLabels } from '../../../domain/schemas/muster';
import { downloadFile } from '../../lib/download';
import { call } from '../../lib/http';

const eventWords = { start: '开始', mark: '标记', end: '结束' } as const;

/**
 * The report of one muster as a printable page: what was announced, the
 * timeline (start, each mark with who, where and when, end) and who was
 * still unaccounted at the end; 打印 prints this page alone (muster.css),
 * 导出 the same as an xlsx.
 */
export function MusterReport({ id, onBack }: { id: number; onBack: () => void }) {
  const report = useQuery({ queryKey: ['muster', 'report', id], queryFn: () => call(musterApi.report, { id }) });
  const r = report.data;
  if (report.error) {
    return (
      <div className="page mu" role="alert">
        <section className="card mu-card">
          报告加载失败：{report.error.message}
          <Button size="small" onClick={onBack}>
            返回
          </Button>
        </section>
      </div>
    );
  }
  if (!r) return <div className="page mu" aria-busy="true" />;
  const m = r.muster;
  const title = `${m.drill ? '应急演练' : '应急清点'}报告`;
  return (
    <div className="page mu mu-report" data-testid="muster-report">
      <div className="mu-actions mu-noprint">
        <Button size="small" onClick={onBack}>
          返回
        </Button>
        <Button size="small" onClick={() => window.print()}>
          打印
        </Button>
        <Button size="small" color="primary" onClick={() => void downloadFile({ method: 'get', path: musterApi.reportExport.path, params: { id }, fallbackName: `${title}.xlsx` })}>
          导出
        </Button>
      </div>
      <section className="card mu-card">
        <h2 className="mu-title">
          {title}
          {m.drill ? <span className="mu-tag is-drill">演练</span> : null}
        </h2>
        <dl className="mu-facts">
          <dt>范围</dt>
          <dd>{enumLabel('visitArea', m.visit_area)}</dd>
          <dt>通知内容</dt>
          <dd>{m.message}</dd>
          <dt>发起</dt>
          <dd>
            {m.started_by_name} {m.started_at}
          </dd>
          <dt>结束</dt>
          <dd>{m.ended_at ? `${m.ended_by_name ?? ''} ${m.ended_at}` : '进行中'}</dd>
          <dt>清点结果</dt>
          <dd data-testid="report-result">
            在园 {m.total}，已清点 {m.accounted}，未清点 {m.total - m.accounted}
          </dd>
        </dl>
      </section>
      <section className="card mu-card" aria-labelledby="mu-timeline-title">
        <h2 id="mu-timeline-title" className="mu-title">
          时间线
        </h2>
        <table className="mu-table">
          <thead>
            <tr>
              <th scope="col">时间</th>
              <th scope="col">事件</th>
              <th scope="col">操作人</th>
              <th scope="col">集合点</th>
              <th scope="col">说明</th>
            </tr>
          </thead>
          <tbody>
            {r.events.map((e) => (
              <tr key={e.id}>
                <td>{e.at}</td>
                <td>{eventWords[e.type]}</td>
                <td>{e.user_name}</td>
                <td>{e.place}</td>
                <td>{e.text}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section className="card mu-card" aria-labelledby="mu-open-title">
        <h2 id="mu-open-title" className="mu-title">
          {m.ended_at ? '结束时未清点' : '当前未清点'}（{r.unaccounted.length}）
        </h2>
        {r.unaccounted.length === 0 ? (
          <p className="mu-note">全部人员和车辆均已清点</p>
        ) : (
          <table className="mu-table" data-testid="report-unaccounted">
            <thead>
              <tr>
                <th scope="col">企业</th>
                <th scope="col">姓名/车牌</th>
                <th scope="col">证件号码</th>
                <th scope="col">手机号</th>
                <th scope="col">入园道闸</th>
                <th scope="col">来源</th>
              </tr>
            </thead>
            <tbody>
              {r.unaccounted.map((s) => (
                <tr key={s.id}>
                  <td>{s.enterprise}</td>
                  <td>{s.kind === 'car' ? s.subject : s.name}</td>
                  <td>{s.kind === 'person' ? s.subject : ''}</td>
                  <td>{s.phone}</td>
                  <td>{s.gate}</td>
                  <td>{musterSourceLabels[s.source]}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
