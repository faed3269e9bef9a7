import { gunzipSync } from 'node:zlib';
import { compactVerify, decodeProtectedHeader, importJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppState } from '../../domain/appointments';
import { ALLOWLIST_TYPE, LIST_EXPIRED, applyDelta, decideOffline, importSubjectKey, indexAllowlist, subjectHash, type Allowlist, type OfflineList, type SubjectKind } from '../../domain/offline-gate';
import { addMinutes, formatInZone } from '../../domain/time';
import { RoutePublish, serializePath } from '../../domain/schemas/driving-route';
import { addDays, dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import { allowlistService, loadAllowlistKeys } from '../../server/modules/devices/allowlist';
import { allowlistRecordsCounts } from '../../server/ops/metrics';
import { carVisitRow, idNumber, registerPlate } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

type Decision = { allow: boolean; reason: string; application_number?: string; valid_until?: string; list_type?: number };
type KeyAnswer = { alg: 'ES256'; kid: string; jwk: { kty: 'EC'; crv: 'P-256'; x: string; y: string } };

/** A small seeded PRNG (mulberry32): the same cases on every run. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)), pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]! };
}

const CASES = 120;

/** The offline gate's allow-list (docs/offline-gates.md) through HTTP, on each dialect. */
for (const dialect of await dialects()) {
  describe(`offline allow-list on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let admin: Client;
    const gate = { id: 0, number: 'GATE-W-01', key: '', hmac: '' };
    let subjectKey: object;
    let verifyKey: Awaited<ReturnType<typeof importJWK>>;
    let keyAnswer: KeyAnswer;
    const model: Record<string, number> = {};
    let depart = 0;
    let routeGates: Record<string, number[]> = {};
    let seq = 0;
    const tag = dialect === 'sqlite' ? 'S' : 'P';

    const auth = () => `Device ${gate.number}:${gate.key}`;
    async function fetchRaw(query = '', authorization = auth()) {
      const r = await fetch(`${server.base}/api/device/allowlist${query}`, { headers: { authorization } });
      return { status: r.status, type: r.headers.get('content-type') ?? '', text: await r.text() };
    }
    async function open(jws: string): Promise<Allowlist> {
      const { payload } = await compactVerify(jws, verifyKey, { algorithms: ['ES256'] });
      return JSON.parse(gunzipSync(payload).toString('utf8')) as Allowlist;
    }
    async function fetchList(since?: number): Promise<{ list: Allowlist; jws: string }> {
      const r = await fetchRaw(since === undefined ? '' : `?since=${since}`);
      expect(r.status, r.text.slice(0, 300)).toBe(200);
      return { list: await open(r.text), jws: r.text };
    }
    async function access(kind: SubjectKind, subject: string, direction = 1): Promise<Decision> {
      const r = await fetch(`${server.base}/api/device/access`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: auth() },
        body: JSON.stringify({ direction, ...(kind === 'car' ? { license_plate: subject } : { idcard: subject }) }),
      });
      const body = (await r.json()) as { data: Decision };
      expect(r.status, JSON.stringify(body)).toBe(200);
      return body.data;
    }
    const at = (minutes: number) => formatInZone(ctx.now() + minutes * 60_000, ctx.config.tz);
    const stamp = () => ({ create_time: ctx.time(), update_time: ctx.time() });

    async function carVisit(plate: string, begin: string, end: string, modelName = '小型汽车', state: number = AppState.APPROVED) {
      const n = ++seq;
      return (
        await ctx.db
          .insertInto('car_application')
          .values(
            carVisitRow({
              application_number: `CA-AL-${tag}-${n}`,
              state,
              license_plate: plate,
              vehicle_type_id: model[modelName]!,
              applicant_idcard: idNumber(n, '07'),
              begin,
              end,
              interviewee_depart_id: depart,
              time: ctx.time(),
            }),
          )
          .returning('car_application_id as id')
          .executeTakeFirstOrThrow()
      ).id;
    }
    async function personVisit(idcard: string, begin: string, end: string, state: number = AppState.APPROVED) {
      const n = ++seq;
      return (
        await ctx.db
          .insertInto('person_application')
          .values({
            application_number: `PA-AL-${tag}-${n}`,
            state,
            process_instance_id: null,
            visitor_name: '测试访客',
            visitor_gender: 1,
            visitor_phone: '13812345678',
            visitor_company: '惠州测试有限公司',
            visitor_type: 4,
            visitor_idcard_type: 1,
            visitor_idcard: idcard,
            visit_content: '设备验收',
            visit_begin_time: begin,
            visit_end_time: end,
            visit_area: 1,
            interviewee_name: '李强',
            interviewee_phone: '13800000003',
            interviewee_depart_id: depart,
            create_user_id: 1,
            ...stamp(),
          })
          .returning('person_application_id as id')
          .executeTakeFirstOrThrow()
      ).id;
    }
    async function listEntry(kind: SubjectKind, subject: string, type: 1 | 2, start: string | null, end: string | null) {
      const common = {
        type,
        start_time: start,
        end_time: end,
        status: 2,
        in_reason: type === 1 ? '多次违规驾驶' : '长期合作单位',
        process_instance_id: null,
        create_user_id: null,
        update_user_id: null,
        ...stamp(),
      };
      if (kind === 'car')
        return (
          await ctx.db
            .insertInto('car_black_white_list')
            .values({ license_plate: subject, vehicle_type_id: null, ...common })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id;
      return (
        await ctx.db
          .insertInto('person_black_white_list')
          .values({ name: '测试人员', gender: null, idcard_type: 1, idcard: subject, ...common })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    }
    async function mark(plate: string) {
      return (
        await ctx.db
          .insertInto('vehicle_mark')
          .values({
            car_application_id: null,
            license_plate: plate,
            vehicle_type_id: null,
            remark: '违规倾倒',
            color_id: 1,
            label_type_id: 1,
            alarm_id: 1,
            status: 1,
            create_user_id: null,
            update_user_id: null,
            ...stamp(),
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    }
    async function waybill(plate: string, day: string) {
      await ctx.db
        .insertInto('transport_list')
        .values({
          application_number: `TL-AL-${tag}-${++seq}`,
          transport_type: 2,
          list_number: `WB${tag}${seq}`,
          cargo_quantity: 20,
          license_plate: plate,
          license_plate_color: 1,
          tank_volume: null,
          shipment_date: day,
          state: 2,
          process_instance_id: null,
          create_user_id: null,
          update_user_id: null,
          ...stamp(),
        })
        .execute();
    }
    const hashOf = (kind: SubjectKind, subject: string) => subjectHash(subjectKey, kind, subject);

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      admin = await new Client(server).as('admin');
      gate.id = (await ctx.db.selectFrom('equipment').select('id').where('number', '=', gate.number).executeTakeFirstOrThrow()).id;
      for (const m of await ctx.db.selectFrom('vehicle_type').select(['id', 'name']).execute()) model[m.name] = m.id;
      depart = (await ctx.db.selectFrom('sys_department').select('depart_id').where('code', '=', 'CNOOC_SHELL').executeTakeFirstOrThrow()).depart_id;
      // The department's published route through this gate: every list names it.
      const now = ctx.time();
      const point = await ctx.db.selectFrom('location').select('id').where('equipment_id', '=', gate.id).executeTakeFirstOrThrow();
      const route = await ctx.db
        .insertInto('driving_route')
        .values({
          name: `名单测试路线${tag}`,
          publish: RoutePublish.PUBLISHED,
          path: serializePath([
            [22.7391, 114.5083],
            [22.745, 114.514],
          ]),
          location_id: String(point.id),
          create_user_id: null,
          update_user_id: null,
          create_time: now,
          update_time: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await ctx.db.insertInto('driving_route_depart').values({ depart_id: depart, route_id: route.id, create_time: now }).execute();
      routeGates = { [String(route.id)]: [gate.id] };
      const issued = await admin.post<{ key: string; hmac_key: string }>('/equipment/gate/issueKey', { id: gate.id });
      expect(issued.body, JSON.stringify(issued.body)).toMatchObject({ success: true });
      gate.key = issued.body.data.key;
      gate.hmac = issued.body.data.hmac_key;
      subjectKey = await importSubjectKey(gate.hmac);
      const k = await fetch(`${server.base}/api/device/allowlistKey`, { headers: { authorization: auth() } });
      keyAnswer = ((await k.json()) as { data: KeyAnswer }).data;
      verifyKey = await importJWK(keyAnswer.jwk, 'ES256');
    });
    afterAll(async () => server?.close());

    it('gives the HMAC key only with a newly issued device key, a new one each time', async () => {
      expect(gate.hmac).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const other = (await ctx.db.selectFrom('equipment').select('id').where('number', '=', 'GATE-N-01').executeTakeFirstOrThrow()).id;
      const a = await admin.post<{ key: string; hmac_key: string }>('/equipment/gate/issueKey', { id: other });
      const b = await admin.post<{ key: string; hmac_key: string }>('/equipment/gate/issueKey', { id: other });
      expect(a.body.data.hmac_key).not.toBe(b.body.data.hmac_key);
      expect(a.body.data.hmac_key).not.toBe(gate.hmac);
      const row = await admin.post<{ list: Array<Record<string, unknown>> }>('/equipment/gate/list', { size: 50 });
      expect(JSON.stringify(row.body.data.list)).not.toContain(b.body.data.hmac_key);
    });

    it('signs the list (ES256, its key from allowlistKey) and names no plate or ID number in clear', async () => {
      expect(keyAnswer).toMatchObject({ alg: 'ES256', jwk: { kty: 'EC', crv: 'P-256' } });
      const plate = `粤Q${tag}0001`;
      const idcard = idNumber(9001, '07');
      await carVisit(plate, at(-60), at(600));
      await personVisit(idcard, at(-60), at(600));
      const r = await fetchRaw();
      expect(r.type).toContain('application/jose');
      expect(decodeProtectedHeader(r.text)).toMatchObject({ alg: 'ES256', typ: ALLOWLIST_TYPE, kid: keyAnswer.kid });
      const list = await open(r.text);
      expect(list).toMatchObject({ full: true, device: gate.id });
      const text = JSON.stringify(list);
      // Every plate and ID number the park holds, the demo's included: none appears in the payload.
      const plates = (await ctx.db.selectFrom('car_application').select('license_plate').execute()).map((x) => x.license_plate);
      const ids = (await ctx.db.selectFrom('person_application').select('visitor_idcard').execute()).map((x) => x.visitor_idcard);
      const listed = (await ctx.db.selectFrom('car_black_white_list').select('license_plate').execute()).map((x) => x.license_plate);
      for (const s of [...plates, ...ids, ...listed]) expect(text.includes(s), s).toBe(false);
      const held = indexAllowlist(list);
      expect(held.byHash.has(await hashOf('car', plate))).toBe(true);
      expect(held.byHash.has(await hashOf('person', idcard))).toBe(true);
      // An altered payload does not verify.
      const [h, p, s] = r.text.split('.');
      const flipped = `${h}.${p!.slice(0, -2)}${p!.slice(-2) === 'AA' ? 'AB' : 'AA'}.${s}`;
      await expect(compactVerify(flipped, verifyKey)).rejects.toThrow();
    });

    it('answers a delta of what changed since a version, the full list for none, a future or a pruned one', async () => {
      const base = (await fetchList()).list;
      const same = (await fetchList(base.v)).list;
      expect(same).toMatchObject({ full: false, since: base.v, v: base.v, entries: [], removed: [] });

      const plates = Array.from({ length: 10 }, (_, i) => `粤Q${tag}1${String(i).padStart(3, '0')}`);
      const ids: number[] = [];
      for (const p of plates) ids.push(await carVisit(p, at(-30), at(300)));
      const { list: delta, jws } = await fetchList(base.v);
      expect(delta.full).toBe(false);
      expect(delta.v).toBeGreaterThan(base.v);
      expect(delta.entries.map((e) => e.h).sort()).toEqual((await Promise.all(plates.map((p) => hashOf('car', p)))).sort());
      // docs/offline-gates.md: a delta of 10 changes fits in 2 KB.
      expect(jws.length).toBeLessThanOrEqual(2048);

      // A revocation: the entry is removed.
      await ctx.db.updateTable('car_application').set({ state: AppState.REVOKED }).where('car_application_id', '=', ids[0]!).execute();
      const revoked = (await fetchList(delta.v)).list;
      expect(revoked.removed).toEqual([await hashOf('car', plates[0]!)]);
      const held = applyDelta(applyDelta(indexAllowlist(base), delta)!, revoked)!;
      const full = indexAllowlist((await fetchList()).list);
      expect(new Map([...held.byHash].sort())).toEqual(new Map([...full.byHash].sort()));

      // A version this server never gave: the full list.
      expect((await fetchList(revoked.v + 1000)).list.full).toBe(true);
      // Past what the change log keeps: the full list.
      const { hi } = await ctx.db
        .selectFrom('allowlist_change')
        .select((eb) => eb.fn.max('id').as('hi'))
        .executeTakeFirstOrThrow();
      await ctx.db
        .deleteFrom('allowlist_change')
        .where('id', '<', Number(hi) - 2)
        .execute();
      expect((await fetchList(base.v)).list.full).toBe(true);
      expect((await fetchList(Number(hi) - 1)).list.full).toBe(false);
    });

    it('refuses bad input in Chinese, and callers without a device key', async () => {
      for (const since of ['abc', '-1', '1.5', '99999999999999999999']) {
        const r = await fetchRaw(`?since=${encodeURIComponent(since)}`);
        expect(r.status, since).toBe(400);
        expect(JSON.parse(r.text).msg).toContain('名单版本');
      }
      expect((await fetchRaw('', `Device ${gate.number}:wrong`)).status).toBe(401);
      expect((await fetchRaw('', '')).status).toBe(401);
      expect((await fetch(`${server.base}/api/device/allowlistKey`)).status).toBe(401);
    });

    it('fails closed: past exp a gate refuses visitors and still lets everyone out', async () => {
      const plate = `粤Q${tag}2001`;
      await carVisit(plate, at(-60), at(600));
      const list = indexAllowlist((await fetchList()).list);
      expect(list.exp > list.iat).toBe(true);
      expect(Date.parse(list.exp.replace(' ', 'T')) - Date.parse(list.iat.replace(' ', 'T'))).toBe(ctx.config.allowlistMaxAgeHours * 3_600_000);
      const c = { hash: await hashOf('car', plate), kind: 'car' as const, device_id: gate.id };
      expect(decideOffline(list, { ...c, direction: 1 }, ctx.time())).toMatchObject({ allow: true });
      const late = formatInZone(ctx.now() + (ctx.config.allowlistMaxAgeHours + 1) * 3_600_000, ctx.config.tz);
      expect(decideOffline(list, { ...c, direction: 1 }, late)).toEqual({ allow: false, reason: LIST_EXPIRED });
      expect(decideOffline(list, { ...c, direction: 2 }, late)).toMatchObject({ allow: true });
    });

    it('keeps the version and age a heartbeat reports, and shows an old list as stale', async () => {
      const send = async (events: unknown[]) => {
        const r = await fetch(`${server.base}/api/device/events`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: auth() }, body: JSON.stringify({ events }) });
        return (await r.json()) as { data: { accepted: number; rejected: Array<{ msg: string }> } };
      };
      const beat = (o: Record<string, unknown>) => ({ event_id: `al-hb-${tag}-${++seq}`, type: 'heartbeat', capture_time: at(-1), state: 1, ...o });
      const row = async () => (await admin.post<{ list: Array<Record<string, unknown>> }>('/equipment/gate/list', { size: 50 })).body.data.list.find((g) => g.id === gate.id)!;
      const first = beat({ list_version: 42, list_age: 600 });
      expect((await send([first])).data.accepted).toBe(1);
      expect(await row()).toMatchObject({ allowlist_version: 42, allowlist_time: addMinutes(first.capture_time, -10), allowlist_stale: 0 });
      // A late replay of an older list changes nothing.
      await send([beat({ list_version: 40, list_age: 3_600 })]);
      expect(await row()).toMatchObject({ allowlist_version: 42 });
      await send([beat({ list_version: 43, list_age: (ctx.config.allowlistMaxAgeHours + 1) * 3_600 }), beat({ list_version: 44, list_age: 60 })]);
      expect(await row()).toMatchObject({ allowlist_version: 44, allowlist_stale: 0 });
      await ctx.db
        .updateTable('equipment')
        .set({ allowlist_time: at(-(ctx.config.allowlistMaxAgeHours + 1) * 60) })
        .where('id', '=', gate.id)
        .execute();
      expect(await row()).toMatchObject({ allowlist_stale: 1 });
      const bad = await send([beat({ list_version: -1 })]);
      expect(bad.data.rejected[0]!.msg).toContain('名单版本');
    });

    it('decides offline exactly as /device/access allows, over random visits, list entries, revocations and times', async () => {
      const r = prng(dialect === 'sqlite' ? 20260 : 20261);
      const plates = Array.from({ length: 8 }, (_, i) => `粤Q${tag}3${String(i).padStart(3, '0')}`);
      const persons = Array.from({ length: 5 }, (_, i) => idNumber(9100 + i + (tag === 'S' ? 0 : 50), '07'));
      const visits: Array<{ kind: SubjectKind; subject: string; id: number }> = [];
      const entries: Array<{ kind: SubjectKind; id: number }> = [];
      const marks: number[] = [];
      const applications = new Map<string, number>();
      const models = ['小型汽车', '小型汽车', '重型自卸货车', '危险化学品运输车'];
      const hours = () => r.int(-50, 30) * 60 + 17;
      const day = (offset: number) => addDays(dateOf(ctx.time()), offset);
      const mutate = async () => {
        const what = r.int(0, 11);
        const kind: SubjectKind = r.next() < 0.65 ? 'car' : 'person';
        const subject = kind === 'car' ? r.pick(plates) : r.pick(persons);
        if (what <= 3) {
          // The access lookup reads a subject's five newest applications: stay within them.
          if ((applications.get(subject) ?? 0) >= 5) return;
          applications.set(subject, (applications.get(subject) ?? 0) + 1);
          const begin = at(hours());
          const end = addMinutes(begin, r.int(1, 60) * 60);
          const state = r.next() < 0.85 ? AppState.APPROVED : r.pick([AppState.REVIEW, AppState.REJECTED]);
          const id = kind === 'car' ? await carVisit(subject, begin, end, r.pick(models), state) : await personVisit(subject, begin, end, state);
          visits.push({ kind, subject, id });
        } else if (what === 4 && visits.length) {
          const v = r.pick(visits);
          const table = v.kind === 'car' ? 'car_application' : 'person_application';
          const key = v.kind === 'car' ? 'car_application_id' : 'person_application_id';
          if (r.next() < 0.5) await (ctx.db as any).updateTable(table).set({ state: AppState.REVOKED }).where(key, '=', v.id).execute();
          else await (ctx.db as any).updateTable(table).set({ is_deleted: 1 }).where(key, '=', v.id).execute();
        } else if (what <= 6) {
          const start = r.next() < 0.3 ? null : `${day(r.int(-5, 2))} 00:00:00`;
          const end = r.next() < 0.3 ? null : `${day(r.int(-2, 5))} 23:59:59`;
          entries.push({ kind, id: await listEntry(kind, subject, r.next() < 0.4 ? 1 : 2, start, end) });
        } else if (what === 7 && entries.length) {
          const e = r.pick(entries);
          const table = e.kind === 'car' ? 'car_black_white_list' : 'person_black_white_list';
          const change = r.pick([{ end_time: `${day(-1)} 23:59:59` }, { status: 4 }, { deleted: 1 }]);
          await (ctx.db as any).updateTable(table).set(change).where('id', '=', e.id).execute();
        } else if (what === 8) {
          if (r.next() < 0.6 || !marks.length) marks.push(await mark(r.pick(plates)));
          else await ctx.db.updateTable('vehicle_mark').set({ status: 0 }).where('id', '=', r.pick(marks)).execute();
        } else if (what === 9) {
          await registerPlate(ctx.db, r.pick(plates), day(r.int(-4, 0)), day(r.int(0, 4)));
        } else if (what === 10) {
          await waybill(r.pick(plates), day(r.int(-2, 1)));
        }
      };

      let held: OfflineList = indexAllowlist((await fetchList()).list);
      let compared = 0;
      const tally = new Map<string, number>();
      let deltas = 0;
      let sameReason = 0;
      for (let c = 0; c < CASES; c++) {
        for (let m = r.int(1, 3); m > 0; m--) await mutate();
        const got = (await fetchList(held.v)).list;
        if (!got.full) deltas++;
        held = got.full ? indexAllowlist(got) : applyDelta(held, got)!;
        expect(held).not.toBeNull();
        if (c % 30 === 29) {
          const before = await allowlistRecordsCounts();
          const full = indexAllowlist((await fetchList()).list);
          // The server patched its records from the change log, as the gate did; a list read whole says the same.
          expect((await allowlistRecordsCounts()).patched, `case ${c}: the server's records patched`).toBe(before.patched + 1);
          const { key_hash } = await ctx.db.selectFrom('equipment').select('key_hash').where('id', '=', gate.id).executeTakeFirstOrThrow();
          const whole = indexAllowlist(await open(await allowlistService(ctx, await loadAllowlistKeys(ctx.db)).answer({ id: gate.id, keyHash: key_hash! }, undefined)));
          expect(new Map([...full.byHash].sort()), `case ${c}: the patched full list equals one read whole`).toEqual(new Map([...whole.byHash].sort()));
          expect(new Map([...held.byHash].sort()), `case ${c}: delta-built list equals the full list`).toEqual(new Map([...full.byHash].sort()));
          expect(held.routes).toEqual(whole.routes);
          expect(whole.routes).toMatchObject(routeGates);
        }
        for (const [kind, subject] of [...plates.map((p) => ['car', p] as const), ...persons.map((p) => ['person', p] as const)]) {
          const direction = r.next() < 0.9 ? 1 : 2;
          const online = await access(kind, subject, direction);
          const offline = decideOffline(held, { hash: await hashOf(kind, subject), kind, direction, device_id: gate.id, label: subject }, ctx.time());
          expect(offline.allow, `case ${c} ${kind} ${subject} dir ${direction}: access "${online.reason}", offline "${offline.reason}"`).toBe(online.allow);
          compared++;
          if (offline.reason === online.reason) sameReason++;
          const word = online.reason.replace(/（.*?）|：.*$/g, '');
          tally.set(`${online.allow ? 'allow' : 'deny'} ${word}`, (tally.get(`${online.allow ? 'allow' : 'deny'} ${word}`) ?? 0) + 1);
        }
      }
      expect(compared).toBe(CASES * 13);
      // Every case went by delta, and the cases reached both answers by most of the rule's paths.
      expect(deltas).toBe(CASES);
      expect([...tally.keys()].filter((k) => k.startsWith('allow')).length).toBeGreaterThanOrEqual(4);
      expect([...tally.keys()].filter((k) => k.startsWith('deny')).length).toBeGreaterThanOrEqual(8);
      // Same words where they correspond: refusals for what only the server can say (a draft, 5-newest window) differ in words only.
      expect(sameReason / compared).toBeGreaterThan(0.8);
    }, 240_000);
  });
}
