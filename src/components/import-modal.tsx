import { Button, Selector } from 'antd-mobile';
import { DownlandOutline, FileOutline, UploadOutline } from 'antd-mobile-icons';
import { useRef, useState, type ComponentType } from 'react';
import type { Call } from '../../domain/contract';
import type { PermissionCode } from '../../domain/permissions';
import { downloadFile } from '../lib/download';
import { ApiError, api } from '../lib/http';
import { useCan } from '../lib/me';
import { ScreenModal, type Row, type ScreenModalProps } from '../list-screen';
import './import-modal.css';
import { showToast } from '../lib/feedback';

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
  /** POST multipart (part `file`): the import, as declared in domain/ (defineUpload), or (older) its path. */
  upload: Call | string;
  /** The template's file name when the server sends none. */
  file: string;
  hint: string;
  /** POST {id}: submits one imported draft; with it the dialog offers 全部提交 for the rows just imported. */
  submit?: { path: string; code: PermissionCode };
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
  /** The drafts of the last import, while they can still be submitted together. */
  const [imported, setImported] = useState<{ ids: number[]; submit: { path: string }; done: number } | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  // The screen's onDone closes the dialog and reloads its list: called once the imported rows are dealt with.
  const changed = useRef(false);

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
      const r = await api<{ count?: number; ids?: number[] }>({ method: 'POST', url: typeof current.upload === 'string' ? current.upload : current.upload.path, data: form, timeout: 5 * 60_000 });
      showToast({ icon: 'success', content: `导入成功，共${r?.count ?? 0}条` });
      // Stay open to offer 全部提交 when the caller may submit what was imported; the list shows the drafts meanwhile.
      if (current.submit && can(current.submit.code) && r?.ids?.length) {
        setImported({ ids: r.ids, submit: current.submit, done: 0 });
        setFile(null);
        if (inputRef.current) inputRef.current.value = '';
        changed.current = true;
      } else if (reloadAfterMs) {
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

  /** One submit call per draft, in sheet order, so each failure is named by its row among those imported. */
  const submitAll = async () => {
    if (!imported || busy) return;
    setBusy(true);
    setFailure(null);
    const rows: RowError[] = [];
    for (const [i, id] of imported.ids.entries()) {
      try {
        await api({ method: 'POST', url: imported.submit.path, data: { id } });
      } catch (e) {
        rows.push({ label: `导入的第${i + 1}条`, message: e instanceof Error ? e.message : String(e) });
      }
      setImported((x) => x && { ...x, done: i + 1 });
    }
    setBusy(false);
    setImported(null);
    if (rows.length) {
      setFailure({ message: `提交完成：成功${imported.ids.length - rows.length}条，失败${rows.length}条`, rows });
    } else {
      showToast({ icon: 'success', content: `已全部提交，共${imported.ids.length}条` });
      onDone();
    }
  };

  const closeAll = () => {
    if (busy) return;
    if (changed.current) onDone();
    else onClose();
  };

  return (
    <ScreenModal
      open={open}
      title={title}
      onClose={closeAll}
      onOk={() => void (imported ? submitAll() : upload())}
      okText={imported ? (busy ? `提交中 ${imported.done}/${imported.ids.length}` : '全部提交') : '开始导入'}
      okLoading={busy}
      cancelText={imported ? '稍后逐条提交' : '取消'}
      width={620}
    >
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
            {imported && (
              <div className="ci-result ci-result--ok" role="status">
                <div className="ci-result__head">已导入{imported.ids.length}条草稿，可全部提交审核，或稍后在列表中逐条提交。</div>
              </div>
            )}
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
