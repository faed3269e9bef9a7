import { Input } from 'antd-mobile';
import { FileOutline, UploadOutline } from 'antd-mobile-icons';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { BACKOFF, backoffDelay } from '../../../domain/backoff';
import { NOT_A_ZIP, personImportApi, taskName, type ImportTaskRow } from '../../../domain/schemas/person-import';
import { ModalForm } from '../../components/reason-modal';
import { downloadFile } from '../../lib/download';
import { showToast } from '../../lib/feedback';
import { ApiError, api, call } from '../../lib/http';
import { FormItem, MESSAGES, ScreenModal, failureText, type ScreenModalProps } from '../../list-screen';
import '../../components/import-modal.css';

export const SCREEN_KEY = 'appointments.person-batch';

/** Every page of this screen's list refetches (the list screen's query key, src/list-screen/use-list-data.ts). */
export const reloadList = (qc: QueryClient) => void qc.invalidateQueries({ queryKey: ['list', SCREEN_KEY] });

/** Spec 001 §2: after a start the list refreshes with the retry helper, 6 steps from 1 s doubling (1, 2, 4 … 32 s). */
export function refreshWithBackoff(qc: QueryClient): void {
  let at = 0;
  for (let attempt = 0; attempt < BACKOFF.steps; attempt++) {
    at += backoffDelay(attempt)!;
    setTimeout(() => reloadList(qc), at);
  }
}

const errorText = (e: unknown) => (e instanceof ApiError ? e.message : e instanceof Error ? e.message : String(e));

/** 新建 / 编辑 (spec 001 §2): task name and a zip file, modal 520 px; on edit the zip may stay as it is. */
export function TaskModal({ open, row, onClose, onDone }: ScreenModalProps<ImportTaskRow>) {
  const editing = !!row;
  const [name, setName] = useState(row?.name ?? '');
  const [file, setFile] = useState<File | null>(null);
  const [errors, setErrors] = useState<{ name?: string; zipFile?: string; form?: string }>({});
  const [busy, setBusy] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (!open) return;
    setName(row?.name ?? '');
    setFile(null);
    setErrors({});
    if (inputRef.current) inputRef.current.value = '';
  }, [open, row]);

  const submit = async () => {
    if (busy) return;
    const checked = taskName.safeParse(name);
    const errs: typeof errors = {};
    if (!checked.success) errs.name = checked.error.issues[0]?.message;
    if (!editing && !file) errs.zipFile = NOT_A_ZIP;
    else if (file && !/\.zip$/i.test(file.name)) errs.zipFile = NOT_A_ZIP;
    setErrors(errs);
    if (Object.keys(errs).length) return;
    setBusy(true);
    try {
      if (file) {
        const form = new FormData();
        form.append('name', checked.data!);
        if (row) form.append('id', String(row.id));
        form.append('zipFile', file, file.name);
        await api({ method: personImportApi.save.method, url: personImportApi.save.path, data: form, timeout: 30 * 60_000 });
      } else {
        await call(personImportApi.update, { id: row!.id, name: checked.data! });
      }
      showToast({ icon: 'success', content: editing ? MESSAGES.editOk : MESSAGES.createOk });
      onDone();
    } catch (e) {
      // Spec 001 §8: an upload error is logged; the refusal (a hostile or broken zip) is also shown, so the person can act on it.
      console.error('person import upload failed', e);
      setErrors({ form: failureText(editing ? MESSAGES.editFail : MESSAGES.createFail, errorText(e)) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <ScreenModal open={open} title={editing ? '编辑导入任务' : '新建导入任务'} onClose={onClose} onOk={() => void submit()} okLoading={busy} okLoadingText="上传中" width={520}>
      <ModalForm>
        <FormItem label="任务名称" required error={errors.name} htmlFor="pi-name">
          <Input
            id="pi-name"
            value={name}
            maxLength={50}
            placeholder="请输入任务名称"
            onChange={(v) => {
              setName(v);
              setErrors((e) => ({ ...e, name: undefined }));
            }}
          />
        </FormItem>
        <FormItem label="zip文件" required={!editing} error={errors.zipFile} help={editing ? `不选择则保留原文件：${row?.file_name ?? ''}` : '一个人员表（.xlsx）和以证件号码命名的人脸照片，≤200MB'}>
          <label className="ci-file">
            <input
              ref={inputRef}
              type="file"
              accept=".zip,application/zip,application/x-zip-compressed"
              aria-label="zip文件"
              onChange={(e) => {
                setFile(e.target.files?.[0] ?? null);
                setErrors((x) => ({ ...x, zipFile: undefined, form: undefined }));
              }}
            />
            {file ? <FileOutline /> : <UploadOutline />}
            <span className={file ? 'ci-file__name' : 'ci-file__placeholder'}>{file ? file.name : '选择zip文件'}</span>
          </label>
        </FormItem>
      </ModalForm>
      {errors.form && (
        <div className="ci-result" role="alert">
          <div className="ci-result__head">{errors.form}</div>
        </div>
      )}
    </ScreenModal>
  );
}

/** 开始导入: confirm, start, then the backoff refreshes (and the live progress) follow the run. */
export function StartModal({ open, row, onClose, onDone }: ScreenModalProps<ImportTaskRow>) {
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  const start = async () => {
    if (busy || !row) return;
    setBusy(true);
    try {
      await call(personImportApi.submit, { id: row.id });
      showToast({ icon: 'success', content: MESSAGES.submitOk });
      onDone();
      refreshWithBackoff(qc);
    } catch (e) {
      showToast({ icon: 'fail', content: failureText(MESSAGES.submitFail, errorText(e)), duration: 3000 });
    } finally {
      setBusy(false);
    }
  };
  return (
    <ScreenModal open={open} title="开始导入" onClose={onClose} onOk={() => void start()} okText="开始导入" okLoading={busy} width={520}>
      {row && (
        <p className="pi-confirm">
          开始导入“{row.name}”？导入在后台进行，每位访客生成一条人员预约并提交审核；{row.status === 3 ? '已导入的人员不会重复导入。' : '照片缺失或信息有误的人员不导入，可下载结果查看原因。'}
        </p>
      )}
    </ScreenModal>
  );
}

/** 下载结果: the per-row results file of a task, saved at once (no dialog of its own). */
export function ResultDownload({ open, row, onClose }: ScreenModalProps<ImportTaskRow>) {
  useEffect(() => {
    if (!open || !row) return;
    onClose();
    void downloadFile({ method: 'get', path: personImportApi.result.path, params: { id: row.id }, fallbackName: `${row.name}-导入结果.xlsx` });
  }, [open, row, onClose]);
  return null;
}

export const downloadTemplate = () => downloadFile({ method: 'get', path: personImportApi.template.path, fallbackName: '人员批量导入模板.zip' });
