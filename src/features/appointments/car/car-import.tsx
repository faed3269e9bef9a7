import { Button, Selector, Toast } from 'antd-mobile';
import { DownlandOutline, FileOutline, UploadOutline } from 'antd-mobile-icons';
import { useRef, useState } from 'react';
import { ApiError, api } from '../../../lib/http';
import { useCan } from '../../../lib/me';
import { downloadFile } from '../../../lib/download';
import { ScreenModal, type Can, type ScreenModalProps } from '../../../list-screen';
import '../shared/appointments.css';

/**
 * 车辆导入 (spec 000 §2 "import options for proprietor and building imports
 * with downloadable templates"): pick the import, download its template,
 * upload the filled sheet; the server checks every row with the form's rules
 * and saves all or none, so its row errors are listed for the person to fix.
 */

const importKinds = [
  { key: 'proprietor', label: '业主车辆导入', code: 'carApply:proprietorImport', template: '/carApplications/template/getProprietor', upload: '/carApplications/import/proprietor', file: '业主车辆导入模板.xlsx', hint: '导入的车辆申请类型为“业主”，导入后为草稿，核对后逐条提交。' },
  { key: 'build', label: '施工车辆导入', code: 'carApply:buildImport', template: '/carApplications/template/getBuild', upload: '/carApplications/import/build', file: '施工车辆导入模板.xlsx', hint: '导入的车辆申请类型为“施工”，导入后为草稿，核对后逐条提交。' },
] as const;

export const PROPRIETOR_IMPORT = importKinds[0].code;
export const BUILD_IMPORT = importKinds[1].code;
/** The toolbar button shows when either import is allowed. */
export const canImport = (can: Can) => can(PROPRIETOR_IMPORT) || can(BUILD_IMPORT);

/** GET a template and save it under the server's name. */
const downloadTemplate = (path: string, fallbackName: string) => downloadFile({ method: 'get', path, fallbackName });

interface RowError {
  row?: number;
  label?: string;
  message: string;
}

/** The server's row errors, whichever shape it answers them in: {details:[{row,label,message}]} or {errors:[text]}. */
export function importErrors(data: unknown): RowError[] {
  if (!data || typeof data !== 'object') return [];
  const d = data as { details?: unknown; errors?: unknown };
  const list = Array.isArray(d.details) ? d.details : Array.isArray(d.errors) ? d.errors : [];
  return list.map((e) => {
    if (typeof e === 'string') return { message: e };
    const o = (e ?? {}) as Record<string, unknown>;
    return {
      row: typeof o.row === 'number' ? o.row : undefined,
      label: typeof o.label === 'string' && o.label ? o.label : undefined,
      message: String(o.message ?? o.msg ?? ''),
    };
  });
}

export function CarImportModal({ open, onClose, onDone }: ScreenModalProps) {
  const can = useCan();
  const allowed = importKinds.filter((k) => can(k.code));
  const [which, setWhich] = useState<string>(allowed[0]?.key ?? 'proprietor');
  const current = allowed.find((k) => k.key === which) ?? allowed[0];
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ message: string; rows: RowError[] } | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);

  const upload = async () => {
    if (!current || busy) return;
    if (!file) {
      setFailure({ message: '请选择要导入的文件', rows: [] });
      return;
    }
    setBusy(true);
    setFailure(null);
    try {
      const form = new FormData();
      form.append('file', file, file.name);
      const r = await api<{ count?: number }>({ method: 'POST', url: current.upload, data: form, timeout: 5 * 60_000 });
      Toast.show({ icon: 'success', content: `导入成功，共${r?.count ?? 0}条` });
      onDone();
    } catch (e) {
      const err = e instanceof ApiError ? e : undefined;
      setFailure({ message: err?.message ?? (e instanceof Error ? e.message : String(e)), rows: importErrors(err?.data) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <ScreenModal open={open} title="车辆导入" onClose={onClose} onOk={() => void upload()} okText="开始导入" okLoading={busy} width={620}>
      <div className="ci">
        {allowed.length > 1 && (
          <Selector
            className="ci-kinds"
            columns={allowed.length}
            showCheckMark={false}
            options={allowed.map((k) => ({ label: k.label, value: k.key }))}
            value={[which]}
            onChange={(v) => {
              if (!v.length) return;
              setWhich(v[0]);
              setFailure(null);
            }}
          />
        )}
        {current && (
          <>
            <ol className="ci-steps">
              <li>
                <div className="ci-step__title">下载导入模板</div>
                <div className="ci-step__desc">按模板填写，“说明”表列出车型、部门等可选值。{current.hint}</div>
                <Button size="small" color="primary" fill="outline" onClick={() => void downloadTemplate(current.template, current.file)}>
                  <DownlandOutline /> 下载{current.label.replace('导入', '')}模板
                </Button>
              </li>
              <li>
                <div className="ci-step__title">上传填写好的文件</div>
                <div className="ci-step__desc">仅支持 .xlsx 文件；任一行有误时整份文件都不会导入，请按提示修改后重新上传。</div>
                <label className="ci-file">
                  <input
                    ref={inputRef}
                    type="file"
                    accept=".xlsx,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
                    onChange={(e) => {
                      setFile(e.target.files?.[0] ?? null);
                      setFailure(null);
                    }}
                  />
                  {file ? <FileOutline /> : <UploadOutline />}
                  <span className={file ? 'ci-file__name' : 'ci-file__placeholder'}>{file ? file.name : '选择文件'}</span>
                </label>
              </li>
            </ol>
            {failure && (
              <div className="ci-result" role="alert">
                <div className="ci-result__head">{failure.message}</div>
                {failure.rows.length > 0 && (
                  <ul className="ci-errors">
                    {failure.rows.map((r, i) => (
                      <li key={i}>
                        {r.row !== undefined && <span className="ci-row">第{r.row}行</span>}
                        {r.label && <span className="ci-col">{r.label}</span>}
                        <span>{r.message}</span>
                      </li>
                    ))}
                  </ul>
                )}
              </div>
            )}
          </>
        )}
      </div>
    </ScreenModal>
  );
}
