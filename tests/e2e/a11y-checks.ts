import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, type Request } from '@playwright/test';
import axe from 'axe-core';
import { formatInZone } from '../../domain/time';
import { addDays } from '../../domain/visit-rules';
import { fileVisitor, listScreen, signInAs } from './support';

/**
 * What a11y.spec.ts and large-text.spec.ts measure a screen by: axe-core's WCAG 2.1 A/AA rules, the size of what a
 * finger hits, and the size of the text. Each returns the findings as lines naming the screen, so one failure lists
 * them all.
 */

/** A request open longer than this is a long poll, not a screen's data still coming. */
const LONG_POLL_MS = 8_000;

/** The API requests a page has open, as their URLs: the notification stream and any long poll aside. */
export function trackApiRequests(page: Page): () => string[] {
  const open = new Map<Request, number>();
  page.on('request', (r) => {
    const url = r.url();
    if (url.includes('/api/') && !url.includes('/notifications/stream')) open.set(r, Date.now());
  });
  page.on('requestfinished', (r) => open.delete(r));
  page.on('requestfailed', (r) => open.delete(r));
  return () => [...open].filter(([, since]) => Date.now() - since < LONG_POLL_MS).map(([r]) => r.url());
}

/** Anything a screen shows while its code or data is on the way. */
const LOADING = '.boot, .page-loading, .adm-skeleton, .adm-dot-loading, .pa-count--loading, [aria-busy="true"]';

/** Waits until the screen has its code and data: no API request open and no loader shown, three checks running. */
export async function settle(page: Page, openRequests: () => string[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  let quiet = 0;
  for (;;) {
    const requests = openRequests();
    // An infinite list's 加载更多 shows whenever there are more pages: it loads on scrolling, so it waits for no one (its request would be open).
    const loaders = await page.locator(LOADING).evaluateAll((els) => els.filter((el) => !el.closest('.adm-infinite-scroll')).map((el) => el.className || el.tagName));
    const busy = requests.length > 0 || loaders.length > 0;
    quiet = busy ? 0 : quiet + 1;
    if (quiet >= 3) return;
    if (busy && Date.now() > deadline) throw new Error(`${page.url()} did not settle: requests ${requests.join(', ') || 'none'}; loaders ${loaders.join(', ') || 'none'}`);
    await page.waitForTimeout(50);
  }
}

/** Opens `path` the way the app's own links do (history and popstate, no reload), then waits for it to settle. */
export async function visitInApp(page: Page, path: string, openRequests: () => string[]): Promise<void> {
  await page.evaluate((to) => {
    window.history.pushState(null, '', to);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, path);
  await expect.poll(() => page.evaluate(() => window.location.pathname)).toBe(path);
  await settle(page, openRequests);
}

/** No-op source for AxeBuilder, which would otherwise evaluate axe-core's 550 KB twice on every check: seconds a screen on a busy machine. */
const AXE_LOADED = "if (!window.axe) throw new Error('axe-core is not in the page');";

/** Puts axe-core into the page's document once; later checks of the same document (the app navigates without reloading) reuse it. */
async function ensureAxe(page: Page): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
}

export const sizeOf = (page: Page) => ((page.viewportSize()?.width ?? 0) < 768 ? 'phone' : 'desktop');

/** axe-core's WCAG 2.0/2.1 A and AA rules (or only `rules`): every serious or critical node, as 'size screen rule (impact) target — why'. */
export async function axeFindings(page: Page, screen: string, rules?: string[]): Promise<string[]> {
  await ensureAxe(page);
  const builder = new AxeBuilder({ page, axeSource: AXE_LOADED }).setLegacyMode().options({ resultTypes: ['violations'] });
  const { violations } = await (rules ? builder.withRules(rules) : builder.withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${sizeOf(page)} ${screen} ${v.id} (${v.impact}) ${n.target.join(' ')} — ${n.failureSummary?.split('\n')[1]?.trim() ?? v.help}`));
}

/**
 * The controls under `scope` whose hit box is smaller than `min` px either way, as 'screen control W×H'. The hit box is
 * the control's box with its ::before/::after where they are drawn outside it (the theme widens small controls so on a
 * phone, global.css); a tick box's or radio's input is hit through its label. A link or button inside a sentence is
 * WCAG's exception and not counted.
 */
export async function smallTargets(page: Page, screen: string, min: number, scope = 'body'): Promise<string[]> {
  const found = await page.evaluate(
    ({ min, scope }) => {
      const CONTROLS =
        'a[href], button, input:not([type=hidden]), select, textarea, [role=button], [role=link], [role=tab], [role=checkbox], [role=radio], [role=switch], [role=menuitem], [role=option], [tabindex]:not([tabindex="-1"])';
      const px = (v: string) => parseFloat(v) || 0;
      const hitBox = (el: Element) => {
        const r = el.getBoundingClientRect();
        const box = { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
        const own = getComputedStyle(el);
        if (own.position === 'static') return box;
        for (const pseudo of ['::before', '::after']) {
          const p = getComputedStyle(el, pseudo);
          if (p.content === 'none' || p.content === 'normal' || p.display === 'none' || p.position !== 'absolute' || p.pointerEvents === 'none') continue;
          const [top, right, bottom, left] = [p.top, p.right, p.bottom, p.left].map(parseFloat);
          if ([top, right, bottom, left].some(Number.isNaN)) continue;
          box.left = Math.min(box.left, r.left + px(own.borderLeftWidth) + left);
          box.right = Math.max(box.right, r.right - px(own.borderRightWidth) - right);
          box.top = Math.min(box.top, r.top + px(own.borderTopWidth) + top);
          box.bottom = Math.max(box.bottom, r.bottom - px(own.borderBottomWidth) - bottom);
        }
        return box;
      };
      const name = (el: Element) => {
        const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/).slice(0, 2).join('.') : '';
        const text = (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 20);
        return `${el.tagName.toLowerCase()}${cls ? `.${cls}` : ''} "${text}"`;
      };
      const out = new Set<string>();
      for (const root of document.querySelectorAll(scope)) {
        for (const control of root.querySelectorAll(CONTROLS)) {
          if (control.closest('[aria-hidden="true"], [inert]') || control.matches(':disabled')) continue;
          const target = control.matches('.adm-checkbox input, .adm-radio input') ? control.closest('label')! : control;
          const style = getComputedStyle(target);
          const r = target.getBoundingClientRect();
          if (style.visibility === 'hidden' || r.width === 0 || r.height === 0) continue;
          const box = hitBox(target);
          const [w, h] = [Math.round(box.right - box.left), Math.round(box.bottom - box.top)];
          if (w >= min && h >= min) continue;
          const around = target.parentElement?.textContent?.trim().length ?? 0;
          if (style.display === 'inline' && around > (target.textContent?.trim().length ?? 0)) continue;
          out.add(`${name(target)} ${w}×${h}`);
        }
      }
      return [...out];
    },
    { min, scope },
  );
  return found.map((f) => `${sizeOf(page)} ${screen} ${f}`);
}

/** The visible text under `scope` drawn smaller than `min` px, as 'screen element "text" size'. */
export async function smallText(page: Page, screen: string, min: number, scope: string): Promise<string[]> {
  const found = await page.evaluate(
    ({ min, scope }) => {
      const out = new Set<string>();
      for (const root of document.querySelectorAll(scope)) {
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const text = node.textContent?.trim();
          const el = node.parentElement;
          if (!text || !el || el.closest('[aria-hidden="true"], .visually-hidden')) continue;
          const range = document.createRange();
          range.selectNodeContents(node);
          const r = range.getBoundingClientRect();
          if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
          const size = parseFloat(getComputedStyle(el).fontSize);
          if (size < min) out.add(`${el.tagName.toLowerCase()}.${el.className} "${text.slice(0, 16)}" ${size}px`);
        }
      }
      return [...out];
    },
    { min, scope },
  );
  return found.map((f) => `${screen} ${f}`);
}

/**
 * The approval sheet of a person visit just filed (`name`, in `days` days), opened by the reviewer in their queue and
 * settled: what both specs check of the approval step. `seq` and `phonePrefix` keep the visitor's numbers apart.
 */
export async function openApprovalSheet(page: Page, openRequests: () => string[], visit: { name: string; seq: number; days: number; phonePrefix: string }): Promise<void> {
  const contact = await signInAs(page, 'contact');
  await fileVisitor(contact, { name: visit.name, seq: visit.seq, day: addDays(formatInZone(new Date()), visit.days), phonePrefix: visit.phonePrefix });
  await signInAs(page, 'reviewer');
  await page.goto('/approval/person');
  const list = listScreen(page);
  await expect(list.row(visit.name).first()).toBeVisible({ timeout: 30_000 });
  await list.row(visit.name).first().getByRole('button', { name: '审核', exact: true }).click();
  await expect(page.getByRole('dialog').last().getByText('审核通过即表示')).toBeVisible();
  await settle(page, openRequests);
}
