/**
 * Runs background work (the notification stream, the outbox engine, push and
 * pass-key refreshes) once the first screen has loaded and the main thread
 * has been idle, plus a short delay: on a slow phone every chunk parsed during
 * start-up delays the moment the screen answers a tap. Returns a cancel.
 */
export function afterFirstScreen(work: () => void, delayMs = 3000): () => void {
  let cancelled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let idle: number | undefined;
  const schedule = () => {
    if (cancelled) return;
    const later = () => {
      timer = setTimeout(() => !cancelled && work(), delayMs);
    };
    if ('requestIdleCallback' in window) idle = window.requestIdleCallback(later, { timeout: 2000 });
    else later();
  };
  if (document.readyState === 'complete') schedule();
  else window.addEventListener('load', schedule, { once: true });
  return () => {
    cancelled = true;
    window.removeEventListener('load', schedule);
    if (timer !== undefined) clearTimeout(timer);
    if (idle !== undefined && 'cancelIdleCallback' in window) window.cancelIdleCallback(idle);
  };
}
