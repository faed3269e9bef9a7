import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { ErrorCode } from '../../domain/errors';
import { fileApi, fileParams } from '../../domain/schemas/files';
import { authenticate, authenticateSession, bearerToken } from '../core/auth';
import type { AuthContext } from '../core/context';
import { AppError, ok } from '../core/errors';
import { recordFileObject } from '../core/file-refs';
import { detectFileType, FILE_TYPES, type FileType } from '../core/file-type';
import { withoutUrlQuery } from '../core/idempotency';
import { route } from '../core/route';
import { fileStoreOf, isFileName } from '../core/storage';
import type { DB } from '../db/schema';
import { mayReadFile } from './access';

export const IMAGE_MAX_BYTES = 10 * 1024 * 1024;
export const DOCUMENT_MAX_BYTES = 20 * 1024 * 1024;
/** How long a file access token (`?access=`) stays valid. */
export const FILE_ACCESS_TTL_MS = 12 * 3600_000;

const MSG_EMPTY = '请选择要上传的文件';
const MSG_ONE_FILE = '一次只能上传一个文件：请求中有多个文件，均未保存';
const MSG_UNSUPPORTED = '不支持的文件类型，仅支持 JPG、PNG、WEBP、GIF、PDF、XLSX';
const MSG_NOT_FOUND = '文件不存在或无权查看';
const tooLarge = (max: number) => `文件不能超过${max / 1024 / 1024}MB`;

// ---------- access tokens for <img> ----------

const SECRET_KEY = 'file_access_secret';

/** The HMAC key of file access tokens: made on first start, kept in sys_setting so every server of one database accepts the others' tokens. */
export async function loadFileAccessSecret(db: Kysely<DB>): Promise<Buffer> {
  const read = () => db.selectFrom('sys_setting').select('value').where('key', '=', SECRET_KEY).executeTakeFirst();
  let row = await read();
  if (!row) {
    await db
      .insertInto('sys_setting')
      .values({ key: SECRET_KEY, value: randomBytes(32).toString('base64url') })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    row = await read();
  }
  return Buffer.from(row!.value, 'base64url');
}

export interface FileAccessClaims {
  userId: number;
  sessionId: number;
  /** ms since the epoch, whole seconds. */
  expiresAt: number;
}

const mac = (secret: Buffer, payload: string) => createHmac('sha256', secret).update(`file-access:${payload}`).digest('base64url');

/** `userId.sessionId.expirySeconds.HMAC-SHA256` */
export function signFileAccess(secret: Buffer, c: FileAccessClaims): string {
  const payload = `${c.userId}.${c.sessionId}.${Math.floor(c.expiresAt / 1000)}`;
  return `${payload}.${mac(secret, payload)}`;
}

/** The claims of a well-formed, correctly signed, unexpired token; else null. */
export function verifyFileAccess(secret: Buffer, token: string, now = Date.now()): FileAccessClaims | null {
  const m = /^(\d{1,15})\.(\d{1,15})\.(\d{1,13})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return null;
  const expected = Buffer.from(mac(secret, `${m[1]}.${m[2]}.${m[3]}`));
  const given = Buffer.from(m[4]);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  const claims = { userId: Number(m[1]), sessionId: Number(m[2]), expiresAt: Number(m[3]) * 1000 };
  return claims.expiresAt > now ? claims : null;
}

/**
 * The caller of a file read, as the rules of the records holding the file
 * need it (user, department, permission codes). Either a Bearer session (as
 * every other route checks it) or `?access=`, a signed token an <img> can
 * carry: correctly signed, unexpired, and its session still live and its
 * user still enabled (signing out, a password change or disabling the user
 * ends the token too). Throws 401 otherwise.
 */
async function fileReader(app: FastifyInstance, req: FastifyRequest<{ Querystring: { access?: unknown } }>, secret: Buffer): Promise<AuthContext> {
  const token = bearerToken(req);
  const viaBearer = token ? await authenticate(app, token) : null;
  if (viaBearer) return viaBearer;
  const access = req.query.access;
  if (typeof access === 'string' && access) {
    const claims = verifyFileAccess(secret, access);
    const auth = claims ? await authenticateSession(app, claims.sessionId, claims.userId) : null;
    if (auth) return auth;
  }
  throw new AppError(ErrorCode.UNAUTHENTICATED, token || access ? '登录已过期，请重新登录' : '请先登录');
}

/**
 * Headers of a file answer. Only images are shown in the page; anything
 * else (a PDF may carry an OpenAction script) is a download. The sandbox
 * CSP keeps a file opened in its own tab from running anything under the
 * park's origin even if a browser renders it after all.
 */
export function fileHeaders(name: string, size: number): Record<string, string | number> {
  const type = FILE_TYPES[name.slice(name.lastIndexOf('.') + 1) as FileType['ext']];
  return {
    'Content-Type': type?.mime ?? 'application/octet-stream',
    'Content-Length': size,
    'Cache-Control': 'private, max-age=31536000, immutable',
    // The same Bearer URL answers differently per user: a shared browser cache must not hand one user's copy to the next.
    Vary: 'Authorization',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    'Content-Disposition': `${type?.image ? 'inline' : 'attachment'}; filename="${name}"`,
  };
}

/**
 * Reads the one file part of a multipart request, checks its type from its
 * content and its size, stores it and records its uploader (in a
 * transaction, so that an Idempotency-Key is marked done with it). The
 * plugin calling it registers @fastify/multipart (multipartLimits).
 */
export async function receiveUpload(
  req: FastifyRequest,
  o: {
    uploaderUserId: number;
    uploaderDeviceId?: number;
    imagesOnly?: boolean;
    /** Checks the form's other fields (a notice's id) once the file is read, before anything is stored: throw to refuse. */
    accept?: (fields: Record<string, string>) => Promise<void>;
  },
): Promise<{ name: string; size: number; type: string; fileName: string; fields: Record<string, string> }> {
  if (!req.isMultipart()) throw new AppError(ErrorCode.VALIDATION, MSG_EMPTY);
  let data: Buffer | undefined;
  let truncated = false;
  let fileName = '';
  const fields: Record<string, string> = {};
  try {
    // Every part is walked to the end of the body: a second file must be refused, not silently dropped.
    // throwFileSizeLimit is read by the plugin's part handler for parts() as for file(); only its typing leaves it out.
    for await (const part of req.parts({ throwFileSizeLimit: false } as Parameters<typeof req.parts>[0])) {
      if (part.type !== 'file') {
        fields[part.fieldname] = String(part.value);
        continue;
      }
      fileName = part.filename;
      const chunks: Buffer[] = [];
      for await (const chunk of part.file) chunks.push(chunk as Buffer);
      data = Buffer.concat(chunks);
      truncated = part.file.truncated;
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    // multipartLimits allows one file: busboy stops at the start of a second.
    if ((err as { code?: string }).code === 'FST_FILES_LIMIT') throw new AppError(ErrorCode.VALIDATION, MSG_ONE_FILE);
    const status = (err as { statusCode?: number }).statusCode;
    if (status === 413) throw new AppError(ErrorCode.PAYLOAD_TOO_LARGE, `上传的表单项过多：一次最多${multipartLimits.fields}个字段、${multipartLimits.parts}个部分`);
    throw new AppError(ErrorCode.VALIDATION, '上传的内容不完整，请重试');
  }
  if (!data) throw new AppError(ErrorCode.VALIDATION, MSG_EMPTY);
  req.auditParams = { file: fileName, size: data.length };
  if (data.length === 0) throw new AppError(ErrorCode.VALIDATION, MSG_EMPTY);
  const type = detectFileType(data, !truncated);
  if (!type || (o.imagesOnly && !type.image)) throw new AppError(ErrorCode.UNSUPPORTED_MEDIA, MSG_UNSUPPORTED);
  const max = type.image ? IMAGE_MAX_BYTES : DOCUMENT_MAX_BYTES;
  if (truncated || data.length > max) throw new AppError(ErrorCode.PAYLOAD_TOO_LARGE, tooLarge(max));
  await o.accept?.(fields);
  const name = await fileStoreOf(req.server.ctx).put(data, type.ext);
  await req.server.ctx.db.transaction().execute((trx) => recordFileObject(trx, name, o.uploaderUserId, req.server.ctx.now(), o.uploaderDeviceId ?? null));
  req.auditParams = { file: fileName, size: data.length, name };
  return { name, size: data.length, type: type.mime, fileName, fields };
}

/** One file per request, at most a document's size: what every upload route's multipart registration allows. */
export const multipartLimits = { fileSize: DOCUMENT_MAX_BYTES, files: 1, fields: 10, parts: 20 };

export async function fileRoutes(app: FastifyInstance) {
  const store = fileStoreOf(app.ctx);
  const secret = await loadFileAccessSecret(app.ctx.db);
  // Scoped to this plugin: only the upload route parses multipart bodies.
  await app.register(multipart, { limits: multipartLimits });

  const issueAccess = (req: FastifyRequest) => {
    const expiresAt = Math.floor((Date.now() + FILE_ACCESS_TTL_MS) / 1000) * 1000;
    const access = signFileAccess(secret, { userId: req.auth!.userId, sessionId: req.auth!.sessionId, expiresAt });
    return { access, expiresAt, expiresIn: Math.round((expiresAt - Date.now()) / 1000) };
  };

  route(app, fileApi.accessToken, async (req) => ok(issueAccess(req)), { config: { secretAnswer: 'refuse' } });

  // The answer's url carries an access token: a replay gets it without (withoutUrlQuery).
  route(
    app,
    fileApi.upload,
    async (req) => {
      const file = await receiveUpload(req, { uploaderUserId: req.auth!.userId });
      return ok({ name: file.name, url: `/api/file/${file.name}?access=${encodeURIComponent(issueAccess(req).access)}`, size: file.size, type: file.type }, '上传成功');
    },
    { config: { secretAnswer: withoutUrlQuery } },
  );

  // 'public' to the guard because an <img> cannot send a header; fileReader is this route's own check.
  // Its request lines stay out of the info log: the URL carries the access token.
  route(
    app,
    fileApi.read,
    async (req, reply) => {
      const auth = await fileReader(app, req, secret);
      const name = (req.params as { name: string }).name;
      // One answer for absent and not allowed: whether a name exists is itself not for everyone.
      const opened = isFileName(name) && (await mayReadFile(app.ctx.db, auth, name)) ? await store.open(name) : null;
      if (!opened) throw new AppError(ErrorCode.NOT_FOUND, MSG_NOT_FOUND);
      return reply.headers(fileHeaders(name, opened.size)).send(opened.stream);
    },
    { logLevel: 'warn', params: fileParams },
  );
}
