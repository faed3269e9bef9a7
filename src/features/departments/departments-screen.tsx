import { departCreate, departmentApi, departmentLabels, departUpdate, type DepartmentRow } from '../../../domain/schemas/department';
import { call } from '../../lib/http';
import { departmentsQuery } from '../../lib/preloads';
import { defineScreen } from '../../list-screen';

const { calls } = departmentApi;

type TreeRow = DepartmentRow & { depth?: number };

/** The tree depth first, each row knowing its depth: a parent sits above its children, indented by level. */
function treeOrder(rows: TreeRow[]): TreeRow[] {
  const present = new Set(rows.map((r) => r.depart_id));
  const children = new Map<number, TreeRow[]>();
  for (const r of rows) {
    // A row whose parent is filtered out stands at the top, as a root would.
    const parent = present.has(r.pid) ? r.pid : 0;
    children.set(parent, [...(children.get(parent) ?? []), r]);
  }
  const out: TreeRow[] = [];
  const seen = new Set<number>();
  const walk = (pid: number, depth: number) => {
    for (const r of children.get(pid) ?? []) {
      if (seen.has(r.depart_id)) continue;
      seen.add(r.depart_id);
      out.push({ ...r, depth });
      walk(r.depart_id, depth + 1);
    }
  };
  walk(0, 0);
  // Rows no root reaches (a loop written around the API) are still listed, at the top level.
  for (const r of rows) if (!seen.has(r.depart_id)) out.push({ ...r, depth: 0 });
  return out;
}

/** 部门管理 (spec 002 §2 Department tree, §5 Department; codes dept:*). */
export const departmentsScreen = defineScreen<TreeRow>({
  key: 'system.departments',
  title: '部门管理',
  labels: departmentLabels,
  list: { path: calls.all, answer: 'array', arrange: treeOrder, paged: false },
  rowKey: 'depart_id',
  // Users, appointment forms and filters read departments from this preload: a change shows there at once.
  invalidates: [departmentsQuery.queryKey],
  card: { title: 'name', extra: 'visit_area' },
  fields: [
    {
      name: 'name',
      kind: 'text',
      dataIndex: 'name',
      width: 260,
      render: (r) => (
        <span className="dept-name" style={{ paddingLeft: `${(r.depth ?? 0) * 1.25}em` }}>
          {(r.depth ?? 0) > 0 ? '└ ' : ''}
          {r.name}
        </span>
      ),
    },
    { name: 'pid', kind: 'department', dataIndex: 'pid', hideInSearch: true, hideInTable: true, hideInCard: true, hideInDetail: true, form: { required: false, help: '不选则为顶级部门' } },
    { name: 'code', kind: 'text', dataIndex: 'code', hideInSearch: true, width: 160 },
    { name: 'visit_area', kind: 'enum', options: 'visitArea', dataIndex: 'visit_area', hideInSearch: true, width: 140 },
    { name: 'remark', kind: 'textarea', dataIndex: 'remark', hideInSearch: true, width: 200, form: { help: '最多80个字' } },
    { name: 'createTime', kind: 'text', dataIndex: 'create_time', hideInSearch: true, hideInForm: true, hideInCard: true, width: 170 },
  ],
  toolbar: [{ key: 'add', label: '新增部门', type: 'create', permission: 'dept:add' }],
  rowActions: [
    { key: 'child', label: '新增下级', type: 'createFrom', permission: 'dept:add' },
    { key: 'edit', label: '编辑', type: 'edit', permission: 'dept:edit' },
    { key: 'delete', label: '删除', type: 'delete', permission: 'dept:delete', path: calls.delete, body: (r) => ({ departId: r.depart_id }) },
  ],
  form: {
    schema: { create: departCreate, edit: departUpdate },
    create: { path: calls.save, title: '新增部门' },
    edit: { path: calls.edit, title: '编辑部门', idParam: 'departId' },
    childOf: (r) => ({ pid: r.depart_id, visit_area: r.visit_area }),
  },
  detail: { title: '部门详情', fetch: (r) => call(calls.get, { departId: r.depart_id }) },
});
