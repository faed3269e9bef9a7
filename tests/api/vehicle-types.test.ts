import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '../../domain/envelope';
import type { VehicleTypeRow } from '../../domain/schemas/vehicle-type';
import { Client, dialects, startServer, type TestServer } from './harness';

for (const dialect of await dialects()) {
  describe(`vehicle models on ${dialect}`, () => {
    let server: TestServer;
    let admin: Client;
    beforeAll(async () => {
      server = await startServer(dialect);
      admin = await new Client(server).as('admin');
    });
    afterAll(async () => server?.close());
    const valid = { name: '测试车型', speed: 60, needRecord: 0, showCargoType: 1, checkOverweight: 0, needBlindVideo: 1 };

    it('seeds the seven demo models with fitting flags', async () => {
      const r = await admin.post<Page<VehicleTypeRow>>('/vehicleType/page', { size: Number.MAX_SAFE_INTEGER, pn: 1 });
      const byName = new Map(r.body.data.list.map((v) => [v.name, v]));
      for (const n of ['小型汽车', '重型自卸货车', '中型客车', '大型客车', '危险化学品运输车', '混凝土搅拌车', '普通货车']) expect(byName.has(n), n).toBe(true);
      expect(byName.get('危险化学品运输车')).toMatchObject({ show_cargo_type: 1, need_record: 1 });
      expect(byName.get('小型汽车')).toMatchObject({ show_cargo_type: 0, need_blind_video: 0 });
    });

    it('validates every field with the spec message', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ name: '' }, '请输入车型名'],
        [{ name: '车'.repeat(31) }, '车型名：不能超过30个文字'],
        [{ speed: undefined }, '请输入车速'],
        [{ speed: 301 }, '车速范围为0-300 km/h'],
        [{ speed: -1 }, '车速范围为0-300 km/h'],
        [{ needRecord: 2 }, '请选择预约是否需要备案'],
        [{ showCargoType: undefined }, '请选择页面是否显示货物类型'],
        [{ checkOverweight: 'x' }, '请选择是否需要判断超重'],
        [{ needBlindVideo: null }, '请选择页面是否需要上传盲区视频监控图片'],
      ];
      for (const [patch, msg] of cases) {
        const r = await admin.post('/vehicleType/save', { ...valid, ...patch });
        expect(r.status, msg).toBe(400);
        expect(r.body).toMatchObject({ success: false, code: 1001, msg });
        expect((r.body.data as { errors: Array<{ field: string }> }).errors[0].field).toBe(Object.keys(patch)[0]);
      }
      const edge = await admin.post('/vehicleType/save', { ...valid, name: '限速边界', speed: 300 });
      expect(edge.status).toBe(200);
    });

    it('creates, reads, edits and deletes, and keeps names unique', async () => {
      const c = await admin.post<{ id: number }>('/vehicleType/save', valid);
      expect(c.body.msg).toBe('创建车型成功！');
      const id = c.body.data.id;
      expect((await admin.post('/vehicleType/save', valid)).status).toBe(409);
      const got = await admin.post<VehicleTypeRow>('/vehicleType/get', { id });
      expect(got.body.data).toMatchObject({ name: '测试车型', speed: 60, show_cargo_type: 1, need_blind_video: 1 });
      const e = await admin.post('/vehicleType/update', { ...valid, id, name: '测试车型二', speed: '80' });
      expect(e.body.msg).toBe('编辑车型成功！');
      expect((await admin.post<VehicleTypeRow>('/vehicleType/get', { id })).body.data).toMatchObject({ name: '测试车型二', speed: 80 });
      const found = await admin.post<Page<VehicleTypeRow>>('/vehicleType/page', { size: 10, pn: 1, name: '测试车型' });
      expect(found.body.data.list.map((v) => v.name)).toEqual(['测试车型二']);
      expect((await admin.post('/vehicleType/delete', { id })).body.msg).toBe('删除成功！');
      expect((await admin.post('/vehicleType/get', { id })).status).toBe(404);
      expect((await admin.post('/vehicleType/delete', { id })).status).toBe(404);
      expect((await admin.post('/vehicleType/save', valid)).status).toBe(200);
    });

    it('keeps a dwell limit for stranded detection, empty meaning the visit end', async () => {
      for (const bad of [0, -5, 1.5, 10081, 'abc']) {
        const r = await admin.post('/vehicleType/save', { ...valid, name: '停留限制', dwellLimitMinutes: bad });
        expect(r.status, String(bad)).toBe(400);
        expect(r.body.msg).toBe('停留时限范围为1-10080分钟');
        expect((r.body.data as { errors: Array<{ field: string }> }).errors[0].field).toBe('dwellLimitMinutes');
      }
      const c = await admin.post<{ id: number }>('/vehicleType/save', { ...valid, name: '停留限制', dwellLimitMinutes: '45' });
      const id = c.body.data.id;
      expect((await admin.post<VehicleTypeRow>('/vehicleType/get', { id })).body.data.dwell_limit_minutes).toBe(45);
      await admin.post('/vehicleType/update', { ...valid, id, name: '停留限制', dwellLimitMinutes: '' });
      expect((await admin.post<VehicleTypeRow>('/vehicleType/get', { id })).body.data.dwell_limit_minutes).toBeNull();
      // A client that never heard of the setting leaves it empty rather than failing.
      const old = await admin.post<{ id: number }>('/vehicleType/save', { ...valid, name: '旧客户端车型' });
      expect((await admin.post<VehicleTypeRow>('/vehicleType/get', { id: old.body.data.id })).body.data.dwell_limit_minutes).toBeNull();
    });

    it('lets an enterprise contact read models but not change them', async () => {
      const c = await new Client(server).as('contact');
      expect((await c.post('/vehicleType/page', {})).status).toBe(200);
      const r = await c.post('/vehicleType/save', { ...valid, name: '越权' });
      expect(r.status).toBe(403);
      expect(r.body.msg).toBe('没有操作权限：缺少权限 modal:add（新增车型）');
    });
  });
}
