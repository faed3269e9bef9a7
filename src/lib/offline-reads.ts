/**
 * Which answers came from the service worker's offline copy (sw/sw.ts marks
 * them with X-Offline-From), remembered on the answer object itself, so the
 * shell can tell whether what is on screen (the data of the queries being
 * watched) is a copy and from when (DESIGN.md §5). Background preloads that
 * no screen shows never raise the banner.
 */
const stamps = new WeakMap<object, number>();

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null;

/** Called by the API client with each unwrapped answer and the header's value. */
export function stampOfflineAnswer<T>(data: T, offlineFrom: string | null | undefined): T {
  const at = offlineFrom ? Date.parse(offlineFrom) : NaN;
  if (isObject(data) && Number.isFinite(at)) stamps.set(data, at);
  return data;
}

/** When the answer was fetched, if it came from the offline copy; undefined for a fresh answer. */
export function offlineStamp(data: unknown): number | undefined {
  return isObject(data) ? stamps.get(data) : undefined;
}

/** Gives `data` the provenance of another answer (see shareKeepingStamp in src/app/query-client.ts). */
export function copyOfflineStamp(from: unknown, to: unknown): void {
  if (!isObject(to)) return;
  const at = offlineStamp(from);
  if (at === undefined) stamps.delete(to);
  else stamps.set(to, at);
}
