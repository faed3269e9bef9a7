import { session } from '../session';

/**
 * Whose outbox the current session may send. /user/info names the user, but
 * a drain must also run at start before it answers (or offline, when it never
 * does), so the pair user id + a tag of the token it came with is kept; a
 * token from another sign-in (this tab or another) no longer matches.
 */
const KEY = 'park.outboxOwner';

/** A non-secret tag of the token: enough to tell two sign-ins apart. */
export function tokenTag(token: string): string {
  let h = 0;
  for (let i = 0; i < token.length; i++) h = (Math.imul(h, 31) + token.charCodeAt(i)) | 0;
  return `${token.length}:${(h >>> 0).toString(36)}`;
}

export function bindOwner(userId: number): void {
  const token = session.token();
  if (!token) return;
  try {
    localStorage.setItem(KEY, JSON.stringify({ userId, tag: tokenTag(token) }));
  } catch {
    // a private window may refuse storage; the in-memory copy below still serves this tab
  }
  memory = { userId, tag: tokenTag(token) };
}

let memory: { userId: number; tag: string } | null = null;

export function currentOwner(): number | null {
  const token = session.token();
  if (!token) return null;
  let stored = memory;
  try {
    const raw = localStorage.getItem(KEY);
    if (raw) stored = JSON.parse(raw) as { userId: number; tag: string };
  } catch {
    // fall back to memory
  }
  return stored && stored.tag === tokenTag(token) && typeof stored.userId === 'number' ? stored.userId : null;
}
