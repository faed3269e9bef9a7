import { DotLoading } from 'antd-mobile';
import { DownlandOutline, FileOutline } from 'antd-mobile-icons';
import { lazy, Suspense, useEffect, useState } from 'react';
import { noticeTypeWord } from '../../../domain/notices';
import type { NoticeAttachment } from '../../../domain/schemas/notice';
import { fileSrc, useFileAccess } from '../../lib/files';
import './notices.css';

// pdf.js (≈ 1.5 MB with its worker) loads only when a notice has a PDF to show.
const PdfPreview = lazy(() => import('./pdf-preview'));

const IMAGE_TYPES = new Set(['jpg', 'jpeg', 'png', 'webp', 'gif']);
export const isImage = (a: Pick<NoticeAttachment, 'file_type'>) => IMAGE_TYPES.has(a.file_type.toLowerCase());
export const isPdf = (a: Pick<NoticeAttachment, 'file_type'>) => a.file_type.toLowerCase() === 'pdf';

export const sizeText = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`);

export interface NoticeViewProps {
  title: string;
  type: number;
  content: string;
  publishTime: string | null;
  attachments?: NoticeAttachment[];
  /** The attachments are still being fetched. */
  loadingAttachments?: boolean;
  /** Why the attachments could not be had ('获取附件失败'). */
  attachmentsError?: string;
}

/**
 * A notice as its reader sees it (the reader page, and the keepers' 预览):
 * the text as text (never markup), then each attachment: images and PDFs
 * shown in the page, other files as a download (issue 27).
 */
export function NoticeView({ title, type, content, publishTime, attachments = [], loadingAttachments, attachmentsError }: NoticeViewProps) {
  const access = useFileAccess();
  return (
    <article className="nv">
      <header className="nv-head">
        <span className={`nv-type nv-type--${type}`}>{noticeTypeWord(type)}</span>
        <h2 className="nv-title">{title}</h2>
        {publishTime && <div className="nv-time">发布时间 {publishTime.slice(0, 16)}</div>}
      </header>
      <div className="nv-content">{content}</div>
      {(attachments.length > 0 || loadingAttachments || attachmentsError) && (
        <section className="nv-files" aria-label="附件">
          <h3 className="nv-files-title">附件{attachments.length ? `（${attachments.length}）` : ''}</h3>
          {loadingAttachments && <DotLoading />}
          {attachmentsError && <div className="nv-error">{attachmentsError}</div>}
          {attachments.map((a) => (
            <AttachmentView key={a.id} attachment={a} access={access} />
          ))}
        </section>
      )}
    </article>
  );
}

function AttachmentView({ attachment: a, access }: { attachment: NoticeAttachment; access: string | undefined }) {
  const [failed, setFailed] = useState(false);
  useEffect(() => setFailed(false), [a.file_url, access]);
  // Offline without a token the service worker still answers from the copy kept when the notice was opened (sw/sw.ts).
  const src = access ? fileSrc(a.file_url, access) : typeof navigator !== 'undefined' && !navigator.onLine ? fileSrc(a.file_url, '') : undefined;
  const head = (
    <div className="nv-file-head">
      <FileOutline aria-hidden />
      <span className="nv-file-name" title={a.file_name}>
        {a.file_name}
      </span>
      <span className="nv-file-size">{sizeText(a.file_size)}</span>
      {src && (
        <a className="nv-file-download" href={src} download={a.file_name} aria-label={`下载${a.file_name}`}>
          <DownlandOutline /> 下载
        </a>
      )}
    </div>
  );
  if (!src) return <div className="nv-file">{head}</div>;
  return (
    <div className="nv-file">
      {head}
      {failed ? (
        <div className="nv-error">获取预览失败</div>
      ) : isImage(a) ? (
        <img className="nv-file-image" src={src} alt={a.file_name} onError={() => setFailed(true)} />
      ) : isPdf(a) ? (
        <Suspense fallback={<DotLoading />}>
          <PdfPreview src={src} title={a.file_name} onError={() => setFailed(true)} />
        </Suspense>
      ) : null}
    </div>
  );
}
