import { expect, test } from '@playwright/test';
import { call, isPhone, listScreen, randomPlate, shot, signInAs, upload } from './support';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toLocaleDateString('sv-SE', { timeZone: 'Asia/Shanghai' });

/** A complete waybill the contact files and submits through the API; the optional trailer and tank fields left out. */
async function fileWaybill(contact: string, plate: string, seq: number): Promise<number> {
  const { id } = await call<{ id: number }>(contact, '/transportList/save', {
    transport_type: 2,
    list_number: `44130020269${String(seq).padStart(7, '0')}`,
    cargo_name: '液碱',
    cargo_quantity: 28,
    enterprise: '惠州市大亚湾通达危险品运输有限公司',
    unified_social_credit_code: '91441300MA4W8K2L5T',
    business_license_number: '粤交运管许可惠字441300012345号',
    contact_phone: '0752-5568899',
    license_plate: plate,
    license_plate_color: 1,
    vehicle_transport_license: `粤交运管惠字44130${seq}号`,
    driver: '黎志强',
    driver_qualification_certificate: `4413002019${seq}`,
    driver_phone: '13922001101',
    supercargo: '罗小明',
    supercargo_qualification_certificate: '4413002020005678',
    supercargo_phone: '13600011122',
    shipper: '惠州宇新化工有限责任公司',
    shipper_phone: '0752-5561000',
    recipient: '中海壳牌石油化工有限公司',
    recipient_phone: '0752-5562000',
    carrier: '惠州市大亚湾通达危险品运输有限公司',
    carrier_phone: '0752-5568899',
    loader: '钟伟',
    loader_phone: '13600022233',
    shipment_date: day(2),
    shipment_addr: '惠州市大亚湾石化区宇新化工厂区',
    destination: '大亚湾石化区中海壳牌厂区',
    annex: await upload(contact),
  });
  await call(contact, '/transportList/push', { id });
  return id;
}

type Task = { process_task_id: number; ref_id: number; transportList: { application_number: string; license_plate: string } };

test('the hazardous-goods reviewer approves two waybills in one batch, and they move on to the squad', async ({ page }) => {
  const contact = await signInAs(page, 'contact');
  const plates = [randomPlate(), randomPlate()];
  const ids = [await fileWaybill(contact, plates[0]!, Date.now() % 100000), await fileWaybill(contact, plates[1]!, (Date.now() + 1) % 100000)];
  const hazard = await signInAs(page, 'hazard');
  const pending = await call<{ list: Task[] }>(hazard, '/transportList/taskPage', { size: 100, pn: 1 });
  const picked = pending.list.filter((t) => ids.includes(t.ref_id));
  expect(picked).toHaveLength(2);
  const list = listScreen(page);
  await list.open('/approval/transport');
  for (const t of picked) await list.select(t.transportList.license_plate);
  await expect(page.getByText('已选 2 项')).toBeVisible();
  await page.getByRole('button', { name: '批量审核' }).click();
  const sheet = page.getByRole('dialog').last();
  await expect(sheet.getByText('批量审核（2 项）')).toBeVisible();
  await shot(page, 'waybill-batch');
  await sheet.getByRole('button', { name: isPhone(page) ? '同意' : '确定', exact: true }).click();
  await expect(page.getByText('审核成功！')).toBeVisible();
  for (const t of picked) await expect(list.row(t.transportList.license_plate)).toHaveCount(0);

  // The squad's final node now holds them.
  const squad = await signInAs(page, 'squad');
  const next = await call<{ list: Task[] }>(squad, '/transportList/taskPage', { size: 100, pn: 1 });
  for (const t of picked) expect(next.list.map((x) => x.ref_id)).toContain(t.ref_id);
  await list.open('/vehicles/transport-all-history');
  await list.openDetail(picked[0]!.transportList.license_plate);
  await expect(page.getByText(picked[0]!.transportList.application_number).first()).toBeVisible();
  await shot(page, 'waybill-detail');
});
