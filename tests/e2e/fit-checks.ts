import type { Locator, Page } from '@playwright/test';

/**
 * What a person sees cut, measured in the page: filter fields narrower than
 * the value they hold, table cells cut with an ellipsis, labels broken over
 * two lines. Each answers a list of readable findings, empty when all is whole.
 */

/**
 * Every visible field of the page's filter forms (role search) narrower than what it shows: a text field's value
 * (its placeholder when empty) measured in its own font against its inner width, a select's chosen option, and
 * the drawn values of pickers and choice chips, which must not scroll or be cut.
 */
export function narrowFilterFields(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const pen = document.createElement('canvas').getContext('2d')!;
    const shown = (el: Element) => {
      const r = el.getBoundingClientRect();
      const cs = getComputedStyle(el);
      return cs.display !== 'none' && cs.visibility !== 'hidden' && (r.width > 0 || r.height > 0 || el instanceof HTMLInputElement);
    };
    const inner = (el: HTMLElement) => {
      const cs = getComputedStyle(el);
      return el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    };
    const textWidth = (el: Element, text: string) => {
      const cs = getComputedStyle(el);
      pen.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
      return pen.measureText(text).width;
    };
    const nameOf = (el: Element) => el.getAttribute('aria-label') || el.closest('label, .ff-item, .rp-filter')?.querySelector('.ff-label, .rp-label')?.textContent || el.className;
    const found: string[] = [];
    for (const form of document.querySelectorAll('form[role=search]')) {
      for (const el of form.querySelectorAll<HTMLInputElement>('input')) {
        if (!['text', 'search', 'number', 'tel', ''].includes(el.type) || !shown(el)) continue;
        const text = el.value || el.placeholder;
        const needs = textWidth(el, text);
        if (text && needs > inner(el) + 0.5) found.push(`${nameOf(el)}: “${text}” needs ${Math.ceil(needs)} px, has ${inner(el)}`);
      }
      for (const el of form.querySelectorAll<HTMLSelectElement>('select')) {
        if (!shown(el)) continue;
        const text = el.selectedOptions[0]?.text ?? '';
        const needs = textWidth(el, text);
        if (needs > inner(el) + 0.5) found.push(`${nameOf(el)}: “${text}” needs ${Math.ceil(needs)} px, has ${inner(el)}`);
      }
      for (const el of form.querySelectorAll<HTMLElement>('.pf-trigger__text, .adm-selector-item')) {
        if (shown(el) && el.scrollWidth > el.clientWidth) found.push(`${nameOf(el)}: “${el.textContent}” needs ${el.scrollWidth} px, has ${el.clientWidth}`);
      }
    }
    return found;
  });
}

/** Cells (and headers) of the desktop table cut short, the table's own sideways scroll, and the page's. */
export function cutTableCells(table: Locator): Promise<string[]> {
  return table.evaluate((t) => {
    const found: string[] = [];
    const heads = [...t.querySelectorAll('thead th')].map((th) => th.textContent?.trim() ?? '');
    for (const th of t.querySelectorAll<HTMLElement>('thead th')) if (th.scrollWidth > th.clientWidth) found.push(`header “${th.textContent}” cut (${th.scrollWidth} > ${th.clientWidth})`);
    for (const tr of t.querySelectorAll('tbody tr:not(.dtb-placeholder)')) {
      [...tr.querySelectorAll<HTMLElement>('td')].forEach((td, i) => {
        if (td.scrollWidth > td.clientWidth) found.push(`${heads[i]}: “${td.textContent?.trim()}” cut (${td.scrollWidth} > ${td.clientWidth})`);
      });
    }
    const box = t.closest('.dtb-scroll');
    if (box && box.scrollWidth > box.clientWidth) found.push(`the table scrolls sideways (${box.scrollWidth} > ${box.clientWidth})`);
    const doc = document.scrollingElement!;
    if (doc.scrollWidth > doc.clientWidth) found.push(`the page scrolls sideways (${doc.scrollWidth} > ${doc.clientWidth})`);
    return found;
  });
}

/** The labels among `items` whose text runs over more than one line. */
export function brokenLabels(items: Locator): Promise<string[]> {
  return items.evaluateAll((els) =>
    els.flatMap((el) => {
      const tops = new Set<number>();
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        if (!n.textContent?.trim()) continue;
        const range = document.createRange();
        range.selectNodeContents(n);
        for (const r of range.getClientRects()) if (r.width > 0) tops.add(Math.round(r.top / 4));
      }
      return tops.size > 1 ? [`“${el.textContent?.trim()}” runs over ${tops.size} lines`] : [];
    }),
  );
}

/** Opens another screen of the running app as its links do (no reload of the shell): a sweep over many screens stays quick. */
export async function openInApp(page: Page, path: string): Promise<void> {
  await page.evaluate((to) => {
    history.pushState(null, '', to);
    dispatchEvent(new PopStateEvent('popstate'));
  }, path);
}
