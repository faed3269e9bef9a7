import { maskIdNumber } from '../../domain/personal-data';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppState } from '../../domain/appointments';
import { importPassPublicKey, signPass, verifyPass, type IssuedPass, type PassLookup, type PassPublicKey } from '../../domain/pass';
import { addDays, dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import { loadPassKeys } from '../../server/modules/passes';
import { Client, dialects, startServer, type Reply, type TestServer } from './harness';

type Row = Record<string, any>;

/** Visit passes and the scan lookup through the HTTP API on each dialect, over the seeded demo park. */
for (const dialect of await dialects()) {
  describe(`passes (${dialect})`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let contact: Client, portcontact: Client, reviewer: Client, squad: Client, patrol: Client, hazard: Client, norole: Client, anon: Client;
    let today = '';
    const car: Record<string, Row> = {};
    const person: Record<string, Row> = {};

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      today = dateOf(ctx.time());
      [contact, portcontact, reviewer, squad, patrol, hazard, norole] = await Promise.all(
        ['contact', 'portcontact', 'reviewer', 'squad', 'patrol', 'hazard', 'norole'].map((a) => new Client(server).as(a)),
      );
      anon = new Client(server);
      for (const r of await ctx.db.selectFrom('car_application').selectAll().execute()) car[r.license_plate] = r;
      for (const r of await ctx.db.selectFrom('person_application').selectAll().execute()) person[r.visitor_name] = r;
    });
    afterAll(async () => server?.close());

    const carPass = (who: Client, plate: string) => who.get<IssuedPass>(`/carApplications/pass?id=${car[plate].car_application_id}`);
    const personPass = (who: Client, name: string) => who.get<IssuedPass>(`/personApplications/pass?id=${person[name].person_application_id}`);
    const lookup = (who: Client, q: Record<string, string>) => who.get<PassLookup>(`/pass/lookup?${new URLSearchParams(q)}`);
    const expectFail = (r: Reply, status: number, msg?: string | RegExp) => {
      expect(r.status, JSON.stringify(r.body)).toBe(status);
      expect(r.body.success).toBe(false);
      if (typeof msg === 'string') expect(r.body.msg).toBe(msg);
      else if (msg) expect(r.body.msg).toMatch(msg);
    };

    it('seeds what these tests read', () => {
      expect(car['粤LU1856']).toMatchObject({ state: AppState.APPROVED, label_status: 1 });
      expect(car['粤LD1208'].state).toBe(AppState.REVIEW);
      expect(car['粤L3K5Q8'].state).toBe(AppState.DRAFT);
      expect(car['粤LV2048'].state).toBe(AppState.REJECTED);
      expect(car['粤LZ6734'].state).toBe(AppState.REVOKED);
      expect(person['周明远'].state).toBe(AppState.APPROVED);
    });

    it('issues a signed vehicle pass to the applicant that verifies with the published key', async () => {
      const r = await carPass(contact, '粤LU1856');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const { pass, payload, validity } = r.body.data;
      const row = car['粤LU1856'];
      expect(payload).toMatchObject({ number: row.application_number, kind: 'car', plate: '粤LU1856', plateColor: row.license_plate_color, begin: row.visitor_begin_time, end: row.visitor_end_time });
      expect(payload.issuedAt.slice(0, 10)).toBe(today);
      // The seeded visit starts days from now.
      expect(validity).toBe('not-yet');

      const key = await patrol.get<PassPublicKey>('/pass/publicKey');
      expect(key.status).toBe(200);
      expect(key.body.data).toMatchObject({ alg: 'ES256', kid: payload.kid });
      const verify = { kid: key.body.data.kid, key: await importPassPublicKey(key.body.data.publicKey) };
      const inside = await verifyPass(pass, verify, `${dateOf(row.visitor_begin_time)} 12:00:00`);
      expect(inside).toMatchObject({ status: 'valid', payload });
      expect((await verifyPass(pass, verify, `${addDays(dateOf(row.visitor_end_time), 1)} 00:00:01`)).status).toBe('expired');
    });

    it('issues a person pass with the name and a masked ID number', async () => {
      const r = await personPass(contact, '周明远');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const idcard: string = person['周明远'].visitor_idcard;
      expect(r.body.data.payload).toMatchObject({ kind: 'person', name: '周明远', idMasked: maskIdNumber(idcard) });
      expect(r.body.data.pass).not.toContain(idcard);
      expect(Buffer.from(r.body.data.pass.split('.')[1], 'base64url').toString('utf8')).not.toContain(idcard);
    });

    it('keeps the signing key across restarts of the plugin (one row in sys_setting)', async () => {
      const a = await loadPassKeys(ctx.db);
      const b = await loadPassKeys(ctx.db);
      expect(a.kid).toBe(b.kid);
      expect(a.publicKey).toBe(b.publicKey);
      const rows = await ctx.db.selectFrom('sys_setting').select('key').where('key', 'like', 'pass%').execute();
      expect(rows).toHaveLength(1);
    });

    it('gives passes to the applicant and history readers only; others read 404, no role 403, no session 401', async () => {
      // reviewer: department history of 中海壳牌, which every seeded application visits; squad: all-history.
      for (const who of [contact, reviewer, squad]) {
        expect((await carPass(who, '粤LU1856')).status).toBe(200);
        expect((await personPass(who, '周明远')).status).toBe(200);
      }
      // hazard and patrol read all vehicle history but no person history.
      expect((await carPass(hazard, '粤LU1856')).status).toBe(200);
      expectFail(await personPass(hazard, '周明远'), 404, '人员预约不存在或已被删除');
      expectFail(await personPass(patrol, '周明远'), 404, '人员预约不存在或已被删除');
      // portcontact's history is of 惠州港务, which these applications do not visit.
      expectFail(await carPass(portcontact, '粤LU1856'), 404, '车辆预约不存在或已被删除');
      expectFail(await carPass(norole, '粤LU1856'), 403);
      expectFail(await carPass(anon, '粤LU1856'), 401);
      expectFail(await anon.get('/pass/publicKey'), 401);
      expectFail(await contact.get('/carApplications/pass?id=99999999'), 404, '车辆预约不存在或已被删除');
      expectFail(await contact.get('/carApplications/pass?id=abc'), 400);
    });

    it('refuses a pass in any state but approved, naming the state', async () => {
      for (const [plate, label] of [
        ['粤L3K5Q8', '草稿'],
        ['粤LD1208', '审核中'],
        ['粤LV2048', '已驳回'],
        ['粤LZ6734', '已撤销'],
      ] as const) {
        expectFail(await carPass(squad, plate), 409, `当前状态为“${label}”，只有“审核通过”的预约才有通行码`);
      }
    });

    it('refuses a pass once the visit has ended', async () => {
      const row = car['粤LC9450'];
      expect(row.state).toBe(AppState.APPROVED);
      const end = `${addDays(today, -1)} 23:59:59`;
      await ctx.db
        .updateTable('car_application')
        .set({ visitor_begin_time: `${addDays(today, -3)} 00:00:00`, visitor_end_time: end })
        .where('car_application_id', '=', row.car_application_id)
        .execute();
      try {
        expectFail(await carPass(squad, '粤LC9450'), 409, `该预约已于${end}过期，不再签发通行码`);
      } finally {
        await ctx.db
          .updateTable('car_application')
          .set({ visitor_begin_time: row.visitor_begin_time, visitor_end_time: row.visitor_end_time })
          .where('car_application_id', '=', row.car_application_id)
          .execute();
      }
    });

    // ------------------------------------------------------------------ lookup

    it('looks a pass up: the application, its validity and the vehicle flags', async () => {
      const { pass } = (await carPass(contact, '粤LU1856')).body.data;
      const r = await lookup(patrol, { pass });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const d = r.body.data;
      expect(d.pass?.status).toBe('not-yet');
      expect(d.subject).toEqual({ kind: 'car', license_plate: '粤LU1856' });
      expect(d.application).toMatchObject({ kind: 'car', application_number: car['粤LU1856'].application_number, state: AppState.APPROVED, validity: 'not-yet', label_status: 1 });
      expect(d.flags.length).toBeGreaterThanOrEqual(1);
      expect(d.flags[0]).toMatchObject({ remark: '在厂区限速路段超速行驶，已现场提醒', color_id: 2, create_user_name: '张伟' });
      expect(d.lists).toEqual([]);
      // The applicant's ID number is masked for the patrol.
      expect(d.application!.idcard_masked).toMatch(/^\d{4}\*{10}[\dX]{4}$/);
    });

    it('reads a tampered pass as forged and reveals nothing it names', async () => {
      const { pass } = (await carPass(contact, '粤LU1856')).body.data;
      const [prefix, body, sig] = pass.split('.');
      const json = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Row;
      const altered = Buffer.from(JSON.stringify({ ...json, e: '2099-12-31 23:59:59' })).toString('base64url');
      const r = await lookup(patrol, { pass: `${prefix}.${altered}.${sig}` });
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ pass: { status: 'forged' }, subject: null, application: null, flags: [], lists: [] });
      expect(r.body.data.pass?.payload).toBeUndefined();
      expectFail(await lookup(patrol, { pass: 'https://example.com/not-a-pass' }), 400, '扫描的内容不是园区通行码，无法识别');
    });

    it('reads a genuine pass past its end as expired, and shows what has changed since it was issued', async () => {
      const keys = await loadPassKeys(ctx.db);
      const row = car['粤LT7394'];
      const old = await signPass(
        {
          number: row.application_number,
          kind: 'car',
          plate: row.license_plate,
          begin: `${addDays(today, -5)} 00:00:00`,
          end: `${addDays(today, -2)} 23:59:59`,
          issuedAt: `${addDays(today, -6)} 10:00:00`,
          kid: keys.kid,
        },
        keys.privateKey,
      );
      expect((await lookup(patrol, { pass: old })).body.data.pass?.status).toBe('expired');

      // Revoked after the pass was issued: the signature still holds, the park says otherwise.
      const { pass } = (await carPass(contact, '粤LT7394')).body.data;
      await ctx.db.updateTable('car_application').set({ state: AppState.REVOKED }).where('car_application_id', '=', row.car_application_id).execute();
      try {
        const d = (await lookup(patrol, { pass })).body.data;
        expect(d.pass?.status).toBe('not-yet');
        expect(d.application).toMatchObject({ application_number: row.application_number, state: AppState.REVOKED });
      } finally {
        await ctx.db.updateTable('car_application').set({ state: row.state }).where('car_application_id', '=', row.car_application_id).execute();
      }
    });

    it('looks a plate up with its black and white list entries in force', async () => {
      const black = (await lookup(patrol, { license_plate: '粤l7b359' })).body.data;
      expect(black.subject).toEqual({ kind: 'car', license_plate: '粤L7B359' });
      expect(black.lists).toEqual([expect.objectContaining({ type: 1, in_reason: '多次在厂区内违规停放且拒不配合安保检查' })]);
      // Its only application is a draft, which says nothing at a gate.
      expect(black.applications).toEqual([]);
      expect(black.application).toBeNull();

      const now = ctx.time();
      const base = { license_plate: '粤LS6623', vehicle_type_id: car['粤LS6623'].vehicle_type_id, status: 2, create_time: now, update_time: now };
      await ctx.db
        .insertInto('car_black_white_list')
        .values([
          { ...base, type: 2, in_reason: '长期合作单位车辆', start_time: `${addDays(today, -1)} 00:00:00`, end_time: null },
          // Not in force: expired yesterday, withdrawn, or deleted.
          { ...base, type: 1, in_reason: '已过期', start_time: null, end_time: `${addDays(today, -1)} 23:59:59` },
          { ...base, type: 1, in_reason: '已撤销', start_time: null, end_time: null, status: 4 },
        ])
        .execute();
      const white = (await lookup(patrol, { license_plate: '粤LS6623' })).body.data;
      expect(white.lists).toEqual([expect.objectContaining({ type: 2, in_reason: '长期合作单位车辆', end_time: null })]);
      expect(white.application).toMatchObject({ license_plate: '粤LS6623', state: AppState.APPROVED, is_delayed: 1 });
      expect(white.flags).toEqual([]);

      // A plate the park has never seen: an empty answer, not an error.
      const unknown = (await lookup(patrol, { license_plate: '京A12345' })).body.data;
      expect(unknown).toMatchObject({ subject: { kind: 'car', license_plate: '京A12345' }, application: null, applications: [], lists: [], flags: [] });
    });

    it('looks an ID number up: the person, their application and list status, masked', async () => {
      const row = person['周明远'];
      const now = ctx.time();
      await ctx.db
        .insertInto('person_black_white_list')
        .values({ name: '周明远', idcard: row.visitor_idcard, type: 1, start_time: null, end_time: null, status: 2, in_reason: '曾在装置区吸烟', create_time: now, update_time: now })
        .execute();
      const d = (await lookup(patrol, { idcard: row.visitor_idcard.toLowerCase() })).body.data;
      expect(d.subject).toEqual({ kind: 'person', name: '周明远', idcard_masked: maskIdNumber(row.visitor_idcard) });
      expect(d.application).toMatchObject({ kind: 'person', application_number: row.application_number, state: AppState.APPROVED });
      expect(d.lists).toEqual([expect.objectContaining({ type: 1, in_reason: '曾在装置区吸烟' })]);
      expect(JSON.stringify(d)).not.toContain(row.visitor_idcard);

      // And through the person's pass.
      const { pass } = (await personPass(contact, '周明远')).body.data;
      const byPass = (await lookup(patrol, { pass })).body.data;
      expect(byPass.subject).toMatchObject({ kind: 'person', name: '周明远' });
      expect(byPass.lists).toHaveLength(1);
    });

    it('validates the lookup input with messages naming the field', async () => {
      expectFail(await lookup(patrol, {}), 400, '请提供通行码、车牌号或证件号码中的一项');
      expectFail(await lookup(patrol, { license_plate: 'ABC123' }), 400, '车牌号格式不正确');
      expectFail(await lookup(patrol, { idcard: '440303198706191019' }), 400, '证件号码格式不正确（身份证号，或其他证件的 5-30 位字母数字）');
      expectFail(await lookup(patrol, { idcard: 'E-1' }), 400, '证件号码格式不正确（身份证号，或其他证件的 5-30 位字母数字）');
      expectFail(await lookup(patrol, { license_plate: '粤LS6623', idcard: person['周明远'].visitor_idcard }), 400, '请提供通行码、车牌号或证件号码中的一项');
    });

    it('lets patrols, security leads and admins look up; others get 403 naming the code', async () => {
      for (const account of ['lead', 'admin']) {
        const c = await new Client(server).as(account);
        expect((await lookup(c, { license_plate: '粤LU1856' })).status).toBe(200);
      }
      for (const who of [contact, reviewer, squad]) {
        const r = await lookup(who, { license_plate: '粤LU1856' });
        expectFail(r, 403);
        expect(r.body.msg).toContain('carMark:list');
      }
      expectFail(await lookup(anon, { license_plate: '粤LU1856' }), 401);
    });
  });
}
