import { Button, Selector, Toast } from 'antd-mobile';
import { DownlandOutline, FileOutline, UploadOutline } from 'antd-mobile-icons';
import { useRef, useState, type ComponentType } from 'react';
import type { PermissionCode } from '../../domain/permissions';
import { downloadFile } from '../lib/download';
import { ApiError, api } from '../lib/http';
import { useCan } from '../lib/me';
import { ScreenModal, type Row, type ScreenModalProps } from '../list-screen';
import './import-modal.css';

/**
 * An xlsx import (spec 000 §2 vehicle imports, spec 001 §2 list import): pick
 * the import, download its template, upload the filled sheet; the server
 * checks every row with the form's rules and saves all or none, so its row
 * errors are listed for the person to fix.
 */
export interface ImportKind {
  key: string;
  label: string;
  code: PermissionCode;
  /** GET: the template workbook. */
  template: string;
  /** POST multipart (part `file`): the import. */
  upload: string;
  /** The template's file name when the server sends none. */
  file: string;
  hint: string;
}

export interface ImportModalOptions {
  title: string;
  kinds: readonly ImportKind[];
  /** Close at once and reload the list this much later (spec 001: the list reloads after 1 second). */
  reloadAfterMs?: number;
}

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

function ImportModal({ open, onClose, onDone, title, kinds, reloadAfterMs }: ScreenModalProps & ImportModalOptions) {
  const can = useCan();
  const allowed = kinds.filter((k) => can(k.code));
  const [which, setWhich] = useState<string>(allowed[0]?.key ?? '');
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
      if (reloadAfterMs) {
        onClose();
        setTimeout(onDone, reloadAfterMs);
      } else onDone();
    } catch (e) {
      const err = e instanceof ApiError ? e : undefined;
      setFailure({ message: err?.message ?? (e instanceof Error ? e.message : String(e)), rows: importErrors(err?.data) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <ScreenModal open={open} title={title} onClose={onClose} onOk={() => void upload()} okText="开始导入" okLoading={busy} width={620}>
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
                <div className="ci-step__desc">按模板填写，“说明”表列出可选的值。{current.hint}</div>
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

/** The import modal of a screen's toolbar, for the imports the caller may run. */
export function importModalFor<R extends Row = Row>(options: ImportModalOptions): ComponentType<ScreenModalProps<R>> {
  return function ScreenImportModal({ open, onClose, onDone }: ScreenModalProps<R>) {
    return <ImportModal open={open} onClose={onClose} onDone={onDone} {...options} />;
  };
}
