import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Workbox } from 'workbox-window';
import '../styles/update-prompt.css';

const HOUR = 60 * 60_000;

/**
 * DESIGN.md §5: a new version is offered, never forced. The reload happens
 * only after the person accepts, so a half-filled form is never lost.
 */
export function startUpdateFlow(): void {
  const wb = new Workbox('/sw.js');
  let shown = false;
  wb.addEventListener('waiting', () => {
    if (shown) return;
    shown = true;
    showPrompt(() => {
      wb.addEventListener('controlling', () => window.location.reload());
      wb.messageSkipWaiting();
    });
  });
  void wb.register();
  // Long-lived installed PWAs rarely navigate, so look for updates now and then.
  setInterval(() => void wb.update(), HOUR);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') void wb.update();
  });
}

function showPrompt(onAccept: () => void) {
  const host = document.createElement('div');
  document.body.appendChild(host);
  const root = createRoot(host);
  const close = () => {
    root.unmount();
    host.remove();
  };
  root.render(<UpdatePrompt onAccept={onAccept} onLater={close} />);
}

function UpdatePrompt({ onAccept, onLater }: { onAccept: () => void; onLater: () => void }) {
  const [busy, setBusy] = useState(false);
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
