import { useQueries, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type ComponentType } from 'react';
import type { QueueName } from '../../../../domain/appointments';
import type { Page } from '../../../../domain/envelope';
import { call } from '../../../lib/http';
import { useCan } from '../../../lib/me';
import { ListScreen } from '../../../list-screen';
import { canAmendKey, canAmendBody } from './can-amend';
import { queueOf } from './queue-of';
import { queueFields, queueScreen } from './queue-screen';
import type { TaskRow } from './task-row';
import './approval.css';

/**
 * The rows the list framework last loaded for a screen. The framework keeps
 * its query to itself; its cache key ['list', screenKey, params] is the one
 * place to learn that a page arrived, as the per-row amend check must.
 */
function useLoadedRows(screenKey: string): TaskRow[] {
  const qc = useQueryClient();
  const [rows, setRows] = useState<TaskRow[]>([]);
  useEffect(
    () =>
      qc.getQueryCache().subscribe((e) => {
        if (e.type !== 'updated' || e.action.type !== 'success') return;
        const [root, key] = e.query.queryKey as unknown[];
        if (root !== 'list' || key !== screenKey) return;
        const page = e.query.state.data as Page<TaskRow> | undefined;
        if (page) setRows(page.list);
      }),
    [qc, screenKey],
  );
  return rows;
}

/** One approval queue: the shared list screen described from the domain `queues` table. */
function QueuePage({ name }: { name: QueueName }) {
  const queue = queueOf(name);
  const can = useCan();
  const showDept = can(queue.showDept);
  const fields = useMemo(() => queueFields(queueOf(name), showDept), [name, showDept]);
  const rows = useLoadedRows(`approval.${name}`);

  // Spec 000 §4: after a list loads, ask per row whether its visit date may be amended; each answer is cached per row.
  const answers = useQueries({
    queries: rows.map((r) => ({
      queryKey: canAmendKey(queue.kind, r),
      queryFn: () => call(queue.kindCalls.canAmend, canAmendBody(queue.kind, r) as never),
      staleTime: 5 * 60_000,
      retry: false,
    })),
  });
  const amendIds = rows
    .filter((_, i) => answers[i]?.data === true)
    .map((r) => r.process_task_id)
    .join(',');

  const def = useMemo(() => {
    const ids = new Set(amendIds ? amendIds.split(',').map(Number) : []);
    return queueScreen(name, { fields, amendable: (r) => ids.has(r.process_task_id) });
  }, [name, fields, amendIds]);

  return <ListScreen def={def} />;
}

const pages = new Map<QueueName, ComponentType>();

/** The page component of a queue route (stable per queue, for the router's lazy import). */
export function queuePage(name: QueueName): ComponentType {
  let P = pages.get(name);
  if (!P) {
    P = function ApprovalQueuePage() {
      return <QueuePage key={name} name={name} />;
    };
    pages.set(name, P);
  }
  return P;
}
