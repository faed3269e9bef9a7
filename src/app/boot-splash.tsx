import { useEffect } from 'react';

/**
 * The one loader of a start: the same splash index.html paints (styled there, so it needs no CSS chunk), kept by
 * every fallback until the first screen has committed with its data or its skeleton. A start that showed the
 * splash, then a bare spinner, then 加载中 read as three loads.
 */
export function BootSplash() {
  return (
    <div className="boot" role="status" aria-label="正在加载">
      <img src="/favicon.svg" alt="" />
      <h1>园区出入管理系统</h1>
      <p>人员与车辆预约 · 审批 · 通行管理</p>
      <i />
    </div>
  );
}

let firstScreenShown = false;

/** Whether a fallback is still part of the start, and so shows the splash rather than a screen's own loader. */
export const booting = () => !firstScreenShown;

/**
 * Placed beside the layouts' <Outlet /> inside their Suspense: its effect runs only once the whole boundary has
 * committed, lazy screen included, which is when the start is over and later navigations show their own loaders.
 */
export function FirstScreenShown() {
  useEffect(() => {
    firstScreenShown = true;
  }, []);
  return null;
}
