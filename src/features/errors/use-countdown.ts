import { useEffect, useState } from 'react';

/** Seconds left, ticking once a second while `active`; `onDone` fires once at zero. */
export function useCountdown(seconds: number, active: boolean, onDone: () => void): number {
  const [left, setLeft] = useState(seconds);
  useEffect(() => {
    if (!active) return;
    if (left <= 0) {
      onDone();
      return;
    }
    const id = setTimeout(() => setLeft((s) => s - 1), 1000);
    return () => clearTimeout(id);
    // onDone is read at zero only; a new function identity each render must not restart the tick.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [left, active]);
  return left;
}

/** Spec 002 §9: the 403 and 404 pages return home after 5 seconds. */
export const RETURN_HOME_SECONDS = 5;
