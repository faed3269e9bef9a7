import { Input, TextArea } from 'antd-mobile';
import { useMemo, useRef, useState } from 'react';
import { enums, type EnumOption } from '../../../../domain/enums';
import {
  isBuiltinPermission,
  permissionBranch,
  permissionCreate,
  permissionLabels,
  permissionTreeOf,
  permissionUpdate,
  PERMISSION_TYPE,
  visibleTreeRows,
  type PermissionRow,
  type PermissionUpdate,
} from '../../../../domain/schemas/permission';
import { ChoiceRadio } from '../../../components/choice-radio';
import { EnumSelect } from '../../../components/enum-select';
import { ApiError } from '../../../lib/http';
import { useIsDesktop } from '../../../lib/use-media';
import { FormItem, ScreenModal, failureText } from '../../../list-screen';
import { fieldErrorMap } from '../../../list-screen/conventions';
import { useSavePermission, type SavePermissionInput } from '../api/save-permission';
import { IconPicker } from './icon-picker';
import { showToast } from '../../../lib/feedback';

interface Values {
  pid: number;
  name: string;
  code: string;
  type: number | undefined;
  route: string;
  icon: string | null;
  remark: string;
}

export interface PermissionFormProps {
  mode: 'create' | 'edit';
  /** The node edited (edit) or the parent a child is added under (create). */
  row?: PermissionRow;
  rows: readonly PermissionRow[];
  onClose: () => void;
  onSaved: () => void;
}

/** A child's likely type: a menu under a directory, a permission (button) under a menu. */
const childType = (parent?: PermissionRow) => (!parent ? PERMISSION_TYPE.DIRECTORY : parent.type === PERMISSION_TYPE.DIRECTORY ? PERMISSION_TYPE.MENU : PERMISSION_TYPE.PERMISSION);

/**
 * 新增 / 编辑权限 (spec 002 §2, §5): name, code, type, route (not for a
 * directory), icon from the gallery's set, remark; the shared zod schema
 * decides first, the server's field errors land under the same inputs. A
 * built-in node keeps everything but its remark (domain isBuiltinPermission).
 */
export function PermissionForm({ mode, row, rows, onClose, onSaved }: PermissionFormProps) {
  const desktop = useIsDesktop();
  const save = useSavePermission();
  const builtin = mode === 'edit' && !!row && isBuiltinPermission(row.code);
  const [values, setValues] = useState<Values>(() =>
    mode === 'edit' && row
      ? { pid: row.pid, name: row.name, code: row.code, type: row.type, route: row.route ?? '', icon: row.icon, remark: row.remark ?? '' }
      : { pid: row?.permission_id ?? 0, name: '', code: '', type: childType(row), route: '', icon: null, remark: '' },
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const formRef = useRef<HTMLFormElement>(null);

  // Parents: the root and every node that is not a button, in tree order, indented; never the node's own branch.
  const parents = useMemo<EnumOption[]>(() => {
    const own = mode === 'edit' && row ? new Set(permissionBranch(rows, row.permission_id)) : new Set<number>();
    const tree = visibleTreeRows(permissionTreeOf(rows), () => true);
    return [
      { value: 0, label: '顶级（无上级）' },
      ...tree.filter((v) => v.row.type !== PERMISSION_TYPE.PERMISSION && !own.has(v.row.permission_id)).map((v) => ({ value: v.row.permission_id, label: `${'　'.repeat(v.depth)}${v.row.name}` })),
    ];
  }, [rows, row, mode]);

  const set = <K extends keyof Values>(name: K, v: Values[K]) => {
    setValues((s) => ({ ...s, [name]: v }));
    setErrors((e) => {
      if (!(name in e)) return e;
      const { [name]: _drop, ...rest } = e;
      return rest;
    });
  };

  const submit = () => {
    if (save.isPending) return;
    const body = { ...values, route: values.type === PERMISSION_TYPE.DIRECTORY ? null : values.route, ...(mode === 'edit' && row ? { permissionId: row.permission_id } : {}) };
    const parsed = (mode === 'edit' ? permissionUpdate : permissionCreate).safeParse(body);
    if (!parsed.success) {
      setErrors(fieldErrorMap(parsed.error.issues));
      requestAnimationFrame(() => formRef.current?.querySelector('.ef-item--error')?.scrollIntoView({ block: 'center', behavior: 'smooth' }));
      return;
    }
    const input: SavePermissionInput = mode === 'edit' ? { mode: 'edit', values: parsed.data as PermissionUpdate } : { mode: 'create', values: parsed.data };
    save.mutate(input, {
      onSuccess: () => {
        showToast({ icon: 'success', content: mode === 'edit' ? '编辑成功！' : '创建成功！' });
        onSaved();
      },
      onError: (err) => {
        const e = err instanceof ApiError ? err : new ApiError(String(err), 1500, 0);
        const own = fieldErrorMap(e.fieldErrors.filter((f) => f.field in values));
        if (Object.keys(own).length) setErrors(own);
        showToast({ icon: 'fail', content: failureText(mode === 'edit' ? '编辑权限错误：' : '创建权限错误：', e.message), duration: 3000 });
      },
    });
  };

  const title = mode === 'edit' ? '编辑权限' : row ? `新增下级权限 · ${row.name}` : '新增权限';
  const item = (name: keyof Values, input: React.ReactNode, opts: { required?: boolean; help?: string } = {}) => (
    <FormItem label={permissionLabels[name]} required={opts.required} error={errors[name]} help={opts.help} htmlFor={`pf-${name}`}>
      {input}
    </FormItem>
  );

  return (
    <ScreenModal open title={title} width={600} onClose={onClose} onOk={submit} okText={desktop ? '确定' : '提交'} okLoading={save.isPending}>
      <form
        ref={formRef}
        className={`ef pf-boxed ${desktop ? 'ef--horizontal' : 'ef--vertical'}`}
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        {builtin && (
          <p className="pf-notice" role="note">
            内置权限：名称、编码、类型、上级、路由和图标随系统版本维护，只能修改备注。
          </p>
        )}
        {item('pid', <EnumSelect aria-label="上级权限" value={values.pid} onChange={(v) => set('pid', Number(v ?? 0))} options={parents} disabled={builtin} />)}
        {item('name', <Input id="pf-name" value={values.name} onChange={(v) => set('name', v)} placeholder="请输入权限名" disabled={builtin} />, { required: true })}
        {item('code', <Input id="pf-code" value={values.code} onChange={(v) => set('code', v)} placeholder="如 menu:report 或 report:export" disabled={builtin} />, {
          required: true,
          help: '数字、英文字母、冒号或下划线，全局唯一',
        })}
        {item('type', <ChoiceRadio value={values.type} onChange={(v) => set('type', v === undefined ? undefined : Number(v))} options={enums.permissionType} disabled={builtin} />, { required: true })}
        {values.type !== PERMISSION_TYPE.DIRECTORY &&
          item('route', <Input id="pf-route" value={values.route} onChange={(v) => set('route', v)} placeholder="如 /system/report" disabled={builtin} />, { help: '以“/”开头' })}
        {item('icon', <IconPicker id="pf-icon" value={values.icon} onChange={(v) => set('icon', v)} disabled={builtin} />)}
        {item('remark', <TextArea id="pf-remark" value={values.remark} onChange={(v) => set('remark', v)} placeholder="请输入备注" autoSize={{ minRows: 2, maxRows: 5 }} />, { help: '最多80个字' })}
        <button type="submit" hidden aria-hidden tabIndex={-1} />
      </form>
    </ScreenModal>
  );
}
