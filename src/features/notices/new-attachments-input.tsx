import { Button } from 'antd-mobile';
import { useRef, useState } from 'react';
import { NOTICE_MAX_ATTACHMENTS } from '../../../domain/notices';
import { uploadFile } from '../../lib/files';
import { showToast } from '../../lib/feedback';
import { failureText } from '../../list-screen';
import type { FieldInputProps } from '../../list-screen/types';
import { sizeText } from './notice-view';
import './notices.css';

/** A file chosen in the create form: stored already, saved with the notice (domain/schemas/notice.ts `attachments`). */
export interface ChosenAttachment {
  file_url: string;
  file_name: string;
  /** Shown beside the name; the server measures the stored file itself. */
  file_size: number;
}

/** The types the file store takes (server/core/file-type.ts), as the attachments modal's chooser offers them. */
export const ATTACHMENT_ACCEPT = '.jpg,.jpeg,.png,.webp,.gif,.pdf,.xlsx';
export const ATTACHMENT_HINT = `一次一个文件，最多${NOTICE_MAX_ATTACHMENTS}个；支持图片、PDF、XLSX`;

const listOf = (value: unknown): ChosenAttachment[] => (Array.isArray(value) ? (value as ChosenAttachment[]) : []);
const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * 附件 in the create form: each file is uploaded as it is chosen and listed
 * by name, and goes into the notice with its save. The list is the form's
 * value, so a save that fails keeps it with the rest of the form.
 */
export function NewAttachmentsInput({ value, onChange, disabled }: FieldInputProps) {
  const chosen = listOf(value);
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const full = chosen.length >= NOTICE_MAX_ATTACHMENTS;

  const add = async (file: File) => {
    setBusy(true);
    try {
      const name = await uploadFile(file);
      onChange?.([...chosen, { file_url: name, file_name: file.name, file_size: file.size }]);
    } catch (e) {
      showToast({ icon: 'fail', content: failureText('上传失败', messageOf(e)), duration: 3000 });
    } finally {
      setBusy(false);
      if (input.current) input.current.value = '';
    }
  };

  return (
    <div className="na-new">
      {chosen.length > 0 && (
        <div className="na-list" role="group" aria-label="已选附件">
          {chosen.map((a) => (
            <div key={a.file_url} className="na-row">
              <span className="na-name" title={a.file_name}>
                {a.file_name}
              </span>
              <span className="na-meta">{sizeText(a.file_size)}</span>
              <Button size="mini" color="danger" fill="none" disabled={disabled} aria-label={`移除${a.file_name}`} onClick={() => onChange?.(chosen.filter((c) => c !== a))}>
                移除
              </Button>
            </div>
          ))}
        </div>
      )}
      <div className="na-upload">
        <Button color="primary" fill="outline" size="small" loading={busy} disabled={disabled || busy || full} onClick={() => input.current?.click()}>
          添加附件
        </Button>
        <input ref={input} type="file" aria-label="选择附件" accept={ATTACHMENT_ACCEPT} onChange={(e) => e.target.files?.[0] && void add(e.target.files[0])} />
        <span className="na-note">{full ? `已达${NOTICE_MAX_ATTACHMENTS}个上限` : ATTACHMENT_HINT}</span>
      </div>
    </div>
  );
}
