/**
 * `npx tsx scripts/bench-allowlist.ts`: the offline gate's allow-list
 * (docs/offline-gates.md) against its targets, on a fresh SQLite park:
 *
 *   - a full list of 100,000 entries is ≤ 2 MB gzip and built in ≤ 1 s: the
 *     server's records patched with ten changes, one HMAC per entry for the
 *     asking gate, gzip, ES256 (the first list after a start, which reads
 *     every row, is printed beside it);
 *   - a delta of 10 changes is ≤ 2 KB and answers in ≤ 50 ms at p95.
 *
 * Prints each target with its figure; run alone, exits 1 when one is missed.
 * BENCH_ENTRIES changes the list's size. `BENCH_ONLY=allowlist npm run bench`
 * runs it (benchAllowlist) with scripts/bench-propagation.ts.
 */
import { carVisitRow } from '../tests/api/fixtures';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { AppState } from '../domain/appointments';
import { formatInZone } from '../domain/time';
import { buildApp } from '../server/app';
import { loadConfig } from '../server/config';
import { newDeviceKey } from '../server/core/device-auth';
import { p95, targets } from './bench-common';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 100_000);
const DELTA_REQUESTS = 200;
const CHUNK = 400;

/** The list's size and speed; its targets join the bench's (scripts/bench-common.ts targets). */
export async function benchAllowlist(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-allowlist-'));
  const config = loadConfig({ DATA_DIR: dataDir, SMS_PROVIDER: 'file', DEMO_PASSWORD: 'Bench@2026', PORT: '0' }, { staticDir: undefined, seedGateHistory: false, logLevel: 'warn' });
  const app = await buildApp(config);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const { db } = app.ctx;
  try {
    const gate = await db.selectFrom('equipment').select(['id', 'number']).where('kind', '=', 'gate').orderBy('id').executeTakeFirstOrThrow();
    const { key, hash } = newDeviceKey();
    await db.updateTable('equipment').set({ key_hash: hash, key_issued_time: app.ctx.time() }).where('id', '=', gate.id).execute();
    const auth = { authorization: `Device ${gate.number}:${key}` };
    const model = (await db.selectFrom('vehicle_type').select('id').where('name', '=', '小型汽车').executeTakeFirstOrThrow()).id;
    const depart = (await db.selectFrom('sys_department').select('depart_id').orderBy('depart_id').executeTakeFirstOrThrow()).depart_id;

    // The park: four in five entries a vehicle visit, the rest person visits and list entries, all within the 24 h horizon.
    const at = (minutes: number) => formatInZone(app.ctx.now() + minutes * 60_000, config.tz);
    const stamp = { create_time: app.ctx.time(), update_time: app.ctx.time() };
    const seedStart = performance.now();
    const cars = Math.round(ENTRIES * 0.8);
    const persons = Math.round(ENTRIES * 0.15);
    const listed = ENTRIES - cars - persons;
    for (let i = 0; i < cars; i += CHUNK) {
      const rows = [];
      for (let j = i; j < Math.min(cars, i + CHUNK); j++) {
        const begin = at(-600 + (j % 1200));
        rows.push(
          carVisitRow({
            application_number: `CB${String(j).padStart(8, '0')}`,
            state: AppState.APPROVED,
            license_plate: `粤B${j.toString(36).toUpperCase().padStart(5, '0')}`,
            vehicle_type_id: model,
            applicant_idcard: '440106199002101234',
            begin,
            end: at(600 + (j % 1200)),
            interviewee_depart_id: depart,
            time: stamp.create_time,
          }),
        );
      }
      await db.insertInto('car_application').values(rows).execute();
    }
    for (let i = 0; i < persons; i += CHUNK) {
      const rows = [];
      for (let j = i; j < Math.min(persons, i + CHUNK); j++) {
        rows.push({
          application_number: `PB${String(j).padStart(8, '0')}`,
          state: AppState.APPROVED,
          process_instance_id: null,
          visitor_name: '测试访客',
          visitor_gender: 1,
          visitor_phone: '13812345678',
          visitor_company: '惠州测试有限公司',
          visitor_type: 4,
          visitor_idcard_type: 1,
          visitor_idcard: `4401${String(j).padStart(14, '0')}`,
          visit_content: '设备验收',
          visit_begin_time: at(-300 + (j % 600)),
          visit_end_time: at(300 + (j % 600)),
          visit_area: 1,
          interviewee_name: '李强',
          interviewee_phone: '13800000003',
          interviewee_depart_id: depart,
          create_user_id: 1,
          ...stamp,
        });
      }
      await db.insertInto('person_application').values(rows).execute();
    }
    for (let i = 0; i < listed; i += CHUNK) {
      const rows = [];
      for (let j = i; j < Math.min(listed, i + CHUNK); j++) {
        rows.push({
          license_plate: `粤W${j.toString(36).toUpperCase().padStart(5, '0')}`,
          vehicle_type_id: null,
          type: j % 4 === 0 ? 1 : 2,
          start_time: null,
          end_time: j % 3 === 0 ? null : `${at(0).slice(0, 10)} 23:59:59`,
          status: 2,
          in_reason: j % 4 === 0 ? '多次违规驾驶' : '长期合作单位',
          process_instance_id: null,
          create_user_id: null,
          update_user_id: null,
          ...stamp,
        });
      }
      await db.insertInto('car_black_white_list').values(rows).execute();
    }
    console.log(`seeded ${ENTRIES} entries in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

    const get = async (query = '') => {
      const t = performance.now();
      const r = await fetch(`${base}/api/device/allowlist${query}`, { headers: auth });
      const body = await r.text();
      if (r.status !== 200) throw new Error(`allowlist ${query}: ${r.status} ${body.slice(0, 200)}`);
      return { body, ms: performance.now() - t };
    };
    // Read without verifying: tests/api/allowlist.test.ts verifies the signature.
    const payload = (jws: string) => JSON.parse(gunzipSync(Buffer.from(jws.split('.')[1]!, 'base64url')).toString('utf8')) as { v: number; entries: unknown[]; removed?: string[] };

    const full = await get();
    const list = payload(full.body);
    const gz = gzipSync(full.body).length;
    // Served again from the server's cache for the same version: what a second gate asking pays is the per-device part.
    const again = await get();

    // Ten changes: five visits revoked, five list entries ended.
    const v = list.v;
    const ids = await db.selectFrom('car_application').select('car_application_id').orderBy('car_application_id', 'desc').limit(5).execute();
    for (const r of ids) await db.updateTable('car_application').set({ state: AppState.REVOKED }).where('car_application_id', '=', r.car_application_id).execute();
    const entries = await db.selectFrom('car_black_white_list').select('id').orderBy('id', 'desc').limit(5).execute();
    for (const r of entries) await db.updateTable('car_black_white_list').set({ status: 4 }).where('id', '=', r.id).execute();
    const delta = await get(`?since=${v}`);
    const deltaList = payload(delta.body);
    const times: number[] = [];
    for (let i = 0; i < DELTA_REQUESTS; i++) times.push((await get(`?since=${v}`)).ms);
    // The full list at the new version: the server patches its records with the ten changes and hashes, compresses and signs for this gate.
    const patchedFull = await get();

    const rows = [
      {
        what: `full list of ${list.entries.length.toLocaleString('en')} entries, gzip`,
        target: '≤ 2 MB',
        figure: `${(gz / 1_048_576).toFixed(2)} MB (${(full.body.length / 1_048_576).toFixed(2)} MB as sent)`,
        met: gz <= 2 * 1_048_576,
      },
      {
        what: 'full list built for a gate after 10 changes (records patched; HMAC, gzip, sign)',
        target: '≤ 1 s',
        figure: `${(patchedFull.ms / 1000).toFixed(2)} s (first after a start, reading every row: ${(full.ms / 1000).toFixed(2)} s; cached: ${again.ms.toFixed(0)} ms)`,
        met: patchedFull.ms <= 1000,
      },
      {
        what: `delta of 10 changes (${deltaList.entries.length} entries, ${(deltaList.removed ?? []).length} removed)`,
        target: '≤ 2 KB',
        figure: `${delta.body.length} B`,
        met: delta.body.length <= 2048,
      },
      { what: `delta of 10 changes, p95 of ${DELTA_REQUESTS}`, target: '≤ 50 ms', figure: `${p95(times)!.toFixed(1)} ms`, met: p95(times)! <= 50 },
    ];
    console.log('\nallow-list targets (docs/offline-gates.md)');
    for (const r of rows) console.log(`  ${r.met ? 'ok  ' : 'MISS'} ${r.what}: ${r.target} → ${r.figure}`);
    targets.push(...rows.map((r) => ({ ...r, what: `allow-list: ${r.what}` })));
  } finally {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  benchAllowlist()
    .then(() => {
      if (targets.some((t) => !t.met)) process.exitCode = 1;
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
