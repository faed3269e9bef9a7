import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppState } from '../../domain/appointments';
import { reports } from '../../domain/reports';
import { RETENTION_CLASSES, retentionClasses, type RetentionClass } from '../../domain/retention';
import type { RetentionPolicyAnswer, RetentionPreviewAnswer, RetentionRunProof } from '../../domain/schemas/retention';
import { ImportStatus } from '../../domain/schemas/person-import';
import { addDays, dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import { recordFileObject, recordFileRefs, type FileRecordKind } from '../../server/core/file-refs';
import { fileStoreOf } from '../../server/core/storage';
import { nightlyRetentionOnce, RETENTION_AT } from '../../server/jobs/retention';
import { CATCH_UP_MINUTES } from '../../server/jobs/nightly';
import { zipPathOf } from '../../server/modules/person-import/job';
import { acquireLease, releaseLease } from '../../server/core/lease';
import { RETENTION_LEASE, runRetention } from '../../server/modules/retention/run';
import { metricsRegistryOf } from '../../server/ops/metrics';
import { rgbPng } from '../../server/seed/seed-appointments';
import { idNumber } from './fixtures';
import { Client, dialects, startSecondServer, startServer, type TestServer } from './harness';

/**
 * 数据保留 (server/modules/retention/, the nightly job server/jobs/retention.ts)
 * on each database: each class's minimum refused with the field and the rule,
 * nothing saved when one value is wrong; the preview counts what a run then
 * takes; a run takes exactly the rows past their time (photos and gate images
 * gone from the store, visitor fields anonymised with the rows and their
 * statistics kept, old crossings, waybills and logs deleted) and keeps the
 * rest; the reports read the same before and after; the proof is written; one
 * run at a time; the nightly run once across two servers.
 */

const png = (seed: number) => rgbPng(2, 2, (x, y) => [seed % 256, (seed >> 8) % 256, (x + y * 2) * 60]);

for (const dialect of await dialects()) {
  describe(`retention on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let admin: Client;
    let today: string;

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      admin = await new Client(server).as('admin');
      today = dateOf(ctx.time());
    });
    afterAll(async () => {
      await server?.close();
    });

    /** Noon of the park day `n` days ago. */
    const daysAgo = (n: number) => `${addDays(today, -n)} 12:00:00`;

    it('shows each class with its default, minimum and rule, refuses a value below a minimum naming the field and the rule, and saves nothing then', async () => {
      const policy = await admin.get<RetentionPolicyAnswer>('/retention/policy');
      expect(policy.status, JSON.stringify(policy.body)).toBe(200);
      const byKey = Object.fromEntries(policy.body.data.classes.map((c) => [c.key, c]));
      expect(policy.body.data.classes.map((c) => c.key)).toEqual([...RETENTION_CLASSES]);
      expect(Object.fromEntries(RETENTION_CLASSES.map((k) => [k, byKey[k]!.days]))).toEqual({ photos: 30, visitor_fields: 180, gate_images: 90, gate_rows: 365, waybills: 366, logs: 1096 });
      expect(byKey.gate_rows).toMatchObject({ min_days: 180, rule: '《视频安防监控系统工程设计规范》GB 50396', updated_by: null });
      expect(byKey.waybills!.min_days).toBe(366);
      expect(byKey.waybills!.rule).toContain('交通运输部令 2019 年第 29 号');
      expect(byKey.photos).toMatchObject({ min_days: 1, rule: null });

      // Every refusal names its field and its rule, and with one value wrong the right ones are not saved either.
      const refusals: Array<[Record<string, unknown>, RetentionClass | '', string]> = [
        [{ photos: 20, gate_rows: 179 }, 'gate_rows', '过闸记录保留期限不能少于 180 天（GB 50396）'],
        [{ waybills: 365 }, 'waybills', '运单保留期限不能少于 366 天（交通运输部令 2019 年第 29 号：不少于 12 个月）'],
        [{ photos: 0 }, 'photos', '证件与人脸照片保留期限至少为 1 天'],
        [{ visitor_fields: -5 }, 'visitor_fields', '访客个人信息保留期限至少为 1 天'],
        [{ logs: 3651 }, 'logs', '日志保留期限不能超过 3650 天（10 年）'],
        [{ gate_images: 1.5 }, 'gate_images', '过闸图片保留期限必须是整数天数'],
        [{ gate_images: 'abc' }, 'gate_images', '过闸图片保留期限必须是整数天数'],
        [{ logs: true }, 'logs', '日志保留期限必须是整数天数'],
        [{}, '', '请至少填写一类数据的保留期限'],
        [{ unknown_class: 5 }, '', '请至少填写一类数据的保留期限'],
      ];
      for (const [body, field, msg] of refusals) {
        const r = await admin.post<{ errors: Array<{ field: string }> }>('/retention/policy', body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.body.msg).toBe(msg);
        if (field) expect(r.body.data.errors.map((e) => e.field)).toContain(field);
      }
      expect((await admin.get<RetentionPolicyAnswer>('/retention/policy')).body.data).toEqual(policy.body.data);

      // At its minimum a class is accepted; a digit string from a form too. Who and when are kept, and the log has it.
      const saved = await admin.post<RetentionPolicyAnswer>('/retention/policy', { gate_rows: 180, waybills: '366', photos: 30 });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      const after = Object.fromEntries(saved.body.data.classes.map((c) => [c.key, c]));
      expect(after.gate_rows).toMatchObject({ days: 180, updated_by: '系统管理员' });
      expect(after.gate_rows!.updated_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      // Unchanged values keep their default standing.
      expect(after.photos).toMatchObject({ days: 30, updated_by: null });
      expect(after.waybills).toMatchObject({ days: 366, updated_by: null });
      const logged = await ctx.db.selectFrom('sys_operation_log').select(['operation', 'result', 'params']).where('operation', '=', '修改数据保留期限').execute();
      expect(logged.some((l) => l.result === 1 && l.params.includes('180'))).toBe(true);
      // Back to the default for the runs below.
      expect((await admin.post('/retention/policy', { gate_rows: 365 })).status).toBe(200);
    });

    it('refuses every call without its code, and a second run while one runs with a 409', async () => {
      const lead = await new Client(server).as('lead');
      expect((await lead.get('/retention/policy')).status).toBe(403);
      expect((await lead.post('/retention/preview', {})).status).toBe(403);
      expect((await lead.post('/retention/policy', { photos: 40 })).status).toBe(403);
      expect((await lead.post('/retention/run')).status).toBe(403);
      expect(await ctx.db.selectFrom('retention_run').select('id').execute()).toEqual([]);

      // Another server's run holds the lease.
      expect(await acquireLease(ctx.db, RETENTION_LEASE, 'elsewhere:1:test')).toBe(true);
      const busy = await admin.post('/retention/run');
      expect(busy.status).toBe(409);
      expect(busy.body.msg).toMatch(/^已有数据清理正在进行（elsewhere 进程 1 于 .+ 开始），请等它完成后再试$/);
      await releaseLease(ctx.db, RETENTION_LEASE, 'elsewhere:1:test');
      expect(await ctx.db.selectFrom('retention_run').select('id').execute()).toEqual([]);

      // Two at once: exactly one runs.
      const [a, b] = await Promise.all([admin.post<RetentionRunProof>('/retention/run'), admin.post<RetentionRunProof>('/retention/run')]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
    });

    it('previews and then takes exactly the rows past their time, keeping the rest, the statistics and the reports; the proof says what went', { timeout: 120_000 }, async () => {
      const db = ctx.db;
      const store = fileStoreOf(ctx);
      const adminId = (await db.selectFrom('sys_user').select('user_id').where('account', '=', 'admin').executeTakeFirstOrThrow()).user_id;
      const depart = (await db.selectFrom('sys_department').select('depart_id').where('deleted', '=', 0).orderBy('depart_id').executeTakeFirstOrThrow()).depart_id;
      const vehicleType = (await db.selectFrom('vehicle_type').select('id').where('deleted', '=', 0).orderBy('id').executeTakeFirstOrThrow()).id;
      const gate = (await db.selectFrom('equipment').select('id').where('kind', '=', 'gate').where('deleted', '=', 0).orderBy('id').executeTakeFirstOrThrow()).id;
      const now = ctx.time();
      let seq = 0;

      /** A photo in the store, uploaded by the admin. */
      const photo = async () => {
        const name = await store.put(png(++seq), 'png');
        await recordFileObject(db, name, adminId, Date.now());
        return name;
      };
      const holds = (kind: FileRecordKind, id: number, names: string[]) => recordFileRefs(db, kind, id, names);

      const baseline = (await admin.post<RetentionPreviewAnswer>('/retention/preview', {})).body.data;

      // ---- appointments: ended 200 days ago (photos and fields go), 40 days ago (photos go), 10 days ago (kept).
      const person = async (endedDaysAgo: number) => {
        const [face, id1, id2] = [await photo(), await photo(), await photo()];
        const row = await db
          .insertInto('person_application')
          .values({
            application_number: `PA-RET-${dialect}-${++seq}`,
            state: AppState.APPROVED,
            process_instance_id: null,
            visitor_name: '王小明',
            visitor_gender: 1,
            visitor_phone: '13812345678',
            visitor_company: '惠州测试有限公司',
            visitor_address: '广东省惠州市大亚湾区石化大道1号',
            visitor_type: 4,
            visitor_idcard_type: 1,
            visitor_idcard: idNumber(seq, '11'),
            visitor_face_photo: face,
            visitor_idcard_photo1: id1,
            visitor_idcard_photo2: id2,
            visit_content: '设备验收',
            visit_begin_time: daysAgo(endedDaysAgo + 1),
            visit_end_time: daysAgo(endedDaysAgo),
            visit_area: 1,
            interviewee_name: '李强',
            interviewee_phone: '13800000003',
            interviewee_depart_id: depart,
            create_user_id: adminId,
            create_time: daysAgo(endedDaysAgo + 3),
            update_time: daysAgo(endedDaysAgo + 3),
          })
          .returning('person_application_id as id')
          .executeTakeFirstOrThrow();
        await holds('person_application', row.id, [face, id1, id2]);
        return { id: row.id, files: [face, id1, id2] };
      };
      const p200 = await person(200);
      const p40 = await person(40);
      const p10 = await person(10);

      const car = async (endedDaysAgo: number) => {
        const [face, driverFace, vehicleImg] = [await photo(), await photo(), await photo()];
        const row = await db
          .insertInto('car_application')
          .values({
            application_number: `CA-RET-${dialect}-${++seq}`,
            state: AppState.APPROVED,
            process_type: 2,
            process_instance_id: null,
            license_plate: `粤L${String(seq).padStart(5, '0')}`,
            license_plate_color: 2,
            vehicle_type_id: vehicleType,
            applicant_name: '欧阳娜娜',
            applicant_idcard: idNumber(seq, '12'),
            applicant_gender: 0,
            applicant_phone: '13900002222',
            applicant_face_photo: face,
            visitor_idcard_type: 1,
            visit_area: 1,
            visitor_type: 3,
            visitor_company: '惠州测试物流有限公司',
            visitor_content: '送货',
            visitor_begin_time: daysAgo(endedDaysAgo + 1),
            visitor_end_time: daysAgo(endedDaysAgo),
            interviewee_name: '李强',
            interviewee_phone: '13800000003',
            interviewee_depart_id: depart,
            color_id: null,
            cargo_type: null,
            car_load: null,
            dump_truck_file: null,
            cargo_info: null,
            car_info_id: null,
            vehicle_img: vehicleImg,
            create_user_id: adminId,
            create_time: daysAgo(endedDaysAgo + 5),
            update_time: daysAgo(endedDaysAgo + 5),
          })
          .returning('car_application_id as id')
          .executeTakeFirstOrThrow();
        await db
          .insertInto('car_person')
          .values({
            car_application_id: row.id,
            name: '张伟',
            idcard_type: 1,
            id_card: idNumber(seq, '10'),
            gender: 1,
            phone: '13611112222',
            type: 1,
            face_photo: driverFace,
            pqc_number: '4413002019001234',
          })
          .execute();
        await holds('car_application', row.id, [face, driverFace, vehicleImg]);
        return { id: row.id, photos: [face, driverFace], other: vehicleImg };
      };
      const c200 = await car(200);
      const c10 = await car(10);

      // ---- the person list: revoked 200 days ago (both go), in force with no end (kept), ended 40 days ago (photo goes).
      const listEntry = async (v: { status: number; end: string | null; updated: string }) => {
        const face = await photo();
        const row = await db
          .insertInto('person_black_white_list')
          .values({
            name: '陈大文',
            gender: 1,
            idcard_type: 1,
            idcard: idNumber(++seq, '09'),
            type: 1,
            start_time: null,
            end_time: v.end,
            status: v.status,
            face_photo: face,
            process_instance_id: null,
            create_user_id: adminId,
            update_user_id: adminId,
            create_time: v.updated,
            update_time: v.updated,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await holds('person_black_white_list', row.id, [face]);
        return { id: row.id, face };
      };
      const revoked = await listEntry({ status: AppState.REVOKED, end: null, updated: daysAgo(200) });
      const inForce = await listEntry({ status: AppState.APPROVED, end: null, updated: daysAgo(400) });
      const ended = await listEntry({ status: AppState.APPROVED, end: daysAgo(40), updated: daysAgo(300) });

      // ---- crossings: 400 days ago (the row goes), 100 days ago (images go), 10 days ago (kept).
      const crossing = async (capturedDaysAgo: number, hour: string) => {
        const [plate, vehicle, snap] = [await photo(), await photo(), await photo()];
        const at = `${addDays(today, -capturedDaysAgo)} ${hour}`;
        const c = await db
          .insertInto('gate_record_car')
          .values({
            device_id: gate,
            event_id: `ret-${dialect}-${++seq}`,
            license_plate: '粤L77777',
            license_plate_color: 2,
            direction: 1,
            open_result: 1,
            plate_image: plate,
            vehicle_image: vehicle,
            vehicle_type: '小型轿车',
            vehicle_color: null,
            vehicle_compare_result: null,
            face_compare_result: null,
            capture_time: at,
            create_time: at,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        const p = await db
          .insertInto('gate_record_person')
          .values({
            device_id: gate,
            event_id: `ret-${dialect}-${++seq}`,
            idcard: idNumber(seq, '08'),
            person_name: '过闸访客',
            card_status: null,
            image_type: null,
            direction: 2,
            open_result: 1,
            snapshot: snap,
            capture_time: at,
            create_time: at,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await holds('gate_record_car', c.id, [plate, vehicle]);
        await holds('gate_record_person', p.id, [snap]);
        return { car: c.id, person: p.id, files: [plate, vehicle, snap] };
      };
      const g400 = await crossing(400, '08:15:00');
      const g100 = await crossing(100, '09:20:00');
      const g10 = await crossing(10, '10:25:00');

      // ---- waybills, all filed 400 days ago: shipped then and approved (goes), in review (kept), shipped 300 days ago (kept).
      const waybill = async (state: number, shipped: string) => {
        const annex = await photo();
        const row = await db
          .insertInto('transport_list')
          .values({
            application_number: `TL-RET-${dialect}-${++seq}`,
            transport_type: 2,
            cargo_quantity: 10,
            license_plate: '粤L88888',
            license_plate_color: 1,
            tank_volume: null,
            driver: '黎志强',
            driver_phone: '13922001101',
            shipment_date: shipped,
            annex,
            state,
            process_instance_id: null,
            create_user_id: adminId,
            update_user_id: adminId,
            create_time: daysAgo(400),
            update_time: daysAgo(400),
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await holds('transport_list', row.id, [annex]);
        return { id: row.id, annex };
      };
      const wOld = await waybill(AppState.APPROVED, addDays(today, -400));
      const wReview = await waybill(AppState.REVIEW, addDays(today, -400));
      const wShippedLater = await waybill(AppState.APPROVED, addDays(today, -300));

      // ---- logs: 1200 days ago (go), 100 days ago (kept).
      const log = async (daysBack: number) => {
        const l = await db
          .insertInto('sys_login_log')
          .values({ user_id: adminId, user_name: '系统管理员', account: 'admin', depart_id: null, ip: '10.0.0.1', result: 1, login_time: daysAgo(daysBack), remark: '' })
          .returning('id')
          .executeTakeFirstOrThrow();
        const o = await db
          .insertInto('sys_operation_log')
          .values({ user_id: adminId, account: 'admin', depart_id: null, operation: '测试', result: 1, operate_time: daysAgo(daysBack), api: '/api/test', method: 'POST', params: '{}' })
          .returning('id')
          .executeTakeFirstOrThrow();
        return { login: l.id, operation: o.id };
      };
      const l1200 = await log(1200);
      const l100 = await log(100);

      // ---- person imports: finished 40 days ago (its zip goes, the task stays done), waiting since 10 days ago (kept).
      const importTask = async (status: number, touched: string) => {
        const filePath = `${'0'.repeat(24)}${String(++seq).padStart(8, '0')}.zip`;
        fs.mkdirSync(path.dirname(zipPathOf(ctx, filePath)), { recursive: true });
        fs.writeFileSync(zipPathOf(ctx, filePath), 'PK-test');
        const row = await db
          .insertInto('person_import_task')
          .values({ name: '退休导入', file_name: 'persons.zip', file_size: 7, file_path: filePath, status, create_user_id: adminId, create_time: touched, update_time: touched })
          .returning('id')
          .executeTakeFirstOrThrow();
        return { id: row.id, zip: zipPathOf(ctx, filePath) };
      };
      const importDone = await importTask(ImportStatus.DONE, daysAgo(40));
      const importWaiting = await importTask(ImportStatus.WAITING, daysAgo(10));

      // ---- the preview counts exactly these on top of what the demo park already had due.
      const added: Record<RetentionClass, number> = {
        // p200, p40, c200, the revoked and the ended entries, the finished import.
        photos: 6,
        // p200, c200, the revoked entry.
        visitor_fields: 3,
        // g400 and g100, each a vehicle and a person crossing.
        gate_images: 4,
        gate_rows: 2,
        waybills: 1,
        logs: 2,
      };
      const preview = await admin.post<RetentionPreviewAnswer>('/retention/preview', {});
      expect(preview.status, JSON.stringify(preview.body)).toBe(200);
      for (const c of preview.body.data.classes) expect(c.rows, c.key).toBe(baseline.classes.find((b) => b.key === c.key)!.rows + added[c.key]);
      const previewed = Object.fromEntries(preview.body.data.classes.map((c) => [c.key, c]));
      expect(previewed.gate_rows!.oldest_kept! <= `${addDays(today, -100)} 09:20:00`).toBe(true);
      expect(previewed.gate_rows!.oldest_kept! >= previewed.gate_rows!.cutoff).toBe(true);
      // Days being edited are previewed before they are saved, and nothing is saved by it.
      const longer = await admin.post<RetentionPreviewAnswer>('/retention/preview', { gate_images: 365 });
      expect(longer.body.data.classes.find((c) => c.key === 'gate_images')!.rows).toBe(baseline.classes.find((b) => b.key === 'gate_images')!.rows + 2);
      expect((await admin.post('/retention/preview', { gate_rows: 30 })).body.msg).toBe('过闸记录保留期限不能少于 180 天（GB 50396）');

      const rowsBefore = {
        person: await count('person_application'),
        car: await count('car_application'),
        carPerson: await count('car_person'),
        list: await count('person_black_white_list'),
      };
      const departStats = await db.selectFrom('stat_depart_application').selectAll().orderBy('kind').orderBy('depart_id').orderBy('visitor_type').orderBy('hazardous').execute();
      const crossingDays = await db
        .selectFrom('stat_crossing_day')
        .selectAll()
        .orderBy('day')
        .orderBy('device_id')
        .orderBy('visit_area')
        .orderBy('kind')
        .orderBy('direction')
        .orderBy('opened')
        .orderBy('vehicle_type')
        .execute();
      const crossingHours = await db.selectFrom('stat_crossing_hour').selectAll().orderBy('day').orderBy('hour').orderBy('kind').orderBy('direction').orderBy('opened').execute();
      const reportBefore = await reportFigures();
      // The old crossings are in the figures: what must stay when their rows go.
      expect(JSON.stringify(reportBefore)).toContain('"in_count":1');

      // ---- the run, in small batches so that several transactions make each class.
      const proof = await runRetention(ctx, { kind: 'manual', user: { id: adminId, name: '系统管理员' }, batchSize: 2, pauseMs: 0 });
      expect(proof).toMatchObject({ trigger: 'manual', user_name: '系统管理员', error: null });
      expect(proof.finished_at).not.toBeNull();
      for (const c of proof.classes) {
        expect(c.rows, c.key).toBe(previewed[c.key]!.rows);
        expect(c.days).toBe(retentionClasses[c.key].defaultDays);
      }
      const proved = Object.fromEntries(proof.classes.map((c) => [c.key, c]));
      // Every file of those rows, and the import's zip: the counts include the demo park's own, at least ours.
      expect(proved.photos!.files).toBeGreaterThanOrEqual(3 + 3 + 2 + 2 + 1);
      expect(proved.gate_images!.files).toBeGreaterThanOrEqual(6);
      expect(proved.gate_rows!.oldest_kept! > proved.gate_rows!.cutoff).toBe(true);
      expect(proved.logs!.oldest_kept! >= proved.logs!.cutoff).toBe(true);

      // Appointments: photos gone from the rows and the store; fields anonymised past 180 days; rows and statistics kept.
      const persons = new Map(
        (await db.selectFrom('person_application').selectAll().where('person_application_id', 'in', [p200.id, p40.id, p10.id]).execute()).map((r) => [r.person_application_id, r]),
      );
      expect(persons.get(p200.id)).toMatchObject({
        visitor_name: '王*',
        visitor_phone: '138****5678',
        visitor_address: '',
        visitor_face_photo: '',
        visitor_idcard_photo1: '',
        visitor_idcard_photo2: '',
      });
      expect(persons.get(p200.id)!.visitor_idcard).toMatch(/^4401\*{10}[\dX]{4}$/);
      expect(persons.get(p200.id)!.anonymised_at).toBe(proof.started_at);
      expect(persons.get(p40.id)).toMatchObject({ visitor_name: '王小明', visitor_phone: '13812345678', visitor_face_photo: '', anonymised_at: null });
      expect(persons.get(p40.id)!.photos_removed_at).not.toBeNull();
      expect(persons.get(p10.id)).toMatchObject({ visitor_name: '王小明', visitor_face_photo: p10.files[0], photos_removed_at: null, anonymised_at: null });
      for (const f of [...p200.files, ...p40.files]) expect(await store.exists(f), f).toBe(false);
      for (const f of p10.files) expect(await store.exists(f), f).toBe(true);
      expect(
        await db
          .selectFrom('file_ref')
          .select('file_name')
          .where('file_name', 'in', [...p200.files, ...p40.files])
          .execute(),
      ).toEqual([]);
      expect(
        await db
          .selectFrom('file_object')
          .select('name')
          .where('name', 'in', [...p200.files, ...p40.files])
          .execute(),
      ).toEqual([]);

      const cars = new Map((await db.selectFrom('car_application').selectAll().where('car_application_id', 'in', [c200.id, c10.id]).execute()).map((r) => [r.car_application_id, r]));
      expect(cars.get(c200.id)).toMatchObject({ applicant_name: '欧*', applicant_phone: '139****2222', applicant_face_photo: '', vehicle_img: c200.other });
      const drivers = new Map((await db.selectFrom('car_person').selectAll().where('car_application_id', 'in', [c200.id, c10.id]).execute()).map((r) => [r.car_application_id, r]));
      expect(drivers.get(c200.id)).toMatchObject({ name: '张*', phone: '136****2222', face_photo: '', pqc_number: '4413********1234' });
      expect(drivers.get(c10.id)).toMatchObject({ name: '张伟', phone: '13611112222', face_photo: c10.photos[1] });
      for (const f of c200.photos) expect(await store.exists(f), f).toBe(false);
      // A file of the application that is not a personal photo stays, and stays readable through it.
      expect(await store.exists(c200.other)).toBe(true);
      expect(await db.selectFrom('file_ref').select('record_id').where('file_name', '=', c200.other).execute()).toEqual([{ record_id: c200.id }]);

      expect({
        person: await count('person_application'),
        car: await count('car_application'),
        carPerson: await count('car_person'),
        list: await count('person_black_white_list'),
      }).toEqual(rowsBefore);
      expect(await db.selectFrom('stat_depart_application').selectAll().orderBy('kind').orderBy('depart_id').orderBy('visitor_type').orderBy('hazardous').execute()).toEqual(departStats);

      // The person list.
      const entries = new Map((await db.selectFrom('person_black_white_list').selectAll().where('id', 'in', [revoked.id, inForce.id, ended.id]).execute()).map((r) => [r.id, r]));
      expect(entries.get(revoked.id)).toMatchObject({ name: '陈*', face_photo: '' });
      expect(entries.get(revoked.id)!.idcard).toContain('**********');
      expect(entries.get(inForce.id)).toMatchObject({ name: '陈大文', face_photo: inForce.face, photos_removed_at: null, anonymised_at: null });
      expect(entries.get(ended.id)).toMatchObject({ name: '陈大文', face_photo: '', anonymised_at: null });
      expect(await store.exists(inForce.face)).toBe(true);
      expect(await store.exists(ended.face)).toBe(false);

      // Crossings: the old row gone with its files, the images of the middle one, the recent one whole.
      expect(await db.selectFrom('gate_record_car').select('id').where('id', '=', g400.car).execute()).toEqual([]);
      expect(await db.selectFrom('gate_record_person').select('id').where('id', '=', g400.person).execute()).toEqual([]);
      expect(await db.selectFrom('gate_record_car').select(['plate_image', 'vehicle_image']).where('id', '=', g100.car).executeTakeFirst()).toEqual({ plate_image: '', vehicle_image: '' });
      expect(await db.selectFrom('gate_record_person').select('snapshot').where('id', '=', g100.person).executeTakeFirst()).toEqual({ snapshot: '' });
      expect(await db.selectFrom('gate_record_car').select('plate_image').where('id', '=', g10.car).executeTakeFirst()).toEqual({ plate_image: g10.files[0] });
      for (const f of [...g400.files, ...g100.files]) expect(await store.exists(f), f).toBe(false);
      for (const f of g10.files) expect(await store.exists(f), f).toBe(true);

      // The reports read their rollups: the same figures before and after the old crossings went.
      expect(
        await db
          .selectFrom('stat_crossing_day')
          .selectAll()
          .orderBy('day')
          .orderBy('device_id')
          .orderBy('visit_area')
          .orderBy('kind')
          .orderBy('direction')
          .orderBy('opened')
          .orderBy('vehicle_type')
          .execute(),
      ).toEqual(crossingDays);
      expect(await db.selectFrom('stat_crossing_hour').selectAll().orderBy('day').orderBy('hour').orderBy('kind').orderBy('direction').orderBy('opened').execute()).toEqual(crossingHours);
      expect(await reportFigures()).toEqual(reportBefore);

      // Waybills, logs, imports.
      const waybillsLeft = (await db.selectFrom('transport_list').select('id').where('id', 'in', [wOld.id, wReview.id, wShippedLater.id]).execute()).map((r) => r.id).sort((x, y) => x - y);
      expect(waybillsLeft).toEqual([wReview.id, wShippedLater.id].sort((x, y) => x - y));
      expect(await store.exists(wOld.annex)).toBe(false);
      expect(await store.exists(wReview.annex)).toBe(true);
      expect(await db.selectFrom('sys_login_log').select('id').where('id', 'in', [l1200.login, l100.login]).execute()).toEqual([{ id: l100.login }]);
      expect(await db.selectFrom('sys_operation_log').select('id').where('id', 'in', [l1200.operation, l100.operation]).execute()).toEqual([{ id: l100.operation }]);
      expect(fs.existsSync(importDone.zip)).toBe(false);
      expect(fs.existsSync(importWaiting.zip)).toBe(true);
      expect(await db.selectFrom('person_import_task').select(['status', 'zip_removed_at']).where('id', '=', importDone.id).executeTakeFirst()).toEqual({
        status: ImportStatus.DONE,
        zip_removed_at: proof.started_at,
      });

      // The proof is the policy's last run, and a second run at once finds nothing more of ours.
      const policy = await admin.get<RetentionPolicyAnswer>('/retention/policy');
      expect(policy.body.data.last_run).toEqual(proof);
      const again = await admin.post<RetentionRunProof>('/retention/run');
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body.data.classes.every((c) => c.rows === 0 || c.key === 'logs')).toBe(true);
      expect((await admin.get<RetentionPolicyAnswer>('/retention/policy')).body.data.last_run).toEqual(again.body.data);
      expect(now <= proof.started_at).toBe(true);

      // Any other DELETE still takes its crossing out of the counts: the purge mark exists only inside a run's transactions.
      expect(await count('retention_purge_mark')).toBe(0);
      const carCrossingsOn = async (day: string) =>
        Number(
          (
            await db
              .selectFrom('stat_crossing_day')
              .select((eb) => eb.fn.sum('crossings').as('n'))
              .where('day', '=', day)
              .where('kind', '=', 'car')
              .executeTakeFirst()
          )?.n ?? 0,
        );
      const tenDaysAgo = addDays(today, -10);
      const counted = await carCrossingsOn(tenDaysAgo);
      await db.deleteFrom('gate_record_car').where('id', '=', g10.car).execute();
      expect(await carCrossingsOn(tenDaysAgo)).toBe(counted - 1);

      // The metrics count this process's rows by class.
      const metric = await metricsRegistryOf(server.app).getSingleMetricAsString('park_retention_rows_total');
      expect(metric).toMatch(/park_retention_rows_total\{class="gate_rows"\} \d+/);
    });

    it('runs the nightly retention on exactly one of two servers sharing the database', { timeout: 120_000 }, async () => {
      const second = await startSecondServer(server);
      try {
        // RETENTION_AT park time on a night long past, so its cut-offs take nothing of today's park.
        const night = '2020-05-06';
        const at = Date.parse(`${night}T${RETENTION_AT}:00+08:00`);
        expect(await nightlyRetentionOnce(ctx, at - 60_000)).toEqual({ outcome: 'not-due' });
        const runsBefore = await count('retention_run');
        const outcomes = await Promise.all([nightlyRetentionOnce(ctx, at, { pauseMs: 0 }), nightlyRetentionOnce(second.app.ctx, at, { pauseMs: 0 })]);
        expect(outcomes.map((o) => o.outcome).sort()).toEqual(['claimed-elsewhere', 'done']);
        const done = outcomes.find((o) => o.outcome === 'done') as { proof: RetentionRunProof };
        expect(done.proof).toMatchObject({ trigger: 'nightly', user_name: null, error: null, started_at: `${night} ${RETENTION_AT}:00` });
        // Later checks of the same night, on either server, run nothing more; past the catch-up window none is due.
        for (const c of [ctx, second.app.ctx]) expect(await nightlyRetentionOnce(c, at + 10 * 60_000)).toEqual({ outcome: 'claimed-elsewhere', night });
        expect(await nightlyRetentionOnce(ctx, at + CATCH_UP_MINUTES * 60_000)).toEqual({ outcome: 'not-due' });
        expect(await count('retention_run')).toBe(runsBefore + 1);
        expect(await ctx.db.selectFrom('backup_claim').select('claim_key').where('claim_key', '=', `retention-night:${night}`).execute()).toHaveLength(1);
      } finally {
        await second.close();
      }
    });

    async function count(table: 'person_application' | 'car_application' | 'car_person' | 'person_black_white_list' | 'retention_run' | 'retention_purge_mark'): Promise<number> {
      const r = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(ctx.db);
      return Number(r.rows[0]?.n ?? 0);
    }

    /** The crossing reports over the days of the old crossings, as the screens read them. */
    async function reportFigures() {
      const range = { start_time: addDays(today, -401), end_time: addDays(today, -399), visit_area: 3 };
      const out: Record<string, unknown> = {};
      for (const key of ['vehicleInOut', 'personInOut', 'vehicleGateTimes', 'vehicleIncrease'] as const) {
        const def = reports.find((r) => r.key === key)!;
        const query = new URLSearchParams(Object.entries(range).map(([k, v]) => [k, String(v)]));
        const r = await admin.get<{ list: unknown[] }>(`${def.calls.data.path}?${query}`);
        expect(r.status, `${key}: ${JSON.stringify(r.body)}`).toBe(200);
        out[key] = r.body.data;
      }
      return out;
    }
  });
}
