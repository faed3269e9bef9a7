import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Workbox } from 'workbox-window';
import '../styles/update-prompt.css';

const HOUR = 60 * 60_000;
/** A new worker normally takes over within a second of 立即更新; past this the page reloads itself (see below). */
const TAKEOVER_WAIT_MS = 3000;
/** Reloads one acceptance may cost before the page stops trying and leaves the update to the next start. */
const MAX_TAKEOVER_RELOADS = 3;
/** Per tab: the person accepted the update and the reloads it took so far. */
const ACCEPTED_KEY = 'park.update.accepted';

const storedReloads = (): number | null => {
  try {
    const v = sessionStorage.getItem(ACCEPTED_KEY);
    return v === null ? null : Number(v) || 0;
  } catch {
    return null;
  }
};
const storeReloads = (n: number | null) => {
  try {
    if (n === null) sessionStorage.removeItem(ACCEPTED_KEY);
    else sessionStorage.setItem(ACCEPTED_KEY, String(n));
  } catch {
    // storage refused (private window): the fallback reload then simply asks again
  }
};

/**
 * DESIGN.md §5: a new version is offered, never forced. The page reloads only
 * after the person accepts, so a half-filled form is never lost.
 *
 * Accepting tells the waiting worker to skipWaiting; the browser then stops
 * the old worker as soon as it is idle and activates the new one, whose
 * clientsClaim fires controllerchange here, and the page reloads. Chromium
 * forgets that "stop as soon as idle" if a request from this page restarts
 * the old worker while it is stopping (StartWorkerInternal resets the flag);
 * the new worker then waits for the old one's ordinary idle timeout, or for
 * ever while DevTools is attached. A navigation asks again, so after a short
 * wait the page reloads itself once the person has accepted, keeps that
 * acceptance for the tab, and the reloaded page finishes the switch without
 * asking (at most MAX_TAKEOVER_RELOADS times).
 */
export function startUpdateFlow(): void {
  const wb = new Workbox('/sw.js');
  const resumed = storedReloads();
  let shown = false;
  let takingOver = false;
  const activateWaiting = () => void navigator.serviceWorker.getRegistration().then((r) => r?.waiting?.postMessage({ type: 'SKIP_WAITING' }));

  const takeOver = (reloads: number) => {
    // Whatever worker waits now, or starts waiting later (a newer build found meanwhile), is told to take over.
    activateWaiting();
    if (takingOver) return;
    takingOver = true;
    storeReloads(reloads);
    navigator.serviceWorker.addEventListener(
      'controllerchange',
      () => {
        storeReloads(null);
        window.location.reload();
      },
      { once: true },
    );
    setTimeout(() => {
      if (reloads >= MAX_TAKEOVER_RELOADS) return storeReloads(null);
      storeReloads(reloads + 1);
      window.location.reload();
    }, TAKEOVER_WAIT_MS);
  };

  wb.addEventListener('waiting', () => {
    if (takingOver) return activateWaiting();
    if (resumed !== null) {
      showPrompt(() => undefined, true);
      return takeOver(resumed);
    }
    if (shown) return;
    shown = true;
    showPrompt(() => takeOver(0), false);
  });
  void wb.register().then((registration) => {
    // Accepted earlier in this tab and nothing waits any more: the switch is done.
    if (resumed !== null && !registration?.waiting && !registration?.installing) storeReloads(null);
  });
  // Long-lived installed PWAs rarely navigate, so look for updates now and then.
  setInterval(() => void wb.update(), HOUR);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') void wb.update();
  });
}

function showPrompt(onAccept: () => void, updating: boolean) {
  const host = document.createElement('div');
  document.body.appendChild(host);
  const root = createRoot(host);
  const close = () => {
    root.unmount();
    host.remove();
  };
  root.render(<UpdatePrompt onAccept={onAccept} onLater={close} updating={updating} />);
}

function UpdatePrompt({ onAccept, onLater, updating }: { onAccept: () => void; onLater: () => void; updating: boolean }) {
  const [busy, setBusy] = useState(updating);
  return (
    <div className="update-prompt" role="status" aria-live="polite">
      <div className="update-prompt-text">
        <strong>发现新版本</strong>
        <span>更新后页面将刷新，请先保存正在填写的内容。</span>
      </div>
      <div className="update-prompt-actions">
        <button type="button" className="update-prompt-later" onClick={onLater} disabled={busy}>
          稍后
        </button>
        <button
          type="button"
          className="update-prompt-accept"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            onAccept();
          }}
        >
          {busy ? '更新中…' : '立即更新'}
        </button>
      </div>
    </div>
  );
}
