import { z } from 'zod';
import { binary, col, defineCall, defineUpload } from '../contract';

/**
 * Files (DESIGN.md §7): one upload at a time, read back by name with the
 * session's Bearer header or with `?access=`, a signed token an <img> can
 * carry (src/lib/files.ts).
 */

/** A stored upload: its name (what a record keeps), a URL that reads it now, its size and detected type. */
export const uploadedFileRow = z.object({ name: col.text, url: col.text, size: col.int, type: col.text });
export type UploadedFile = z.infer<typeof uploadedFileRow>;

/** `?access=` of a file read: any value is taken as given, and anything but a good token answers 401 (server/modules/files.ts fileReader). */
export const fileQuery = z.object({ access: z.unknown().optional().describe('文件访问令牌（/file/accessToken 或上传答复中的 url 所带）') });

export const fileApi = {
  // Its answer is the token itself: never kept for an Idempotency-Key replay (secretAnswer 'refuse', on the route).
  accessToken: defineCall({
    method: 'POST',
    path: '/file/accessToken',
    permission: 'signed-in',
    summary: '签发文件访问令牌（供 <img> 使用）',
    input: z.object({}),
    /** expiresAt in ms since the epoch; expiresIn in seconds from now, so a phone whose clock is off still refreshes in time. */
    answer: z.object({ access: col.text, expiresAt: col.int, expiresIn: col.int }),
  }),
  // A role, as for every other write: a signed-in account without one only sees the 403 page.
  upload: defineUpload({
    method: 'POST',
    path: '/file/upload',
    permission: 'role',
    summary: '上传文件',
    operation: '上传文件',
    multipart: { file: '图片（JPG、PNG、WEBP、GIF，≤10MB）或文档（PDF、XLSX，≤20MB），一次一个' },
    answer: uploadedFileRow,
  }),
  // 'public' to the guard because an <img> cannot send a header; the route checks its reader itself.
  read: defineCall({
    method: 'GET',
    path: '/file/:name',
    permission: 'public',
    summary: '读取文件（Bearer 或 ?access= 令牌）',
    input: fileQuery,
    answer: binary('application/octet-stream'),
  }),
};

/** The `:name` of a file read: checked by the route itself (one answer, 404, for a bad name, an absent file and one not the caller's). */
export const fileParams = z.object({ name: z.string() });
