import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope } from '../../domain/envelope';
import { dateOf } from '../../domain/visit-rules';
import { fileAccess } from '../../server/db/migrations/007-file-access';
import { rgbPng } from '../../server/seed/seed-appointments';
import { loadFileAccessSecret, signFileAccess } from '../../server/modules/files';
import { carApplicationBody, idNumber, personApplicationBody } from './fixtures';
import { Client, dialects, readLog, startServer, type TestServer } from './harness';

// ---------- tiny real files ----------

/** A valid 1×1 red PNG. */
const tinyPng = () => rgbPng(1, 1, () => [255, 0, 0]);

/** A stored (uncompressed) zip holding the given entries. */
function zip(entries: Record<string, string>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(entries)) {
    const nameBuf = Buffer.from(name, 'utf8');
    const data = Buffer.from(text, 'utf8');
    const crc = zlib.crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBuf.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBuf, data);
    centrals.push(central, nameBuf);
    offset += 30 + nameBuf.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(Object.keys(entries).length, 8);
  eocd.writeUInt16LE(Object.keys(entries).length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, eocd]);
}

const NOT_FOUND = { success: false, code: 1005, msg: '文件不存在或无权查看', message: '文件不存在或无权查看', data: null };

interface Uploaded {
  name: string;
  url: string;
  size: number;
  type: string;
}

for (const dialect of await dialects()) {
  describe(`files on ${dialect}`, () => {
    let server: TestServer;
    let admin: Client;
    const png = tinyPng();

    const upload = async (c: Client | null, data: Buffer | null, filename = 'photo.png', mime = 'image/png', field = 'file') => {
      const form = new FormData();
      if (data) form.append(field, new Blob([new Uint8Array(data)], { type: mime }), filename);
      else form.append('note', 'no file here');
      const res = await fetch(`${server.base}/api/file/upload`, { method: 'POST', body: form, headers: c?.token ? { authorization: `Bearer ${c.token}` } : {} });
      return { status: res.status, body: (await res.json()) as Envelope<Uploaded> };
    };
    const fetchFile = (urlPath: string, token?: string | null) => fetch(`${server.base}${urlPath}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    const accessOf = async (c: Client) => (await c.post<{ access: string; expiresAt: number; expiresIn: number }>('/file/accessToken')).body.data;

    beforeAll(async () => {
      server = await startServer(dialect);
      admin = await new Client(server).as('admin');
    });
    afterAll(async () => server?.close());

    it('stores a PNG under a random name and serves it back with the Bearer header', async () => {
      const r = await upload(admin, png, '../../evil.txt', 'text/plain');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ success: true, code: 1000, data: { size: png.length, type: 'image/png' } });
      const { name, url } = r.body.data;
      expect(name).toMatch(/^[0-9a-f]{32}\.png$/);
      expect(url).toMatch(new RegExp(`^/api/file/${name}\\?access=`));
      expect(fs.existsSync(path.join(server.dataDir, 'files', name.slice(0, 2), name))).toBe(true);

      const res = await fetchFile(`/api/file/${name}`, admin.token);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-disposition')).toMatch(/^inline/);
      expect(Buffer.from(await res.arrayBuffer()).equals(png)).toBe(true);

      // The url of the answer works as it is, as an <img> would use it.
      const direct = await fetchFile(url);
      expect(direct.status).toBe(200);
      expect(Buffer.from(await direct.arrayBuffer()).equals(png)).toBe(true);

      // The operation log is written once the answer has gone out (onResponse): wait for it rather than race it.
      const logged = () => server.app.ctx.db.selectFrom('sys_operation_log').select(['operation', 'result', 'params']).where('operation', '=', '上传文件').execute();
      await expect.poll(async () => (await logged()).length, { timeout: 5000 }).toBeGreaterThan(0);
      const ops = await logged();
      expect(ops[0]).toMatchObject({ result: 1 });
    });

    it('serves a file to an <img> through ?access= and refuses it without any credential', async () => {
      const { name } = (await upload(admin, png)).body.data;
      const a = await accessOf(admin);
      expect(a.access).toBeTruthy();
      expect(a.expiresAt - Date.now()).toBeGreaterThan(11.9 * 3600_000);
      expect(a.expiresAt - Date.now()).toBeLessThanOrEqual(12 * 3600_000);
      const ok = await fetchFile(`/api/file/${name}?access=${encodeURIComponent(a.access)}`);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toBe('image/png');

      const none = await fetchFile(`/api/file/${name}`);
      expect(none.status).toBe(401);
      expect(((await none.json()) as Envelope<unknown>).code).toBe(1002);
      expect((await fetchFile(`/api/file/${name}`, 'not-a-session')).status).toBe(401);
      expect((await upload(null, png)).status).toBe(401);
      expect((await new Client(server).post('/file/accessToken')).status).toBe(401);

      // The access token stays out of the log.
      expect(readLog(server)).not.toContain(a.access);
    });

    it('refuses tampered, expired and revoked access tokens', async () => {
      const { name } = (await upload(admin, png)).body.data;
      const { access } = await accessOf(admin);
      const [userId, sessionId] = access.split('.').map(Number);
      const get = (t: string) => fetchFile(`/api/file/${name}?access=${encodeURIComponent(t)}`).then((r) => r.status);

      const sig = access.slice(access.lastIndexOf('.') + 1);
      const flipped = access.slice(0, -sig.length) + (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
      expect(await get(flipped)).toBe(401);
      // Another user's id under the same signature.
      expect(await get(access.replace(/^\d+\./, `${userId + 1}.`))).toBe(401);
      // A later expiry under the same signature.
      const parts = access.split('.');
      expect(await get([parts[0], parts[1], String(Number(parts[2]) + 3600), parts[3]].join('.'))).toBe(401);
      expect(await get('garbage')).toBe(401);

      // Correctly signed with the server's own key, but expired.
      const secret = await loadFileAccessSecret(server.app.ctx.db);
      expect(await get(signFileAccess(secret, { userId, sessionId, expiresAt: Date.now() + 60_000 }))).toBe(200);
      expect(await get(signFileAccess(secret, { userId, sessionId, expiresAt: Date.now() - 1000 }))).toBe(401);

      // A disabled user's tokens stop working, and work again once re-enabled.
      const contact = await new Client(server).as('contact');
      const own = (await upload(contact, png)).body.data.name;
      const c = await accessOf(contact);
      const getOwn = (t: string) => fetchFile(`/api/file/${own}?access=${encodeURIComponent(t)}`).then((r) => r.status);
      expect(await getOwn(c.access)).toBe(200);
      const { db } = server.app.ctx;
      const cUser = Number(c.access.split('.')[0]);
      await db.updateTable('sys_user').set({ status: 0 }).where('user_id', '=', cUser).execute();
      expect(await getOwn(c.access)).toBe(401);
      await db.updateTable('sys_user').set({ status: 1 }).where('user_id', '=', cUser).execute();
      expect(await getOwn(c.access)).toBe(200);
      // Signing out ends the session's tokens.
      expect((await contact.post('/user/logout')).status).toBe(200);
      expect(await getOwn(c.access)).toBe(401);
    });

    it('decides the type by content: a text file named .png is refused, PDF and XLSX pass, other zips do not', async () => {
      const fake = await upload(admin, Buffer.from('just some text, not an image'), 'photo.png', 'image/png');
      expect(fake.status).toBe(415);
      expect(fake.body).toMatchObject({ success: false, code: 1011, msg: '不支持的文件类型，仅支持 JPG、PNG、WEBP、GIF、PDF、XLSX' });

      const svg = await upload(admin, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'x.svg', 'image/svg+xml');
      expect(svg.status).toBe(415);

      const pdf = await upload(admin, Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n', 'latin1'), 'scan.jpg', 'image/jpeg');
      expect(pdf.status).toBe(200);
      expect(pdf.body.data).toMatchObject({ type: 'application/pdf' });
      expect(pdf.body.data.name).toMatch(/\.pdf$/);
      const pdfRes = await fetchFile(`/api/file/${pdf.body.data.name}`, admin.token);
      expect(pdfRes.headers.get('content-type')).toBe('application/pdf');

      const xlsx = await upload(admin, zip({ '[Content_Types].xml': '<Types/>', 'xl/workbook.xml': '<workbook/>' }), 'book.bin', 'application/octet-stream');
      expect(xlsx.status).toBe(200);
      expect(xlsx.body.data).toMatchObject({ type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' });
      expect(xlsx.body.data.name).toMatch(/\.xlsx$/);

      const otherZip = await upload(admin, zip({ 'readme.txt': 'hello' }), 'book.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
      expect(otherZip.status).toBe(415);
    });

    it('refuses images over 10 MB and documents over 20 MB', async () => {
      const bigImage = Buffer.concat([png.subarray(0, 16), Buffer.alloc(10 * 1024 * 1024 + 1 - 16)]);
      const r = await upload(admin, bigImage);
      expect(r.status).toBe(413);
      expect(r.body).toMatchObject({ success: false, code: 1010, msg: '文件不能超过10MB' });

      const bigPdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(20 * 1024 * 1024 + 1 - 9)]);
      const d = await upload(admin, bigPdf, 'big.pdf', 'application/pdf');
      expect(d.status).toBe(413);
      expect(d.body).toMatchObject({ code: 1010, msg: '文件不能超过20MB' });

      // Nothing was stored for refused uploads: the server is still healthy and answers normally.
      expect((await upload(admin, png)).status).toBe(200);
    });

    it('answers 400 to an empty upload or a request without a file', async () => {
      const empty = await upload(admin, Buffer.alloc(0));
      expect(empty.status).toBe(400);
      expect(empty.body).toMatchObject({ code: 1001, msg: '请选择要上传的文件' });
      const noFile = await upload(admin, null);
      expect(noFile.status).toBe(400);
      expect(noFile.body.msg).toBe('请选择要上传的文件');
      const json = await admin.post('/file/upload', {});
      expect(json.status).toBe(400);
      expect(json.body.msg).toBe('请选择要上传的文件');
    });

    it('answers 404 to unknown names and refuses path traversal', async () => {
      const unknown = await fetchFile(`/api/file/${'0'.repeat(32)}.png`, admin.token);
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as Envelope<unknown>).msg).toBe('文件不存在或无权查看');

      // park.db (SQLite) and server.log sit in DATA_DIR, right above DATA_DIR/files.
      for (const evil of [
        '..%2Fpark.db',
        '..%2F..%2Fserver.log',
        '%2E%2E%2F%2E%2E%2Fserver.log',
        '..%5C..%5Cserver.log',
        'server.log',
        '%2Fetc%2Fpasswd',
        `${'a'.repeat(32)}.png%00.txt`,
        `${'A'.repeat(32)}.PNG`,
      ]) {
        const res = await fetchFile(`/api/file/${evil}`, admin.token);
        expect(res.status, evil).toBe(404);
        const body = (await res.json()) as Envelope<unknown>;
        expect(body.success, evil).toBe(false);
      }
      // The guard comes first: without a credential nothing is revealed about names.
      expect((await fetchFile(`/api/file/${'0'.repeat(32)}.png`)).status).toBe(401);
    });

    // ---------- who may upload and read (issue 9, item 8) ----------

    const as = async (account: string) => new Client(server).as(account);
    /** Status and envelope of a read with the caller's Bearer session, and the same through their ?access= token. */
    const readAs = async (c: Client, name: string) => {
      const bearer = await fetchFile(`/api/file/${name}`, c.token);
      const { access } = await accessOf(c);
      const viaAccess = await fetchFile(`/api/file/${name}?access=${encodeURIComponent(access)}`);
      expect(viaAccess.status, `?access= for ${name}`).toBe(bearer.status);
      return { status: bearer.status, body: bearer.status === 200 ? null : ((await bearer.json()) as Envelope<unknown>) };
    };
    const canRead = async (c: Client, name: string) => {
      const r = await readAs(c, name);
      if (r.status === 404) expect(r.body).toEqual(NOT_FOUND);
      return r.status === 200;
    };

    it('refuses an upload from a signed-in account without a role with 403 and stores nothing for it', async () => {
      const norole = await as('norole');
      const r = await upload(norole, png);
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ success: false, code: 1004, msg: '当前账号没有操作角色，请联系管理员。', message: '当前账号没有操作角色，请联系管理员。', data: null });
      const noroleId = (await server.app.ctx.db.selectFrom('sys_user').select('user_id').where('account', '=', 'norole').executeTakeFirstOrThrow()).user_id;
      expect(await server.app.ctx.db.selectFrom('file_object').select('name').where('uploader_user_id', '=', noroleId).execute()).toEqual([]);
    });

    it('lets the uploader read their own upload; another contact gets the same 404 as for a name that does not exist', async () => {
      const contact = await as('contact');
      const portcontact = await as('portcontact');
      const reviewer = await as('reviewer');
      const { name, url } = (await upload(contact, png)).body.data;
      expect(await canRead(contact, name)).toBe(true);
      expect((await fetchFile(url)).status).toBe(200);

      // Not on any record yet: nobody else, not even the reviewer of the contact's enterprise.
      const other = await readAs(portcontact, name);
      expect(other).toEqual({ status: 404, body: NOT_FOUND });
      expect(await canRead(reviewer, name)).toBe(false);
      const absent = await readAs(portcontact, `${'0'.repeat(32)}.png`);
      expect(absent).toEqual(other);
    });

    it('once a photo is on an application, those who may read the application read it, and only while it holds the photo', async () => {
      const [contact, portcontact, reviewer, squad] = await Promise.all(['contact', 'portcontact', 'reviewer', 'squad'].map(as));
      const { db } = server.app.ctx;
      const today = dateOf(server.app.ctx.time());
      const shell = (await db.selectFrom('sys_department').select('depart_id').where('code', '=', 'CNOOC_SHELL').executeTakeFirstOrThrow()).depart_id;
      const face = (await upload(contact, png)).body.data.name;
      const idcard = (await upload(contact, png)).body.data.name;
      const person = personApplicationBody({ today, visitor_idcard: idNumber(dialect === 'sqlite' ? 1 : 2), interviewee_depart_id: shell });
      const saved = await contact.post<{ id: number }>('/v2/personApplications/save', { ...person, visitor_face_photo: face, visitor_idcard_photo1: idcard });
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      const id = saved.body.data.id;

      // A draft is its creator's alone.
      expect(await canRead(reviewer, face)).toBe(false);
      expect((await contact.post('/personApplications/push', { id })).body).toMatchObject({ success: true });
      // Submitted: the visited enterprise's reviewer holds its first task, the squad reads every application.
      expect(
        await db
          .selectFrom('process_task as t')
          .innerJoin('sys_user as u', 'u.user_id', 't.user_id')
          .select('t.process_task_id')
          .where('u.account', '=', 'reviewer')
          .where(
            't.process_instance_id',
            '=',
            (await db.selectFrom('person_application').select('process_instance_id').where('person_application_id', '=', id).executeTakeFirstOrThrow()).process_instance_id!,
          )
          .executeTakeFirst(),
      ).toBeTruthy();
      expect(await canRead(reviewer, face)).toBe(true);
      expect(await canRead(reviewer, idcard)).toBe(true);
      expect(await canRead(squad, face)).toBe(true);
      expect(await canRead(portcontact, face)).toBe(false);
      expect(await canRead(portcontact, idcard)).toBe(false);

      // Revoked, then edited without the ID photo: the photo no longer grants anything through it.
      expect((await contact.post('/personApplications/revoke', { id, reason: '行程取消' })).body).toMatchObject({ success: true });
      const edited = await contact.post('/v2/personApplications/edit', { ...person, person_application_id: id, visitor_face_photo: face, visitor_idcard_photo1: '' });
      expect(edited.body, JSON.stringify(edited.body)).toMatchObject({ success: true });
      expect(await canRead(reviewer, face)).toBe(true);
      expect(await canRead(reviewer, idcard)).toBe(false);
      expect(await canRead(contact, idcard)).toBe(true);

      // A vehicle: the driver's face photo (car_person) and a model's document, read by the same rule.
      const model = (await db.selectFrom('vehicle_type').select('id').where('name', '=', '中型客车').executeTakeFirstOrThrow()).id;
      const driver = (await upload(contact, png)).body.data.name;
      const blind = (await upload(contact, png)).body.data.name;
      const car = await contact.post<{ id: number }>('/v2/carApplications/save', {
        ...carApplicationBody({
          today,
          license_plate: dialect === 'sqlite' ? '粤L1F01S' : '粤L1F01P',
          applicant_idcard: idNumber(dialect === 'sqlite' ? 3 : 4),
          vehicle_type_id: model,
          interviewee_depart_id: shell,
        }),
        blind_video_photo: blind,
        carPersonList: [{ name: '测试司机', type: 1, phone: '13900002222', face_photo: driver }],
      });
      expect(car.body, JSON.stringify(car.body)).toMatchObject({ success: true });
      expect(await canRead(reviewer, driver)).toBe(false);
      expect((await contact.post('/carApplications/push', { id: car.body.data.id })).body).toMatchObject({ success: true });
      expect(await canRead(reviewer, driver)).toBe(true);
      expect(await canRead(reviewer, blind)).toBe(true);
      expect(await canRead(portcontact, driver)).toBe(false);
      expect(await canRead(portcontact, blind)).toBe(false);
    });

    it('refuses a record that names a file its author may not read, so a known name cannot be turned into access', async () => {
      const [contact, portcontact] = await Promise.all(['contact', 'portcontact'].map(as));
      const { db } = server.app.ctx;
      const today = dateOf(server.app.ctx.time());
      const shell = (await db.selectFrom('sys_department').select('depart_id').where('code', '=', 'CNOOC_SHELL').executeTakeFirstOrThrow()).depart_id;
      const model =
        (await db.selectFrom('vehicle_type').select('id').where('name', '=', '小型轿车').executeTakeFirst())?.id ??
        (await db.selectFrom('vehicle_type').select('id').where('need_record', '=', 0).executeTakeFirstOrThrow()).id;
      const secret = (await upload(contact, png)).body.data.name;
      const stolen = await portcontact.post('/v2/carApplications/save', {
        ...carApplicationBody({
          today,
          license_plate: dialect === 'sqlite' ? '粤L1F02S' : '粤L1F02P',
          applicant_idcard: idNumber(dialect === 'sqlite' ? 5 : 6),
          vehicle_type_id: model,
          interviewee_depart_id: shell,
        }),
        applicant_face_photo: secret,
      });
      expect(stolen.status).toBe(400);
      expect(stolen.body.msg).toBe(`文件“${secret}”不存在或无权使用，请重新上传`);
      expect(await canRead(portcontact, secret)).toBe(false);
      // Their own upload is fine.
      const own = (await upload(portcontact, png)).body.data.name;
      const saved = await portcontact.post('/v2/carApplications/save', {
        ...carApplicationBody({
          today,
          license_plate: dialect === 'sqlite' ? '粤L1F03S' : '粤L1F03P',
          applicant_idcard: idNumber(dialect === 'sqlite' ? 7 : 8),
          vehicle_type_id: model,
          interviewee_depart_id: shell,
        }),
        applicant_face_photo: own,
      });
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
    });

    it("reads a vehicle flag's photos through the flag: the all-history list and the scan screen, not an unrelated contact", async () => {
      const [patrol, squad, lead, portcontact] = await Promise.all(['patrol', 'squad', 'lead', 'portcontact'].map(as));
      const { db } = server.app.ctx;
      // An application of the contact's, so the port's contact has no way to it but the flag.
      const target = await db
        .selectFrom('car_application as a')
        .innerJoin('sys_user as u', 'u.user_id', 'a.create_user_id')
        .select('a.car_application_id')
        .where('u.account', '=', 'contact')
        .where('a.is_deleted', '=', 0)
        .orderBy('a.car_application_id')
        .executeTakeFirstOrThrow();
      const photo = (await upload(patrol, png)).body.data.name;
      expect(await canRead(squad, photo)).toBe(false);
      const r = await patrol.post('/label/vehicle/label', { car_application_ids: String(target.car_application_id), remark: '夜间违规停放', photo });
      expect(r.body).toMatchObject({ success: true });
      expect(await canRead(squad, photo)).toBe(true);
      expect(await canRead(lead, photo)).toBe(true);
      expect(await canRead(portcontact, photo)).toBe(false);
    });

    it('serves a PDF as a download and images inline, both sandboxed', async () => {
      // A PDF that would run a script when opened in the page.
      const evil = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog/OpenAction<</S/JavaScript/JS(app.alert(1))>>>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n', 'latin1');
      const pdf = (await upload(admin, evil, 'scan.pdf', 'application/pdf')).body.data;
      expect(pdf.type).toBe('application/pdf');
      const res = await fetchFile(`/api/file/${pdf.name}`, admin.token);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${pdf.name}"`);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'.*sandbox/);

      const img = (await upload(admin, png)).body.data;
      const shown = await fetchFile(img.url);
      expect(shown.status).toBe(200);
      expect(shown.headers.get('content-disposition')).toBe(`inline; filename="${img.name}"`);
      expect(shown.headers.get('x-content-type-options')).toBe('nosniff');
      expect(shown.headers.get('content-security-policy')).toMatch(/default-src 'none'.*sandbox/);
    });

    // Last: it drops and re-creates the file tables.
    it("gives the demo seed's photos their records, and migration 007 backfills records saved before it", async () => {
      const [reviewer, patrol, norole] = await Promise.all(['reviewer', 'patrol', 'norole'].map(as));
      const { db } = server.app.ctx;
      const seeded = (await db.selectFrom('car_application').select('vehicle_img').where('vehicle_img', '!=', '').orderBy('car_application_id').executeTakeFirstOrThrow()).vehicle_img;
      expect(await canRead(reviewer, seeded)).toBe(true);
      expect(await canRead(patrol, seeded)).toBe(true);
      expect(await canRead(norole, seeded)).toBe(false);

      // As on a database from before 007: no file tables, records with photos.
      await db.schema.dropTable('file_ref').execute();
      await db.schema.dropTable('file_object').execute();
      await fileAccess().up(db);
      expect(await canRead(reviewer, seeded)).toBe(true);
      expect(await canRead(norole, seeded)).toBe(false);
      const kinds = await db.selectFrom('file_ref').select('record_kind').distinct().where('file_name', '=', seeded).execute();
      expect(kinds.map((k) => k.record_kind).sort()).toEqual(['car_application', 'vehicle_mark']);
    });
  });
}
