import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, DotLoading } from 'antd-mobile';
import { useRef, useState } from 'react';
import { NOTICE_MAX_ATTACHMENTS, noticeAllows, noticeConflictMessage } from '../../../domain/notices';
import { noticeApi, type NoticeAttachment, type NoticeRow } from '../../../domain/schemas/notice';
import { confirmDialog, showToast } from '../../lib/feedback';
import { api, call } from '../../lib/http';
import { useCan } from '../../lib/me';
import { MESSAGES, ScreenModal, failureText, type ScreenModalProps } from '../../list-screen';
import { ATTACHMENT_ACCEPT, ATTACHMENT_HINT } from './new-attachments-input';
import { NoticeView, sizeText } from './notice-view';
import './notices.css';

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * 附件 of a notice (spec 001 §2, §5, §8): its files, one upload at a time up
 * to five, and delete; both only while the notice is a draft or disabled.
 * The list's count refreshes when the modal closes.
 */
export function NoticeAttachmentsModal({ open, row, onClose, onDone }: ScreenModalProps<NoticeRow>) {
  const client = useQueryClient();
  const can = useCan();
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [changed, setChanged] = useState(false);
  const key = ['notices', 'attachments', row?.notice_id];
  const { data, isLoading, isError } = useQuery({ queryKey: key, queryFn: () => call(noticeApi.attachments, { noticeId: row!.notice_id }), enabled: open && !!row });
  const editable = !!row && noticeAllows('attach', row.status) && can('notice:edit');
  const full = (data?.length ?? 0) >= NOTICE_MAX_ATTACHMENTS;
  const reload = () => {
    setChanged(true);
    return client.invalidateQueries({ queryKey: key });
  };

  const upload = async (file: File) => {
    if (!row) return;
    setBusy(true);
    try {
      const form = new FormData();
      form.append('noticeId', String(row.notice_id));
      form.append('file', file, file.name);
      await api({ method: noticeApi.upload.method, url: noticeApi.upload.path, data: form, timeout: 5 * 60_000 });
      showToast({ icon: 'success', content: '上传成功' });
      await reload();
    } catch (e) {
      showToast({ icon: 'fail', content: failureText('上传失败', messageOf(e)), duration: 3000 });
    } finally {
      setBusy(false);
      if (input.current) input.current.value = '';
    }
  };

  const remove = async (a: NoticeAttachment) => {
    if (!(await confirmDialog({ content: `删除附件「${a.file_name}」？`, danger: true }))) return;
    try {
      await call(noticeApi.deleteAttachment, { id: a.id });
      showToast({ icon: 'success', content: MESSAGES.deleteOk });
      await reload();
    } catch (e) {
      showToast({ icon: 'fail', content: failureText(MESSAGES.deleteFail, messageOf(e)), duration: 3000 });
    }
  };

  const close = () => (changed ? onDone() : onClose());
  return (
    <ScreenModal open={open} title={row ? `附件 · ${row.title}` : '附件'} onClose={close} width={620}>
      {isLoading ? (
        <DotLoading />
      ) : isError ? (
        <div className="nv-error">获取附件失败</div>
      ) : (
        <div className="na-list" role="group" aria-label="附件列表">
          {data?.length === 0 && <div className="na-note">暂无附件</div>}
          {data?.map((a) => (
            <div key={a.id} className="na-row">
              <span className="na-name" title={a.file_name}>
                {a.file_name}
              </span>
              <span className="na-meta">
                {sizeText(a.file_size)} · {a.create_time.slice(0, 16)}
              </span>
              {editable && (
                <Button size="mini" color="danger" fill="none" onClick={() => void remove(a)}>
                  删除
                </Button>
              )}
            </div>
          ))}
        </div>
      )}
      <div className="na-upload" style={{ marginTop: 12 }}>
        {editable ? (
          <>
            <Button color="primary" size="small" loading={busy} disabled={busy || full} onClick={() => input.current?.click()}>
              上传附件
            </Button>
            <input ref={input} type="file" aria-label="选择附件" accept={ATTACHMENT_ACCEPT} onChange={(e) => e.target.files?.[0] && void upload(e.target.files[0])} />
            <span className="na-note">{full ? `已达${NOTICE_MAX_ATTACHMENTS}个上限，请先删除` : ATTACHMENT_HINT}</span>
          </>
        ) : (
          row && !noticeAllows('attach', row.status) && <span className="na-note">{noticeConflictMessage.attach}</span>
        )}
      </div>
    </ScreenModal>
  );
}

/** 预览: the notice as its readers will see it, attachments shown in the page, then how many of each department it reached and who read it. */
export function NoticePreview({ row }: { row: NoticeRow }) {
  const { data, isLoading, isError } = useQuery({ queryKey: ['notices', 'attachments', row.notice_id], queryFn: () => call(noticeApi.attachments, { noticeId: row.notice_id }) });
  return (
    <>
      <NoticeView
        title={row.title}
        type={row.type}
        content={row.content}
        publishTime={row.publish_time}
        attachments={data}
        loadingAttachments={isLoading && row.attachment_count > 0}
        attachmentsError={isError ? '获取附件失败' : undefined}
      />
      <section className="nd" aria-label="送达情况">
        <h3 className="nv-files-title">送达情况</h3>
        <table className="nd-table">
          <thead>
            <tr>
              <th scope="col">部门</th>
              <th scope="col">送达</th>
              <th scope="col">已读</th>
            </tr>
          </thead>
          <tbody>
            {row.delivery.map((d) => (
              <tr key={d.depart_id}>
                <td>{d.depart_name ?? d.depart_id}</td>
                <td>{d.delivered}</td>
                <td>{d.read}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {row.status === 0 && <div className="na-note">草稿尚未送达，启用后送达所选部门（含下级部门）的全部用户</div>}
        <div className="na-note">
          {row.create_user_name ?? '-'} 创建 · 附件 {row.attachment_count} 个 · 更新于 {row.update_time}
        </div>
      </section>
    </>
  );
}
