import type { QueryClient } from '@tanstack/react-query';
import { outboxStore } from '../lib/outbox/store';

/** Queries whose answers a sent action can change: lists and queues, details, process views, the home counts. */
const CHANGED_BY_ACTIONS = new Set(['list', 'detail', 'appointment', 'approval', 'process-info', 'home']);

/**
 * An action the outbox sends later (a flag or a decision made offline) must
 * show on the screen that is open when it lands, not at the next 60 s refresh:
 * each time an item becomes done, the queries it may have changed are
 * invalidated (only those on screen refetch). Returns the unsubscribe.
 */
export function refreshWhenOutboxSends(client: QueryClient): () => void {
  let done: Set<string> | null = null;
  return outboxStore.subscribe(() => {
    const s = outboxStore.get();
    if (!s.ready) return;
    const now = new Set(s.recent.map((i) => i.id));
    // The first snapshot is what was already sent before this page: nothing new landed.
    const landed = done !== null && [...now].some((id) => !done!.has(id));
    done = now;
    if (landed) void client.invalidateQueries({ predicate: (q) => CHANGED_BY_ACTIONS.has(q.queryKey[0] as string) });
  });
}
