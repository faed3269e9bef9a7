import { expect, test, type Page } from '@playwright/test';
import { formatInZone } from '../../domain/time';
import { call, listScreen, randomPlate, signInAs } from './support';

/**
 * Issue 24 item 3: at 1440×900 every list fits its pane with its state column
 * in view beside its key, and no label of a desktop form wraps or is cut.
 */
// Skipped on the phone on purpose: these checks measure the desktop table and form; the phone's cards are other specs' (reason below).
test.skip(({ isMobile }) => isMobile, 'the table and the two-column form are the desktop layout; the phone shows cards and one-column forms, which other specs walk');

interface ListCase {
  path: string;
  /** The header of the row's state column, when the list has one. */
  state?: string;
  /** Spec 000 §2 asks the appointment lists for a wide table that scrolls ("table scroll is 1500"), and the gate list and the vehicle crossings are too: there only the state's place is checked. */
  wide?: boolean;
  /** Opens the 新增 form and checks its labels. */
  form?: boolean;
}

const byAccount: Record<string, ListCase[]> = {
  contact: [
    { path: '/vehicles/registration', state: '审核状态', form: true },
    { path: '/vehicles/transport-history', state: '审核状态', form: true },
    { path: '/appointments/person', state: '状态', wide: true },
    { path: '/appointments/car', state: '审核状态', wide: true },
  ],
  squad: [
    { path: '/vehicles/registration-history', state: '审核状态' },
    { path: '/vehicles/transport-all-history', state: '审核状态' },
    { path: '/approval/registration' },
    { path: '/approval/transport' },
    { path: '/approval/car-list' },
    { path: '/approval/person-list' },
    { path: '/approval/car-final' },
    { path: '/approval/person-final' },
    { path: '/appointments/car-all-history', state: '审核状态', wide: true },
    { path: '/appointments/person-all-history', state: '审核状态', wide: true },
  ],
  lead: [
    { path: '/vehicles/car-list', state: '状态', form: true },
    { path: '/vehicles/person-list', state: '状态', form: true },
    { path: '/vehicles/marks', state: '状态', form: true },
    { path: '/security/stranded-person', state: '处理状态' },
    { path: '/security/stranded-car', state: '处理状态' },
    // With 危化品 (its waybill) beside the camera's fields, a day of crossings scrolls sideways with its plate pinned.
    { path: '/security/vehicle-gate-records', wide: true },
    { path: '/security/person-gate-records' },
  ],
  reviewer: [{ path: '/approval/car' }, { path: '/approval/person' }, { path: '/appointments/car-history', state: '审核状态', wide: true }],
  admin: [
    // The gate list also shows each gate's offline allow-list (docs/offline-gates.md): it scrolls with its name and state pinned.
    { path: '/devices/gate', state: '在线状态', form: true, wide: true },
    { path: '/devices/car-face', state: '在线状态' },
    { path: '/system/roles', state: '状态', form: true },
    { path: '/system/users', state: '状态', form: true },
    { path: '/system/departments', form: true },
    { path: '/system/vehicle-types', form: true },
    { path: '/system/processes', form: true },
    { path: '/system/process-nodes', form: true },
    { path: '/system/process-definitions', form: true },
    { path: '/system/login-logs', state: '登录状态' },
    { path: '/system/operation-logs', state: '操作结果' },
  ],
};

type Box = { left: number; right: number; width: number };

async function tableLayout(page: Page, state: string | undefined, scrolledRight = false) {
  await expect(page.locator('table.dtb')).toBeVisible();
  await expect(page.locator('.dtb .ls-skeleton')).toHaveCount(0);
  return page.evaluate(
    ([stateLabel, toTheRight]) => {
      const box = (el: Element | null | undefined): Box | null => {
        if (!el) return null;
        const b = el.getBoundingClientRect();
        return { left: b.left, right: b.right, width: b.width };
      };
      const scroll = document.querySelector('.dtb-scroll') as HTMLElement;
      if (toTheRight) scroll.scrollLeft = scroll.scrollWidth;
      const ths = [...document.querySelectorAll('.dtb thead th')];
      return {
        pane: box(scroll)!,
        scrollWidth: scroll.scrollWidth,
        clientWidth: scroll.clientWidth,
        state: box(ths.find((th) => th.textContent?.trim() === stateLabel)),
        actions: box(ths.find((th) => th.classList.contains('dtb-action-col'))),
        cutFilterLabels: [...document.querySelectorAll('.ff--inline .ff-label')].filter((el) => el.scrollWidth > el.clientWidth).map((el) => el.textContent ?? ''),
      };
    },
    [state, scrolledRight] as const,
  );
}

/** Labels of the open form that take more than one line. */
async function wrappedLabels(page: Page): Promise<string[]> {
  const labels = page.locator('.ef .ef-label');
  await expect(labels.first()).toBeVisible();
  return labels.evaluateAll((els) => els.filter((el) => el.getBoundingClientRect().height > parseFloat(getComputedStyle(el).lineHeight) * 1.5).map((el) => el.textContent ?? ''));
}

for (const [account, cases] of Object.entries(byAccount)) {
  test(`${account}: every list fits at 1440 px with its state in view, and no form label wraps`, async ({ page }) => {
    // Up to eleven lists and forms in one walk: past the default minute on a loaded 2-core machine.
    test.slow();
    await signInAs(page, account);
    for (const c of cases) {
      await test.step(c.path, async () => {
        await page.goto(c.path);
        const t = await tableLayout(page, c.state);
        if (!c.wide) expect.soft(t.scrollWidth, `${c.path}: the table is wider than its pane`).toBeLessThanOrEqual(t.clientWidth);
        expect.soft(t.cutFilterLabels, `${c.path}: filter labels cut short`).toEqual([]);
        if (c.state) {
          expect.soft(t.state, `${c.path}: no ${c.state} column`).not.toBeNull();
        }
        if (c.state && t.state) {
          expect.soft(t.state.left, `${c.path}: ${c.state} starts left of the pane`).toBeGreaterThanOrEqual(t.pane.left);
          expect.soft(t.state.right, `${c.path}: ${c.state} ends past the pane`).toBeLessThanOrEqual(t.pane.right);
          if (t.actions) expect.soft(t.state.right, `${c.path}: ${c.state} lies under the pinned 操作 column`).toBeLessThanOrEqual(t.actions.left + 0.5);
        }
        if (c.wide && c.state) {
          // Spec 000 §2's wide tables scroll sideways: scrolled to the end, the state is still in view beside the key.
          const end = await tableLayout(page, c.state, true);
          expect.soft(end.scrollWidth, `${c.path}: expected a wide table`).toBeGreaterThan(end.clientWidth);
          expect.soft(end.state && end.state.left >= end.pane.left && end.state.right <= (end.actions?.left ?? end.pane.right) + 0.5, `${c.path}: ${c.state} scrolled out of view`).toBe(true);
        }
        if (c.form) {
          await page.locator('.ls-toolbar__right').getByRole('button', { name: /^新增/ }).first().click();
          const dialog = page.getByRole('dialog');
          await expect(dialog).toBeVisible();
          expect.soft(await wrappedLabels(page), `${c.path}: form labels on more than one line`).toEqual([]);
          await dialog.getByRole('button', { name: '取消' }).click();
          await expect(dialog).toBeHidden();
        }
      });
    }
  });
}

test('a cell cut short shows its whole text on hover and in the detail', async ({ page }) => {
  const token = await signInAs(page, 'contact');
  // A draft of its own, with a company's whole name longer than the 来访单位 column the fit leaves it: other specs'
  // registrations with short names would otherwise be the first rows.
  const plate = randomPlate();
  const company = '惠州大亚湾石化区危险化学品道路运输服务有限公司';
  const today = formatInZone(new Date()).slice(0, 10);
  await call(token, '/vehicleRegistration/save', {
    license_plate: plate,
    license_plate_color: 1,
    visit_area: 1,
    visitor_company: company,
    phone: '13900007777',
    total_mass: 31,
    begin_time: today,
    end_time: today,
  });
  const list = listScreen(page);
  await list.open('/vehicles/registration');
  await list.showOnly('车牌号', plate);
  const column = await page.locator('.dtb thead th').evaluateAll((ths) => ths.findIndex((th) => th.textContent?.trim() === '来访单位'));
  const cell = list.row(plate).locator('td').nth(column);
  await expect(cell).toHaveText(company);
  // The columns are fitted once the pane is measured, a frame after the rows show.
  await expect.poll(() => cell.evaluate((td) => td.scrollWidth > td.clientWidth), { message: 'the 来访单位 cell is cut at 1440 px' }).toBe(true);
  await cell.hover();
  await expect(cell).toHaveAttribute('title', company);
  await cell.dblclick();
  await expect(page.getByRole('dialog').getByText(company, { exact: true })).toBeVisible();
});
