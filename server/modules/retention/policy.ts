import type { Kysely } from 'kysely';
import { minimumDays, RETENTION_CLASSES, retentionClasses, type RetentionClass } from '../../../domain/retention';
import type { RetentionDaysInput, RetentionPolicyClass } from '../../../domain/schemas/retention';
import type { DB } from '../../db/schema';

/**
 * The retention policy: the days of each class as someone set them
 * (retention_policy, migration 034), a class without a row keeping its
 * default from domain/retention.ts.
 */

export interface PolicyEntry {
  days: number;
  updatedBy: string | null;
  updatedAt: string | null;
}
export type Policy = Record<RetentionClass, PolicyEntry>;

export async function readPolicy(db: Kysely<DB>): Promise<Policy> {
  const rows = await db.selectFrom('retention_policy').selectAll().execute();
  const byKey = new Map(rows.map((r) => [r.class_key, r]));
  return Object.fromEntries(
    RETENTION_CLASSES.map((key) => {
      const row = byKey.get(key);
      // A row below today's minimum (a floor raised by a later release) is held to the floor.
      const days = row ? Math.max(row.days, minimumDays(retentionClasses[key])) : retentionClasses[key].defaultDays;
      return [key, { days, updatedBy: row ? row.updated_by_name : null, updatedAt: row?.updated_at ?? null }];
    }),
  ) as Policy;
}

/** Sets the classes given whose days change, as `user` at `now`; the others keep their row (and who set it). Answers the classes changed. */
export async function savePolicy(trx: Kysely<DB>, days: RetentionDaysInput, user: { id: number; name: string }, now: string): Promise<RetentionClass[]> {
  const current = await readPolicy(trx);
  const changed: RetentionClass[] = [];
  for (const key of RETENTION_CLASSES) {
    const value = days[key];
    // An unchanged value keeps who set it, or its standing as the default.
    if (typeof value !== 'number' || value === current[key].days) continue;
    await trx
      .insertInto('retention_policy')
      .values({ class_key: key, days: value, updated_by: user.id, updated_by_name: user.name, updated_at: now })
      .onConflict((oc) => oc.column('class_key').doUpdateSet({ days: value, updated_by: user.id, updated_by_name: user.name, updated_at: now }))
      .execute();
    changed.push(key);
  }
  return changed;
}

/** Each class as the policy call answers it. */
export function policyClasses(policy: Policy): RetentionPolicyClass[] {
  return RETENTION_CLASSES.map((key) => {
    const c = retentionClasses[key];
    return {
      key,
      label: c.label,
      field_label: c.fieldLabel,
      scope: c.scope,
      clock: c.clock,
      action: c.action,
      days: policy[key].days,
      default_days: c.defaultDays,
      min_days: minimumDays(c),
      rule: c.minimum?.rule ?? null,
      updated_by: policy[key].updatedBy,
      updated_at: policy[key].updatedAt,
    };
  });
}
