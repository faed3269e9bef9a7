/**
 * The board's live figures (dashboard, big screen, map board): every query
 * under this key is refetched when the notification stream says the figures
 * changed (StreamEvent.FIGURES: a crossing, a decision, an alarm, committed
 * on any server), besides its own 60 s poll (spec 002 §9). Features put
 * their figure queries under it; src/features/notifications/live.ts
 * invalidates it.
 */
export const figuresKey = ['figures'] as const;

/** The spec's refresh of every board panel (spec 002 §9), the fallback when the stream is down. */
export const FIGURES_POLL_MS = 60_000;

/** The running muster's board (docs/muster.md): the muster screen and the big screen's panel share it. */
export const musterCurrentKey = [...figuresKey, 'muster', 'current'] as const;
