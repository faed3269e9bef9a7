import { useSyncExternalStore } from 'react';
import type { ImportProgressEvent } from '../../domain/schemas/person-import';

/**
 * The live counters of person batch imports (StreamEvent.IMPORT), as the
 * notification stream hands them in (src/features/notifications/live.ts):
 * the import list shows "已导入 n / N" from them while a task runs, beyond
 * the spec's six backoff refreshes.
 */
const latest = new Map<number, ImportProgressEvent>();
const listeners = new Set<() => void>();

export function publishImportProgress(p: ImportProgressEvent): void {
  latest.set(p.id, p);
  listeners.forEach((l) => l());
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

/** The last counters the stream told for this task, if any. */
export function useImportProgress(id: number): ImportProgressEvent | undefined {
  return useSyncExternalStore(subscribe, () => latest.get(id));
}
