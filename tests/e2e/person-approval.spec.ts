import { expect, test } from '@playwright/test';
import { formatInZone } from '../../domain/time';
import { addDays } from '../../domain/visit-rules';
import { call, fileVisitor, isPhone, listScreen, shot, signInAs } from './support';

/**
 * A person appointment of spec 000 from submission to approval, at both
 * sizes: the enterprise contact files two visitors (API), the visited
 * enterprise's reviewer approves each in 人员预约审核 (full-screen sheet on a
 * phone, the 700 px modal on a desktop), and the squad approves both at once
 * with 批量审核 in 人员预约终审.
 */

const NAME_CHARS = '伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂';
const visitorName = () => `测${Array.from({ length: 3 }, () => NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)]).join('')}`;

test('person appointments pass the reviewer and a batch final review', async ({ page }) => {
  test.setTimeout(120_000);
  const contact = await signInAs(page, 'contact');
  const day = addDays(formatInZone(new Date()), 2);

  const file = async (seq: number) => {
    const name = visitorName();
    return { id: await fileVisitor(contact, { name, seq: 200 + seq, day }), name };
  };
  // Phone numbers and ID numbers differ per project so the two sizes never share a visitor.
  const offset = isPhone(page) ? 0 : 50;
  const visitors = [await file(offset + 1), await file(offset + 2)];
  const stateOf = async (v: { id: number }) => (await call<{ state: number }>(contact, `/personApplications/detail?id=${v.id}`, undefined, 'GET')).state;

  // ---------------------------------------------------------------- reviewer, one at a time
  await signInAs(page, 'reviewer');
  const list = listScreen(page);
  for (const v of visitors) {
    await list.open('/approval/person');
    const row = list.row(v.name);
    await expect(row).toBeVisible();
    await row.getByRole('button', { name: '审核', exact: true }).click();
    const sheet = page.getByRole('dialog').last();
    await expect(sheet.getByText(v.name).first()).toBeVisible();
    await expect(sheet.getByText('审核通过即表示')).toBeVisible();
    await expect(sheet.locator('#rv-remark')).toHaveValue('同意');
    if (!isPhone(page)) {
      // The desktop review is the spec's 700 px modal, not a sheet.
      const box = await page.locator('.sm').last().boundingBox();
      expect(Math.round(box!.width)).toBe(700);
    }
    if (v === visitors[0]) await shot(page, 'person-review');
    await sheet.getByRole('button', { name: isPhone(page) ? '同意' : '确定', exact: true }).click();
    await expect(page.getByText('审核成功！')).toBeVisible();
    await expect(list.row(v.name)).toHaveCount(0);
  }
  for (const v of visitors) expect(await stateOf(v)).toBe(1);

  // ---------------------------------------------------------------- squad, both in one batch
  await signInAs(page, 'squad');
  await list.open('/approval/person-final');
  for (const v of visitors) await list.select(v.name);
  await expect(page.getByText('已选 2 项')).toBeVisible();
  await page.getByRole('button', { name: '批量审核' }).click();
  const sheet = page.getByRole('dialog').last();
  await expect(sheet.getByText('批量审核（2 项）')).toBeVisible();
  await shot(page, 'person-batch');
  await sheet.getByRole('button', { name: isPhone(page) ? '同意' : '确定', exact: true }).click();
  await expect(page.getByText('审核成功！')).toBeVisible();
  for (const v of visitors) await expect(list.row(v.name)).toHaveCount(0);
  for (const v of visitors) expect(await stateOf(v)).toBe(2);
});
