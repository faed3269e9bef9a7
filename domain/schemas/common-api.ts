import { z } from 'zod';
import { binary, col, defineCall } from '../contract';
import { enumNames, type EnumName } from '../enums';

/**
 * The calls every screen shares: the code tables, the system's version, and
 * the API's own description. Apart from schemas/common.ts, which
 * domain/contract.ts itself imports.
 */

/** One option of a code table (domain/enums.ts EnumOption). */
export const enumOptionRow = z.object({
  value: col.int,
  label: col.text,
  color: z.enum(['success', 'warning', 'danger', 'primary', 'default']).optional(),
});

/** The `:name` of one code table: any text; an unknown name answers 404 from the route. */
export const enumParams = z.object({ name: z.string() });

export const commonApi = {
  enum: defineCall({ method: 'GET', path: '/common/enum/:name', permission: 'role', summary: '一个代码表的选项', input: z.object({}), answer: z.array(enumOptionRow) }),
  // Every code table in one answer: what the PWA loads after sign-in, instead of one call per table.
  enums: defineCall({
    method: 'GET',
    path: '/common/enums',
    permission: 'role',
    summary: '全部代码表',
    input: z.object({}),
    answer: z.record(z.enum(enumNames as [EnumName, ...EnumName[]]), z.array(enumOptionRow)),
  }),
  version: defineCall({
    method: 'GET',
    path: '/system/version',
    permission: 'public',
    summary: '系统版本与运行信息',
    input: z.object({}),
    answer: z.object({ version: col.text, startedAt: col.time, database: z.enum(['PostgreSQL', 'SQLite']), node: col.text }),
  }),
  /** The document itself, not an envelope around it. */
  openapi: defineCall({ method: 'GET', path: '/openapi.json', permission: 'public', summary: 'OpenAPI 3 描述', input: z.object({}), answer: binary('application/json') }),
  docs: defineCall({ method: 'GET', path: '/docs', permission: 'public', summary: '接口文档页面', input: z.object({}), answer: binary('text/html') }),
};
export type ServerVersion = z.infer<typeof commonApi.version.answer>;
