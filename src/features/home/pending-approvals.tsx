import { useQuery } from '@tanstack/react-query';
import { CheckShieldOutline, RightOutline } from 'antd-mobile-icons';
import { useMemo } from 'react';
import { Link } from 'react-router-dom';
import { approvalQueues, listableApprovalQueues } from '../../../domain/approval-queues';
import type { PendingQueue } from '../../../domain/schemas/approval-task';
import { shellCalls } from '../../../domain/shell-calls';
import { call } from '../../lib/http';
import { useMe } from '../../lib/me';
import './pending-approvals.css';

export type { PendingQueue };

const pendingQuery = {
  queryKey: ['home', 'approval-pending'],
  queryFn: () => call(shellCalls.pendingApprovals, {}),
  // An approver comes back to the home screen to see what is left: ask again on every visit and on focus.
  staleTime: 0,
  refetchOnMount: 'always' as const,
  refetchOnWindowFocus: 'always' as const,
};

/** 待我审批: a row per approval queue with its pending count; hidden for people who approve nothing. */
export function PendingApprovals() {
  const { data } = useQuery(pendingQuery);
  const permissions = useMe().data?.permissions;
  // Until the counts come, the rows the person will see are drawn from their permissions (the server's own rule),
  // so the section does not appear later and push the rest of the home screen down.
  const expected = useMemo(
    () => listableApprovalQueues(new Set(permissions ?? [])).map((q): PendingQueue => ({ queue: q, title: approvalQueues[q].title, route: approvalQueues[q].route, count: 0, overdue: 0 })),
    [permissions],
  );
  const loading = !data;
  const list = data?.list ?? expected;
  if (list.length === 0) return null;
  const total = list.reduce((n, q) => n + q.count, 0);
  const overdue = list.reduce((n, q) => n + q.overdue, 0);
  // What waits for the approver comes first; otherwise the queues keep the menu's order.
  const rows = [...list.filter((q) => q.count > 0), ...list.filter((q) => q.count === 0)];
  return (
    <section className="pa" aria-label="待我审批">
      <h3 className="section-title pa-title">
        待我审批
        <span className={`pa-total${total ? '' : ' pa-total--zero'}`}>{loading ? '' : total ? `共 ${total} 件待办${overdue ? `，${overdue} 件已超时` : ''}` : '暂无待办'}</span>
      </h3>
      <div className="card pa-card">
        {rows.map((q) => (
          <Link
            key={q.queue}
            to={q.route}
            className={`pa-row${q.count || loading ? '' : ' pa-row--idle'}`}
            aria-label={loading ? q.title : `${q.title}，${q.count} 件待审批${q.overdue ? `，其中 ${q.overdue} 件已超时` : ''}`}
          >
            <span className="pa-icon" aria-hidden>
              <CheckShieldOutline />
            </span>
            <span className="pa-name">{q.title}</span>
            {!loading && q.overdue > 0 && (
              <span className="pa-overdue" aria-hidden>
                超时 {q.overdue}
              </span>
            )}
            {loading ? <span className="pa-count pa-count--loading" aria-hidden /> : <span className={`pa-count${q.count ? '' : ' pa-count--zero'}`}>{q.count > 99 ? '99+' : q.count}</span>}
            <RightOutline className="pa-arrow" />
          </Link>
        ))}
      </div>
    </section>
  );
}
