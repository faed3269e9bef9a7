import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, DotLoading, ErrorBlock } from 'antd-mobile';
import { LeftOutline } from 'antd-mobile-icons';
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { noticeTypeWord } from '../../../domain/notices';
import { OPEN_PARAM } from '../../../domain/notifications';
import { noticeApi, type NoticeAttachment } from '../../../domain/schemas/notice';
import { NOTICE_FILE_CACHE } from '../../../sw/cache-key';
import { fileSrc, getFileAccess } from '../../lib/files';
import { call } from '../../lib/http';
import { receivedNoticesKey } from '../../lib/received-notices';
import { NoticeView } from './notice-view';
import './notices.css';

const PAGE_SIZE = 10;

/**
 * Keeps a copy of an opened notice's attachments for offline reading: the
 * service worker answers a file read from it when the network fails
 * (sw/sw.ts); the notice's own answer is kept by the worker's read cache.
 */
async function keepOffline(attachments: NoticeAttachment[]): Promise<void> {
  if (!('caches' in window) || attachments.length === 0) return;
  const access = await getFileAccess();
  const cache = await caches.open(NOTICE_FILE_CACHE);
  for (const a of attachments) {
    const url = fileSrc(a.file_url, access);
    if (!(await cache.match(url, { ignoreSearch: true }))) await cache.add(url).catch(() => undefined);
  }
}

/** 通知公告 for its readers (issue 27): what the park office sent to the user's department, newest first; opening one marks it read. */
export default function NoticeReaderPage() {
  const [params, setParams] = useSearchParams();
  const openId = Number(params.get(OPEN_PARAM)) || undefined;
  return <div className="page nr">{openId ? <Reading id={openId} onBack={() => setParams({}, { replace: false })} /> : <Received onOpen={(id) => setParams({ [OPEN_PARAM]: String(id) })} />}</div>;
}

function Received({ onOpen }: { onOpen: (id: number) => void }) {
  const [pn, setPn] = useState(1);
  const { data, isLoading, isError, refetch } = useQuery({
    queryKey: [...receivedNoticesKey, 'page', pn],
    queryFn: () => call(noticeApi.received, { size: PAGE_SIZE, pn, unread: 0 }),
  });
  if (isLoading) return <DotLoading />;
  if (isError || !data)
    return (
      <ErrorBlock status="default" title="通知加载失败" description="请检查网络后重试">
        <Button size="small" onClick={() => void refetch()}>
          重试
        </Button>
      </ErrorBlock>
    );
  if (data.total === 0) return <ErrorBlock className="nr-empty" status="empty" title="暂无通知" description="园区发给本部门的通知公告会显示在这里" />;
  const pages = Math.max(1, Math.ceil(data.total / PAGE_SIZE));
  return (
    <>
      <div className="nr-list" role="list" aria-label="通知列表">
        {data.list.map((n) => (
          <button key={n.notice_id} type="button" role="listitem" className={`nr-item${n.read_time ? '' : ' nr-item--unread'}`} onClick={() => onOpen(n.notice_id)}>
            <span className="nr-item-head">
              {!n.read_time && <span className="nr-dot" role="img" aria-label="未读" />}
              <span className={`nv-type nv-type--${n.type}`}>{noticeTypeWord(n.type)}</span>
              <span className="nr-item-title">{n.title}</span>
            </span>
            <span className="nr-item-excerpt">{n.content}</span>
            <span className="nr-item-meta">
              {(n.publish_time ?? n.delivered_time).slice(0, 16)}
              {n.attachment_count > 0 && ` · 附件 ${n.attachment_count}`}
            </span>
          </button>
        ))}
      </div>
      {pages > 1 && (
        <div className="nr-pager">
          <Button size="small" disabled={pn <= 1} onClick={() => setPn(pn - 1)}>
            上一页
          </Button>
          <span>
            {pn} / {pages}（共 {data.total} 条）
          </span>
          <Button size="small" disabled={pn >= pages} onClick={() => setPn(pn + 1)}>
            下一页
          </Button>
        </div>
      )}
    </>
  );
}

function Reading({ id, onBack }: { id: number; onBack: () => void }) {
  const client = useQueryClient();
  const { data, isLoading, isError, error } = useQuery({
    queryKey: [...receivedNoticesKey, 'detail', id],
    queryFn: () => call(noticeApi.receivedDetail, { noticeId: id }),
    retry: false,
  });
  const unread = !!data && !data.read_time;
  useEffect(() => {
    if (!data) return;
    void keepOffline(data.attachments);
    if (unread && navigator.onLine)
      void call(noticeApi.markRead, { noticeId: id })
        .then(() => client.invalidateQueries({ queryKey: receivedNoticesKey }))
        .catch(() => undefined);
  }, [data, unread, id, client]);
  return (
    <>
      <Button className="nr-back" size="small" fill="none" onClick={onBack}>
        <LeftOutline /> 全部通知
      </Button>
      {isLoading ? (
        <DotLoading />
      ) : isError || !data ? (
        <ErrorBlock status="default" title={(error as Error | null)?.message || '通知不存在或已停用'} description="" />
      ) : (
        <div className="nr-reading">
          <NoticeView title={data.title} type={data.type} content={data.content} publishTime={data.publish_time ?? data.delivered_time} attachments={data.attachments} />
        </div>
      )}
    </>
  );
}
