import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { ErrorCode } from '../../../domain/errors';
import { Direction, gateDecision, type HazmatFacts } from '../../../domain/gate';
import { deviceApi } from '../../../domain/schemas/device-event';
import { equipmentApi } from '../../../domain/schemas/equipment';
import { dateOf } from '../../../domain/visit-rules';
import { newDeviceKey } from '../../core/device-auth';
import { AppError, notFound, ok } from '../../core/errors';
import { route } from '../../core/route';
import { multipartLimits, receiveUpload } from '../files';
import { hazmatFactsOf, registrationMissing } from '../park-rules';
import { loadPassKeys, lookup } from '../passes';
import { deviceHmacKey } from './allowlist';
import { countDeviceUpload, DEVICE_UPLOADER } from './device-files';
import { ingestEvents, markSeen } from './ingest';

/**
 * The device API of DESIGN.md §8 (documented for gate vendors in
 * docs/api.md), and the equipment screens' key issuing.
 */
export async function deviceRoutes(app: FastifyInstance) {
  const { ctx } = app;
  const { db } = ctx;
  const passKeys = await loadPassKeys(db);
  // Scoped to this plugin, as in files.ts: only /device/files takes multipart bodies here.
  await app.register(multipart, { limits: multipartLimits });

  for (const api of Object.values(equipmentApi)) {
    const k = api.kind;
    route(
      app,
      api.issueKey,
      async (req) => {
        const { key, hash } = newDeviceKey();
        const r = await db
          .updateTable('equipment')
          .set({ key_hash: hash, key_issued_time: ctx.time(), update_time: ctx.time() })
          .where('id', '=', req.body.id)
          .where('kind', '=', k.kind)
          .where('deleted', '=', 0)
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) === 0) notFound(k.title);
        // The allow-list's HMAC key is derived from the new key's hash (docs/offline-gates.md): issued with it, replaced with it.
        const hmac_key = await deviceHmacKey(db, req.body.id, hash);
        // Only this answer carries the key: the operation log keeps request bodies, the table only its hash, and an Idempotency-Key replay gets a 409 (secretAnswer).
        return ok({ key, hmac_key }, '密钥已签发，请立即复制保存，关闭后将无法再次查看');
      },
      { config: { secretAnswer: 'refuse' } },
    );
  }

  route(app, deviceApi.events, async (req) => ok(await ingestEvents(ctx, req.device!, req.body.events)));

  route(app, deviceApi.files, async (req) => {
    // Counted before the body is read: a device past its quota costs no parsing and no disk.
    await countDeviceUpload(ctx, req.device!.id);
    const file = await receiveUpload(req, { imagesOnly: true, uploaderUserId: DEVICE_UPLOADER, uploaderDeviceId: req.device!.id });
    await markSeen(db, req.device!.id, ctx.time(), ctx.now());
    return ok({ name: file.name, size: file.size, type: file.type }, '上传成功');
  });

  route(app, deviceApi.access, async (req) => {
    const b = req.body;
    let found;
    try {
      found = await lookup(ctx, passKeys, b.license_plate ? { license_plate: b.license_plate } : b.idcard ? { idcard: b.idcard } : { pass: b.pass! });
    } catch (err) {
      // Something scanned that is not a park pass at all: the gate gets a refusal, not an error.
      if (err instanceof AppError && err.code === ErrorCode.VALIDATION) return ok({ allow: false, reason: '通行码无效（不是园区通行码），不能放行' });
      throw err;
    }
    const current = found.application;
    let missing = false;
    let hazmat: HazmatFacts | null = null;
    // A genuinely vehicle-only rule (DESIGN.md §7): a vehicle model may need a registration covering the visit; a person has no model.
    if (current?.kind === 'car' && current.state === 2 && current.validity === 'valid') {
      const row = await db
        .selectFrom('car_application')
        .select(['vehicle_type_id', 'license_plate', 'visitor_begin_time', 'visitor_end_time', 'visit_area'])
        .where('car_application_id', '=', current.id)
        .executeTakeFirst();
      missing = !!row && (await registrationMissing(db, { vehicle_type_id: row.vehicle_type_id, license_plate: row.license_plate, begin: row.visitor_begin_time, end: row.visitor_end_time }));
      // 危化品: an entry needs a waybill covering today, and room under the parks' caps (domain/gate.ts hazmatDenial); an exit is never held.
      // The cap is read, not reserved: two gates asked within the seconds before either crossing is stored may both let one in (docs/decisions.md).
      if (row && b.direction === Direction.IN) hazmat = await hazmatFactsOf(db, row, dateOf(ctx.time()));
    }
    await markSeen(db, req.device!.id, ctx.time(), ctx.now());
    return ok(
      gateDecision(
        found,
        b.direction,
        () => missing,
        () => hazmat,
      ),
    );
  });
}
