import type { FastifyInstance } from 'fastify';
import { DEFAULT_SAFETY_SETTINGS, safetySettingApi, safetySettingAnswer, type SafetySettings, type SafetySettingValues } from '../../domain/schemas/safety-setting';
import { ok } from '../core/errors';
import type { Db } from '../core/repository';
import { route } from '../core/route';

/**
 * 安全设置 (domain/schemas/safety-setting.ts): one JSON row of sys_setting,
 * read where the rules need it (the gate's hazardous-goods cap, the
 * repeat-offender rule) and saved whole by its screen. A row that is missing
 * or unreadable, or a field it lacks, is the default.
 */

export const SAFETY_SETTING_KEY = 'safety_settings';

/** The settings in force now (every read goes to the database: two servers share them). */
export async function readSafetySettings(db: Db): Promise<SafetySettings> {
  const row = await db.selectFrom('sys_setting').select('value').where('key', '=', SAFETY_SETTING_KEY).executeTakeFirst();
  if (!row) return { ...DEFAULT_SAFETY_SETTINGS };
  let stored: unknown;
  try {
    stored = JSON.parse(row.value);
  } catch {
    return { ...DEFAULT_SAFETY_SETTINGS };
  }
  const merged = { ...DEFAULT_SAFETY_SETTINGS, ...(stored && typeof stored === 'object' ? stored : {}) };
  const parsed = safetySettingAnswer.safeParse(merged);
  return parsed.success ? parsed.data : { ...DEFAULT_SAFETY_SETTINGS };
}

/** Saves the whole form as `userName` at `now`; one statement, so two saves at once leave one of them whole. */
export async function saveSafetySettings(db: Db, values: SafetySettingValues, userName: string, now: string): Promise<SafetySettings> {
  const settings: SafetySettings = { ...values, updated_by: userName, updated_at: now };
  const value = JSON.stringify(settings);
  await db
    .insertInto('sys_setting')
    .values({ key: SAFETY_SETTING_KEY, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
  return settings;
}

export async function safetySettingRoutes(app: FastifyInstance) {
  const { ctx } = app;
  route(app, safetySettingApi.get, async () => ok(await readSafetySettings(ctx.db)));
  route(app, safetySettingApi.save, async (req) => ok(await saveSafetySettings(ctx.db, req.body, req.auth!.userName, ctx.time()), '保存成功！'));
}
