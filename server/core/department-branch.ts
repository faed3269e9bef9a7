import type { Kysely, Transaction } from 'kysely';
import { branchOf } from '../../domain/schemas/department';
import type { DB } from '../db/schema';

/** A department and everything under it, for filters and rules that take a branch of the tree. */
export async function departmentBranch(db: Kysely<DB> | Transaction<DB>, id: number): Promise<number[]> {
  return branchOf(await db.selectFrom('sys_department').select(['depart_id', 'pid']).where('deleted', '=', 0).execute(), id);
}
