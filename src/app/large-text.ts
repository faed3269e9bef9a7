/**
 * 大字模式 (个人中心): larger text and targets on this device (MIIT 适老化), kept in localStorage and set on <html>
 * by the entry before React's first render, so no screen is ever painted at the ordinary size first. global.css
 * scales every font size and target from the class.
 */
const KEY = 'park.largeText';
const CLASS = 'large-text';

/** Whether this device asked for large text; a browser that refuses storage reads as no. */
export function largeTextOn(): boolean {
  try {
    return localStorage.getItem(KEY) === '1';
  } catch {
    return false;
  }
}

/** Sets the page to the stored choice (or `on`). */
export function applyLargeText(on: boolean = largeTextOn()): void {
  document.documentElement.classList.toggle(CLASS, on);
}

/** Turns large text on or off on this device, at once and for later visits. */
export function setLargeText(on: boolean): void {
  try {
    if (on) localStorage.setItem(KEY, '1');
    else localStorage.removeItem(KEY);
  } catch {
    // a private window may refuse storage: the choice still holds for this visit
  }
  applyLargeText(on);
}
