import { ErrorCode } from '../../domain/errors';
import { branchOf, departmentApi, departmentLabels, type DepartCreate } from '../../domain/schemas/department';
import { AppError } from '../core/errors';
import type { Db } from '../core/repository';
import { defineResource, resourceRoutes } from '../core/resource';
import { readRule } from './access';

const liveDepartments = (db: Db) => db.selectFrom('sys_department').select(['depart_id', 'pid']).where('deleted', '=', 0).execute();

const refuse = (field: keyof typeof departmentLabels, message: string, code: typeof ErrorCode.VALIDATION | typeof ErrorCode.STATE_CONFLICT = ErrorCode.VALIDATION) =>
  new AppError(code, `${departmentLabels[field]}：${message}`, { errors: [{ field, label: departmentLabels[field], message }] });

/** 部门管理 (spec 002 §2 Department tree; codes dept:*): the tree answers as an array the client builds from depart_id and pid. */
export const departments = defineResource({
  contract: departmentApi,
  table: 'sys_department',
  softDelete: 'deleted',
  columns: ['depart_id', 'pid', 'name', 'code', 'visit_area', 'remark', 'create_time'],
  orderBy: [
    ['pid', 'asc'],
    ['depart_id', 'asc'],
  ],
  readable: readRule('department'),
  filters: { name: { column: 'name', match: 'contains' } },
  unique: [{ field: 'code', column: 'code' }],
  stamps: { createUser: 'create_user_id' },
  check: async (values, { mode, id }, db) => {
    const pid = Number(values.pid);
    if (pid === 0) return;
    const rows = await liveDepartments(db);
    if (!rows.some((r) => r.depart_id === pid)) throw refuse('pid', '所选上级部门不存在');
    // A department moved under itself or its own descendant would cut its branch off the tree.
    if (mode === 'edit' && branchOf(rows, id!).includes(pid)) throw refuse('pid', '不能选择本部门或其下级部门');
  },
  toRow: (values) => {
    const v = values as DepartCreate;
    return { pid: v.pid, name: v.name, code: v.code, visit_area: v.visit_area, remark: v.remark };
  },
  beforeDelete: async (trx, id) => {
    const child = await trx.selectFrom('sys_department').select('depart_id').where('pid', '=', id).where('deleted', '=', 0).executeTakeFirst();
    if (child) throw new AppError(ErrorCode.STATE_CONFLICT, '该部门下还有下级部门，请先删除下级部门');
    const user = await trx.selectFrom('sys_user').select('user_id').where('depart_id', '=', id).where('deleted', '=', 0).executeTakeFirst();
    if (user) throw new AppError(ErrorCode.STATE_CONFLICT, '该部门下还有用户，请先移出或删除这些用户');
  },
});

export const departmentRoutes = resourceRoutes(departments);
