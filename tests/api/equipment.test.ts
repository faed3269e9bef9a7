import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '../../domain/envelope';
import { equipmentKindList, type EquipmentRow } from '../../domain/schemas/equipment';
import { Client, dialects, startServer, type TestServer } from './harness';

const sample: Record<string, Record<string, unknown>> = {
  gate: { type: 1, entrances_type: 2, is_security_check: 1, temporary_reservation: 0, longitude: '114.52', latitude: 22.74 },
  securityLaneIdentification: { lane_number: 'L9', longitude: 114.5, latitude: 22.7 },
  carMountedFacialRecognition: { plate: '粤L99999' },
};

for (const dialect of await dialects()) {
  describe(`equipment on ${dialect}`, () => {
    let server: TestServer;
    let admin: Client;
    let lead: Client;
    let patrol: Client;
    beforeAll(async () => {
      server = await startServer(dialect);
      [admin, lead, patrol] = await Promise.all([new Client(server).as('admin'), new Client(server).as('lead'), new Client(server).as('patrol')]);
    });
    afterAll(async () => server?.close());

    for (const k of equipmentKindList) {
      it(`${k.title}: list with the spec's filters, detail, save, edit and delete at /equipment/${k.kind}`, async () => {
        const base = `/equipment/${k.kind}`;
        const seeded = await admin.post<Page<EquipmentRow>>(`${base}/list`, { size: 10, pn: 1, state: -1 });
        expect(seeded.status).toBe(200);
        expect(seeded.body.data.total).toBeGreaterThan(0);

        const number = `T-${k.kind.slice(0, 6)}-${dialect}`;
        const body = { name: `测试${k.title}`, number, longitude: 114.52, latitude: 22.74, ...(sample[k.kind] ?? {}) };
        const saved = await admin.post<{ id: number }>(`${base}/save`, body);
        expect(saved.body.msg, JSON.stringify(saved.body)).toBe('创建成功！');
        const id = saved.body.data.id;

        const detail = await admin.get<EquipmentRow>(`${base}/detail?id=${id}`);
        expect(detail.body.data).toMatchObject({ name: body.name, number, state: 0, state_update_time: null });
        for (const f of k.fields) expect(detail.body.data, f).toHaveProperty(f);

        const found = await admin.post<Page<EquipmentRow>>(`${base}/list`, { size: 10, pn: 1, name: '测试', number: number.toLowerCase() });
        expect(found.body.data.list.map((r) => r.id)).toEqual([id]);
        if (k.filters.includes('state')) expect((await admin.post<Page<EquipmentRow>>(`${base}/list`, { size: 10, pn: 1, number, state: 1 })).body.data.total).toBe(0);

        // A device number is unique across all kinds: the device API names a device by number alone.
        const dup = await admin.post(`/equipment/gate/save`, { ...body, ...sample.gate, name: '重复' });
        expect(dup.status).toBe(409);
        expect(dup.body.msg).toBe(`设备编号“${number}”已存在`);

        expect((await admin.post(`${base}/edit`, { ...body, id, name: '改名设备' })).body.msg).toBe('编辑成功！');
        expect((await admin.get<EquipmentRow>(`${base}/detail?id=${id}`)).body.data.name).toBe('改名设备');
        expect((await admin.post(`${base}/delete`, { id })).body.msg).toBe('删除成功！');
        expect((await admin.get(`${base}/detail?id=${id}`)).status).toBe(404);
      });
    }

    it('validates with Chinese messages naming the field', async () => {
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['gate', { name: '', number: 'X1', type: 1, entrances_type: 1, is_security_check: 0, temporary_reservation: 0 }, '请输入设备名称'],
        ['gate', { name: '门', number: 'X 1', type: 1, entrances_type: 1, is_security_check: 0, temporary_reservation: 0 }, '设备编号：仅限数字、英文字母、下划线和中划线'],
        ['gate', { name: '门', number: 'X1', type: 3, entrances_type: 1, is_security_check: 0, temporary_reservation: 0 }, '请选择道闸类型'],
        ['tireCrushing', { name: '破', number: 'X2', longitude: 181 }, '经度范围为-180至180'],
        ['tireCrushing', { name: '破', number: 'X2', latitude: 'abc' }, '纬度必须是数字'],
        ['securityLaneIdentification', { name: '道', number: 'X3' }, '请输入通道编号'],
        // A value of the wrong type was sent: it is named as such, never as missing (issue 23).
        ['securityLaneIdentification', { name: '道', number: 'X3', lane_number: 1 }, '通道编号：必须是文本'],
        ['carMountedFacialRecognition', { name: '车', number: 'X4', plate: 12345 }, '车牌号：必须是文本'],
      ];
      for (const [kind, body, msg] of cases) {
        const r = await admin.post(`/equipment/${kind}/save`, body);
        expect(r.status, msg).toBe(400);
        expect(r.body.msg).toBe(msg);
      }
    });

    it('keeps each kind to its own rows and codes', async () => {
      const gate = (await admin.post<Page<EquipmentRow>>('/equipment/gate/list', { size: 1, pn: 1 })).body.data.list[0]!;
      // Another kind's path does not reach a gate.
      expect((await admin.get(`/equipment/truckScales/detail?id=${gate.id}`)).status).toBe(404);
      expect((await admin.post('/equipment/truckScales/delete', { id: gate.id })).status).toBe(404);
      // The security lead reads devices but does not edit them; a patrol does not read them.
      expect((await lead.post('/equipment/gate/list', {})).status).toBe(200);
      expect((await lead.get(`/equipment/gate/detail?id=${gate.id}`)).status).toBe(200);
      expect((await lead.post('/equipment/gate/delete', { id: gate.id })).status).toBe(403);
      expect((await patrol.post('/equipment/gate/list', {})).status).toBe(403);
      expect((await patrol.get(`/equipment/gate/detail?id=${gate.id}`)).status).toBe(403);
    });
  });
}
