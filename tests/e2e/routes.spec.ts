import { expect, test, type Locator, type Page } from '@playwright/test';
import { call, formField as field, isPhone, listScreen, shellDepartment, shot, signInAs, submitForm } from './support';

/** 行车路线 (spec 001 "Vehicle entry routes"; issue 27): the list, the map line editor by finger and by mouse, binding, and the read-only view. */

const SEEDED = '西门—北门危化品车辆路线';

/**
 * Signed in as admin with no unread alarm: the banner of alarms other specs on this worker's server raised would
 * arrive a moment after the page and move the map under the test's taps.
 */
async function signInQuietly(page: Page): Promise<string> {
  const token = await signInAs(page, 'admin');
  await call(token, '/notifications/readAll', {});
  return token;
}

const center = async (l: Locator) => {
  const b = (await l.boundingBox())!;
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
};

/**
 * Every gate dot and its name lie inside the map's box (nothing cropped at the edge), and answers how much of the
 * box's width and height they span together.
 */
async function expectFramed(map: Locator) {
  await expect(map.locator('.park-marker').first()).toBeVisible();
  // The fit runs on the frame after the markers arrive.
  await map.page().waitForTimeout(300);
  const { box, parts } = await map.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return {
      box: { left: r.left, top: r.top, right: r.right, bottom: r.bottom },
      parts: [...el.querySelectorAll('.park-marker-dot, .park-marker-label')].map((p) => {
        const b = p.getBoundingClientRect();
        return { text: p.textContent, left: b.left, top: b.top, right: b.right, bottom: b.bottom };
      }),
    };
  });
  expect(parts.length).toBeGreaterThan(0);
  for (const p of parts) {
    const inside = p.left >= box.left - 0.5 && p.right <= box.right + 0.5 && p.top >= box.top - 0.5 && p.bottom <= box.bottom + 0.5;
    expect(inside, `${p.text || 'dot'} ${JSON.stringify(p)} in ${JSON.stringify(box)}`).toBe(true);
  }
  const span = (a: 'left' | 'top', b: 'right' | 'bottom') => (Math.max(...parts.map((p) => p[b])) - Math.min(...parts.map((p) => p[a]))) / (box[b] - box[a]);
  return { width: span('left', 'right'), height: span('top', 'bottom') };
}

/** A finger drag through the browser's own touch input (CDP), as a phone's screen sends it: press, move in steps, lift. */
async function touchDrag(page: Page, from: { x: number; y: number }, to: { x: number; y: number }) {
  const cdp = await page.context().newCDPSession(page);
  const point = (p: { x: number; y: number }) => [{ x: p.x, y: p.y, id: 1 }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: point(from) });
  for (let i = 1; i <= 8; i++) {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: point({ x: from.x + ((to.x - from.x) * i) / 8, y: from.y + ((to.y - from.y) * i) / 8 }) });
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

test('draws a route by finger at phone size (tap to add, drag, undo), saves it and binds a department', async ({ page }) => {
  // Skipped at desktop size on purpose: each size draws with its own pointer (touch here, the mouse in the next test).
  test.skip(!isPhone(page), 'the finger path is the phone’s; the mouse path is the desktop test below');
  const name = `巡线P${Date.now() % 100000}`;
  await signInQuietly(page);
  const list = listScreen(page);
  await list.open('/vehicles/routes');
  await expect(list.row(SEEDED)).toBeVisible();
  await shot(page, 'routes-phone');

  await page.getByRole('button', { name: /新增路线/ }).click();
  await field(page, '路线名称').locator('input').fill(name);
  const editor = page.getByTestId('route-editor');
  const map = editor.locator('.leaflet-container');
  await expect(map).toBeVisible();
  // Nothing drawn yet: the form says so and refuses.
  await submitForm(page);
  await expect(field(page, '行车路线').getByText('请在地图上绘制行车路线')).toBeVisible();

  // The map has framed the park's gates (it does so once, when they arrive) before anything is drawn on it.
  await expect(editor.locator('.park-marker').first()).toBeVisible();
  await map.scrollIntoViewIfNeeded();
  const box = (await map.boundingBox())!;
  const taps = [
    { x: box.x + box.width * 0.25, y: box.y + box.height * 0.7 },
    { x: box.x + box.width * 0.5, y: box.y + box.height * 0.45 },
    { x: box.x + box.width * 0.75, y: box.y + box.height * 0.3 },
  ];
  for (const [i, t] of taps.entries()) {
    await page.touchscreen.tap(t.x, t.y);
    await expect(editor).toHaveAttribute('data-vertices', String(i + 1));
  }
  const vertices = editor.locator('.route-vertex');
  await expect(vertices).toHaveCount(3);
  await expect(editor.getByText('共 3 个路线点')).toBeVisible();

  // Drag the second vertex by finger: it lands where the finger lifted, and the count stays.
  const second = await center(vertices.nth(1));
  const secondFromTop = second.y - (await map.boundingBox())!.y;
  const target = { x: second.x + 40, y: second.y + 60 };
  await touchDrag(page, second, target);
  await expect(editor).toHaveAttribute('data-vertices', '3');
  await expect.poll(async () => Math.round((await center(editor.locator('.route-vertex', { hasText: '2' }))).y - target.y)).toBe(0);
  await shot(page, 'route-editor-phone');

  // Undo puts it back: where it stood in the map's box (tapping a button may scroll the page, which moves the box).
  await editor.getByRole('button', { name: '撤销' }).tap();
  const fromTop = async (l: Locator) => (await center(l)).y - (await map.boundingBox())!.y;
  await expect.poll(async () => Math.abs((await fromTop(editor.locator('.route-vertex', { hasText: '2' }))) - secondFromTop) < 2).toBe(true);

  // Select the third and delete it, then undo that too: three vertices again.
  await editor.locator('.route-vertex', { hasText: '3' }).tap();
  await editor.getByRole('button', { name: '删除所选点' }).tap();
  await expect(editor).toHaveAttribute('data-vertices', '2');
  await editor.getByRole('button', { name: '撤销' }).tap();
  await expect(editor).toHaveAttribute('data-vertices', '3');

  await submitForm(page);
  await expect(page.getByText('创建成功！')).toBeVisible();
  await expect(list.row(name)).toBeVisible();

  await list.action(name, '绑定部门');
  const dialog = page.getByRole('dialog').last();
  // Bound to another route already (an earlier run's), it says so beside its name: checking it moves it here.
  await dialog.locator('.dr-check-list li', { hasText: '惠州港务集团有限公司' }).locator('.adm-checkbox').click();
  await shot(page, 'route-bind-phone');
  await dialog.getByRole('button', { name: '确定' }).click();
  await expect(page.getByText('绑定成功')).toBeVisible();
  await expect(list.row(name)).toContainText('惠州港务集团有限公司');

  // Viewed, it is read-only: the line, no buttons to change it.
  await list.action(name, '查看路线');
  const view = page.getByTestId('route-editor');
  await expect(view).toHaveAttribute('data-vertices', '3');
  await expect(view.getByRole('button', { name: '撤销' })).toHaveCount(0);
  await expect(view.locator('.leaflet-overlay-pane path')).toHaveCount(1);
  await shot(page, 'route-view-phone');
});

test('lists routes and shows one read-only, its points and its binding', async ({ page }) => {
  await signInQuietly(page);
  const list = listScreen(page);
  await list.open('/vehicles/routes');
  const row = list.row(SEEDED);
  await expect(row).toBeVisible();
  await expect(row).toContainText('已发布');
  await expect(row).toContainText('惠州宇新化工有限责任公司');
  await shot(page, `routes-${isPhone(page) ? 'phone' : 'desktop'}-list`);

  // A tap / double-click opens the route read-only.
  await list.openDetail(row);
  const view = page.getByTestId('route-editor');
  await expect(view).toHaveClass(/is-readonly/);
  await expect(view).toHaveAttribute('data-vertices', '5');
  await expect(view.locator('.leaflet-overlay-pane path')).toHaveCount(1);
  await expect(view.locator('.route-vertex')).toHaveCount(0);
  await expect(view.getByRole('button', { name: '撤销' })).toHaveCount(0);
  await expect(page.getByRole('dialog').last()).toContainText('西门车辆道闸1 → 北门车辆道闸1');
  // The route's gates and their names are whole inside the map, and on a phone they fill it across.
  const viewed = await expectFramed(view.locator('.leaflet-container'));
  if (isPhone(page)) expect(Math.max(viewed.width, viewed.height)).toBeGreaterThan(0.75);
  await shot(page, `route-view-${isPhone(page) ? 'phone' : 'desktop'}`);
  await page.getByRole('dialog').last().getByRole('button', { name: '关闭' }).last().click();

  await list.action(row, '点位');
  const points = page.getByRole('dialog').last();
  await expect(points.getByTestId('route-point-order')).toHaveText('途经顺序：西门车辆道闸1 → 北门车辆道闸1');
  await expect(points.getByRole('list', { name: '点位' }).getByText('东门车辆道闸1')).toBeVisible();
  // Every gate of the park is drawn here, 北门's name included, and none is cut by the map's edge.
  // (Other specs on this worker's server may have surveyed more gates: the demo's three are the floor.)
  await expect(points.locator('.park-marker', { hasText: '北门车辆道闸1' })).toHaveCount(1);
  expect(await points.locator('.park-marker').count()).toBeGreaterThanOrEqual(3);
  await expectFramed(points.locator('.leaflet-container'));
  await shot(page, `route-points-${isPhone(page) ? 'phone' : 'desktop'}`);
});

test('draws and edits a route with the mouse on a desktop', async ({ page }) => {
  // Skipped at phone size on purpose: the finger path is the test above; geoman's mouse editing is the desktop's.
  test.skip(isPhone(page), 'the mouse path is the desktop’s');
  const name = `巡线D${Date.now() % 100000}`;
  await signInQuietly(page);
  const list = listScreen(page);
  await list.open('/vehicles/routes');
  await page.getByRole('button', { name: /新增路线/ }).click();
  await field(page, '路线名称').locator('input').fill(name);
  const editor = page.getByTestId('route-editor');
  const map = editor.locator('.leaflet-container');
  await expect(map).toBeVisible();
  await expect(editor.locator('.park-marker').first()).toBeVisible();
  const box = (await map.boundingBox())!;
  for (const [i, [fx, fy]] of [
    [0.2, 0.7],
    [0.5, 0.5],
    [0.8, 0.3],
  ].entries()) {
    await page.mouse.click(box.x + box.width * fx!, box.y + box.height * fy!);
    await expect(editor).toHaveAttribute('data-vertices', String(i + 1));
  }
  // geoman's vertex handles stand on the line: drag the middle one.
  const handles = editor.locator('.marker-icon:not(.marker-icon-middle)');
  await expect(handles).toHaveCount(3);
  const from = await center(handles.nth(1));
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x + 30, from.y + 40, { steps: 6 });
  await page.mouse.up();
  await expect.poll(async () => Math.round((await center(editor.locator('.marker-icon:not(.marker-icon-middle)').nth(1))).x - (from.x + 30))).toBe(0);
  await expect(editor).toHaveAttribute('data-vertices', '3');
  await shot(page, 'route-editor-desktop');
  await editor.getByRole('button', { name: '撤销' }).click();
  await expect.poll(async () => Math.abs((await center(editor.locator('.marker-icon:not(.marker-icon-middle)').nth(1))).x - from.x) < 2).toBe(true);
  await submitForm(page);
  await expect(page.getByText('创建成功！')).toBeVisible();
  await expect(list.row(name)).toBeVisible();
});

test('a line drawn on gate dots picks those gates as its points, in the line’s order, and the list can adjust them', async ({ page }) => {
  const name = `过点${isPhone(page) ? 'P' : 'D'}${Date.now() % 100000}`;
  const token = await signInQuietly(page);
  const list = listScreen(page);
  await list.open('/vehicles/routes');
  await page.getByRole('button', { name: /新增路线/ }).click();
  await field(page, '路线名称').locator('input').fill(name);
  const editor = page.getByTestId('route-editor');
  const map = editor.locator('.leaflet-container');
  const framed = await expectFramed(map);
  // On a phone the park's gates fill the map across.
  if (isPhone(page)) expect(framed.width).toBeGreaterThan(0.75);
  await map.scrollIntoViewIfNeeded();
  const order = page.getByTestId('route-points').getByTestId('route-point-order');
  await expect(order).toHaveText('途经顺序：未选择');
  const dot = async (gate: string) => center(editor.locator('.park-marker', { hasText: gate }).locator('.park-marker-dot'));
  // A tap on a gate puts the next vertex on the gate itself: 西门, then 北门.
  for (const [i, gate] of ['西门车辆道闸1', '北门车辆道闸1'].entries()) {
    const at = await dot(gate);
    if (isPhone(page)) await page.touchscreen.tap(at.x, at.y);
    else await page.mouse.click(at.x, at.y);
    await expect(editor).toHaveAttribute('data-vertices', String(i + 1));
    // A finger's vertices are the editor's own numbered markers; a mouse's are geoman's handles.
    const vertex = await center(isPhone(page) ? editor.locator('.route-vertex', { hasText: String(i + 1) }) : editor.locator('.marker-icon:not(.marker-icon-middle)').nth(i));
    expect(Math.hypot(vertex.x - at.x, vertex.y - at.y)).toBeLessThan(2);
  }
  await expect(order).toHaveText('途经顺序：西门车辆道闸1 → 北门车辆道闸1');
  // The gates passed are drawn as on the route, the one not passed greyed.
  await expect(editor.locator('.park-marker.is-normal')).toHaveCount(2);
  await expect(editor.locator('.park-marker.is-muted', { hasText: '东门车辆道闸1' })).toHaveCount(1);
  await shot(page, 'route-passes');

  // Adjusted by hand: 东门 added, it goes last.
  await page.getByTestId('route-points').locator('.dr-check-list li', { hasText: '东门车辆道闸1' }).locator('.adm-checkbox').click();
  await expect(order).toHaveText('途经顺序：西门车辆道闸1 → 北门车辆道闸1 → 东门车辆道闸1');
  await submitForm(page);
  await expect(page.getByText('创建成功！')).toBeVisible();
  await expect(list.row(name)).toBeVisible();
  if (!isPhone(page)) await expect(list.row(name)).toContainText('西门车辆道闸1 → 北门车辆道闸1 → 东门车辆道闸1');
  const saved = await call<{ list: Array<{ name: string; point_names: string }> }>(token, '/drivingRoute/page', { size: 10, pn: 1, name });
  expect(saved.list[0]!.point_names).toBe('西门车辆道闸1 → 北门车辆道闸1 → 东门车辆道闸1');
});

test('a vehicle visit’s detail shows the published route of its visited department on a small map', async ({ page }) => {
  const token = await signInQuietly(page);
  const bindings = await call<Array<{ depart_id: number; route_id: number; route_name: string }>>(token, '/drivingRoute/depart/find', {});
  const route = bindings.find((b) => b.route_name === SEEDED)!;
  const bound = bindings.filter((b) => b.route_id === route.route_id).map((b) => b.depart_id);
  // The demo's approved visits go to 中海壳牌: its vehicles follow the seeded route for this test, and no longer after it.
  await call(token, '/drivingRoute/depart/bind', { id: route.route_id, departIds: [...bound, await shellDepartment(token)] });
  try {
    const approved = await call<{ list: Array<{ application_number: string }> }>(token, '/carApplications/all/history/list', { size: 1, pn: 1, state: 2 });
    const number = approved.list[0]!.application_number;
    const list = listScreen(page);
    await list.open('/appointments/car-all-history');
    await list.showOnly('预约单号', number);
    await list.openDetail(list.rows().first());
    const section = page.getByTestId('visit-route');
    await expect(section).toContainText(SEEDED);
    await expect(section).toContainText('途经点位：西门车辆道闸1 → 北门车辆道闸1');
    const map = section.getByTestId('route-editor');
    await expect(map).toHaveClass(/is-readonly/);
    await expect(map).toHaveAttribute('data-vertices', '5');
    await expect(map.locator('.leaflet-overlay-pane path')).toHaveCount(1);
    await section.scrollIntoViewIfNeeded();
    const framed = await expectFramed(map.locator('.leaflet-container'));
    if (isPhone(page)) expect(Math.max(framed.width, framed.height)).toBeGreaterThan(0.75);
    await shot(page, `visit-route-${isPhone(page) ? 'phone' : 'desktop'}`);
  } finally {
    await call(token, '/drivingRoute/depart/bind', { id: route.route_id, departIds: bound });
  }
});
