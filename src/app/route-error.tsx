import { isRouteErrorResponse, useRouteError } from 'react-router-dom';

/**
 * Last-resort boundary. The usual cause in a PWA is a chunk that no longer
 * exists after a deploy, which a reload fixes; the page stays free of UI
 * libraries so it renders even when their chunks are the ones missing.
 */
export function RouteError() {
  const error = useRouteError();
  const detail = isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : error instanceof Error ? error.message : '';
  return (
    <div className="boot-state">
      <div className="boot-state-title">页面加载失败</div>
      <div className="boot-state-text">可能是网络中断或系统刚刚更新，请刷新后重试。</div>
      {detail && <div className="boot-state-detail">{detail}</div>}
      <button type="button" className="boot-state-button" onClick={() => window.location.reload()}>
        刷新页面
      </button>
    </div>
  );
}
