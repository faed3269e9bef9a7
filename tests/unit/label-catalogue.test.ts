import { describe, expect, it } from 'vitest';
import { vehicleTypeApi, vehicleTypeLabels } from '../../domain/schemas/vehicle-type';
import { exportHeader } from '../../server/modules/appointments/export';
import { kindList } from '../../server/modules/appointments/kinds';
import { defineScreen } from '../../src/list-screen/types';

describe('one label catalogue per entity', () => {
  it('names each export column from the kind catalogue unless the spec names it otherwise', () => {
    for (const k of kindList) {
      const headers = k.exportColumns.map((c) => exportHeader(k, c));
      expect(headers.every((h) => h.length > 0)).toBe(true);
      expect(headers).toContain('来访单位');
    }
    const car = kindList.find((k) => k.kind === 'car')!;
    expect(car.exportColumns.map((c) => exportHeader(car, c)).slice(0, 3)).toEqual(['预约单号', '车牌号', '车牌颜色']);
    // The id card column reads 证件号码 (an ID of the chosen type), as in the form and the detail.
    expect(car.exportColumns.map((c) => exportHeader(car, c))).toContain('证件号码');
  });

  it('fills a screen field label from the catalogue, by name then by dataIndex, and keeps an explicit one', () => {
    const def = defineScreen<{ id: number; create_time: string; speed: number }>({
      key: 't',
      title: 't',
      labels: vehicleTypeLabels,
      list: { path: vehicleTypeApi.calls.list },
      rowKey: 'id',
      fields: [
        { name: 'name', kind: 'text' },
        { name: 'createTime', kind: 'text', dataIndex: 'create_time' },
        { name: 'speed', label: '车速(km/h)', kind: 'number' },
      ],
    });
    expect(def.fields.map((f) => f.label)).toEqual(['车型名', '创建时间', '车速(km/h)']);
  });

  it('refuses a field that has no label anywhere', () => {
    expect(() => defineScreen({ key: 't', title: 't', list: { path: vehicleTypeApi.calls.list }, rowKey: 'id', fields: [{ name: 'mystery', kind: 'text' }] })).toThrow(/mystery/);
  });
});
