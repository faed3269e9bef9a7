import type { ReactNode } from 'react';
import './errors.css';

/** Shared frame of the 403/404 pages: big status code, message, actions. */
export function StatusView({ code, title, lines, children, inline }: { code: string; title: string; lines: string[]; children?: ReactNode; inline?: boolean }) {
  return (
    <div className={inline ? 'status-view is-inline' : 'status-view'}>
      <div className="status-card">
        <div className="status-code" aria-hidden="true">
          {code}
        </div>
        <h1 className="status-title">{title}</h1>
        {lines.map((l) => (
          <p key={l} className="status-text">
            {l}
          </p>
        ))}
        <div className="status-actions">{children}</div>
      </div>
    </div>
  );
}
