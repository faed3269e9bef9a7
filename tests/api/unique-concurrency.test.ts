import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializePath } from '../../domain/schemas/driving-route';
import type { Reply } from './harness';
import { Client, dialects, startServer, type TestServer } from './harness';
import { uniqueLiveNames } from '../../server/db/migrations/030-unique-live-names';

/**
 * A declared `unique` (server/core/resource.ts) holds under concurrency:
 * eight saves of one value at once give one row and seven 409s with the
 * check's own message, on both databases, for every register that declares
 * one. Before migration 030 PostgreSQL stored all eight route names (the
 * check runs before the insert's transaction, and nothing else refused them).
 */

const AT_ONCE = 8;
const PATH = serializePath([
  [22.7391, 114.5083],
  [22.745, 114.514],
]);

type Case = { register: string; table: string; column: string; value: string; message: string; save: (admin: Client, i: number) => Promise<Reply> };

const cases = (dialect: string): Case[] => {
  const tag = dialect === 'postgres' ? 'PG' : 'SQ';
  return [
    {
      register: '用户 account',
      table: 'sys_user',
      column: 'account',
      value: `race${tag}`,
      message: `账号“race${tag}”已存在`,
      save: async (admin, i) =>
        admin.post('/user/save', { content: await admin.encrypt({ userName: `并发${i}`, account: `race${tag}`, password: 'Secret9Word', gender: 0, phone: '13900000001', departId: 1 }) }),
    },
    {
      register: '角色 code',
      table: 'sys_role',
      column: 'code',
      value: `RACE_ROLE_${tag}`,
      message: `唯一编码“RACE_ROLE_${tag}”已存在`,
      save: (admin, i) => admin.post('/role/save', { name: `并发角色${i}`, code: `RACE_ROLE_${tag}`, remark: '' }),
    },
    {
      register: '部门 code',
      table: 'sys_department',
      column: 'code',
      value: `RACE_DEPT_${tag}`,
      message: `部门编码“RACE_DEPT_${tag}”已存在`,
      save: (admin, i) => admin.post('/depart/save', { name: `并发部门${i}`, code: `RACE_DEPT_${tag}`, visit_area: 1, remark: '' }),
    },
    {
      register: '权限 code',
      table: 'sys_permission',
      column: 'code',
      value: `race:perm${tag}`,
      message: `权限编码“race:perm${tag}”已存在`,
      save: async (admin, i) => {
        const tree = (await admin.post<Array<{ permission_id: number; code: string }>>('/permission/all', {})).body.data;
        const system = tree.find((p) => p.code === 'dir:system')!.permission_id;
        return admin.post('/permission/save', { pid: system, name: `并发权限${i}`, code: `race:perm${tag}`, type: 2, remark: '' });
      },
    },
    {
      register: '车型 name',
      table: 'vehicle_type',
      column: 'name',
      value: `并发车型${tag}`,
      message: `车型名“并发车型${tag}”已存在`,
      save: (admin) => admin.post('/vehicleType/save', { name: `并发车型${tag}`, speed: 60, needRecord: 0, showCargoType: 0, checkOverweight: 0, needBlindVideo: 0 }),
    },
    {
      // Unique across the seven kinds: half the saves are gates, half bumping posts.
      register: '设备 number (across kinds)',
      table: 'equipment',
      column: 'number',
      value: `RACE-${tag}`,
      message: `设备编号“RACE-${tag}”已存在`,
      save: (admin, i) =>
        i % 2
          ? admin.post('/equipment/bumpingPost/save', { name: `并发防撞柱${i}`, number: `RACE-${tag}`, longitude: null, latitude: null })
          : admin.post('/equipment/gate/save', { name: `并发道闸${i}`, number: `RACE-${tag}`, type: 1, entrances_type: 1, is_security_check: 0, temporary_reservation: 0 }),
    },
    {
      register: '行车路线 name',
      table: 'driving_route',
      column: 'name',
      value: `并发路线${tag}`,
      message: `路线名称“并发路线${tag}”已存在`,
      save: (admin) => admin.post('/drivingRoute/save', { name: `并发路线${tag}`, publish: 0, path: PATH }),
    },
  ];
};

for (const dialect of await dialects()) {
  describe(`unique values under concurrency (${dialect})`, () => {
    let server: TestServer;
    let admin: Client;
    const live = async (table: string, column: string, value: string) =>
      Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)} where ${sql.ref(column)} = ${value} and deleted = 0`.execute(server.app.ctx.db)).rows[0]!.n);

    beforeAll(async () => {
      server = await startServer(dialect);
      admin = await new Client(server).as('admin');
    });
    afterAll(async () => server?.close());

    for (const c of cases(dialect)) {
      it(`${c.register}: ${AT_ONCE} saves at once store one row; the others answer 409 with the check's message`, async () => {
        const answers = await Promise.all(Array.from({ length: AT_ONCE }, (_, i) => c.save(admin, i)));
        const ok = answers.filter((a) => a.status === 200);
        const refused = answers.filter((a) => a.status !== 200);
        expect(ok, JSON.stringify(answers.map((a) => [a.status, a.body.msg]))).toHaveLength(1);
        for (const r of refused) expect({ status: r.status, code: r.body.code, msg: r.body.msg }).toEqual({ status: 409, code: 1007, msg: c.message });
        expect(await live(c.table, c.column, c.value)).toBe(1);
      });
    }

    it(`行车路线 name: ${AT_ONCE} edits at once renaming ${AT_ONCE} routes to one name leave one route of that name`, async () => {
      const ids: number[] = [];
      for (let i = 0; i < AT_ONCE; i++) {
        const r = await admin.post<{ id: number }>('/drivingRoute/save', { name: `改名前${dialect}${i}`, publish: 0, path: PATH });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        ids.push(r.body.data.id);
      }
      const name = `改名并发${dialect}`;
      const answers = await Promise.all(ids.map((id) => admin.post('/drivingRoute/update', { id, name, publish: 0, path: PATH })));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      for (const r of answers.filter((a) => a.status !== 200)) expect({ status: r.status, msg: r.body.msg }).toEqual({ status: 409, msg: `路线名称“${name}”已存在` });
      expect(await live('driving_route', 'name', name)).toBe(1);
    });

    it('migration 030 renames later live routes of one name, logs each rename, then holds the name unique', async () => {
      const { db } = server.app.ctx;
      await sql`drop index driving_route_name_live`.execute(db);
      const now = server.app.ctx.time();
      const base = { publish: 0, path: PATH, location_id: '', create_time: now, update_time: now, deleted: 0 };
      const long = '长'.repeat(50);
      const rows = await db
        .insertInto('driving_route')
        .values([
          { ...base, name: '重名路线' },
          { ...base, name: '重名路线' },
          { ...base, name: '重名路线', deleted: 1 },
          { ...base, name: '重名路线' },
          { ...base, name: long },
          { ...base, name: long },
        ])
        .returning('id')
        .execute();
      const [first, second, deleted, third, longFirst, longSecond] = rows.map((r) => r.id);
      await uniqueLiveNames().up(db);
      const names = new Map(
        (
          await db
            .selectFrom('driving_route')
            .select(['id', 'name'])
            .where(
              'id',
              'in',
              rows.map((r) => r.id),
            )
            .execute()
        ).map((r) => [r.id, r.name]),
      );
      expect(names.get(first!)).toBe('重名路线');
      expect(names.get(second!)).toBe(`重名路线（重复${second}）`);
      expect(names.get(deleted!)).toBe('重名路线');
      expect(names.get(third!)).toBe(`重名路线（重复${third}）`);
      expect(names.get(longFirst!)).toBe(long);
      const shortened = names.get(longSecond!)!;
      expect([...shortened]).toHaveLength(50);
      expect(shortened.endsWith(`（重复${longSecond}）`)).toBe(true);
      const logged = await db.selectFrom('sys_operation_log').select(['operation', 'params']).where('operation', '=', '行车路线重名处理').execute();
      expect(logged.map((l) => JSON.parse(l.params).id).sort((a: number, b: number) => a - b)).toEqual([second, third, longSecond]);
      const again = await admin.post('/drivingRoute/save', { name: '重名路线', publish: 0, path: PATH });
      expect(again.status).toBe(409);
      await expect(
        db
          .insertInto('driving_route')
          .values({ ...base, name: '重名路线' })
          .execute(),
      ).rejects.toThrow();
    });
  });
}
