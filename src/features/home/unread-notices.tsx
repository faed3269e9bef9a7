import { useQuery } from '@tanstack/react-query';
import { RightOutline, SoundOutline } from 'antd-mobile-icons';
import { Link } from 'react-router-dom';
import { NOTICE_READER_ROUTE, noticeTypeWord } from '../../../domain/notices';
import { recordLink } from '../../../domain/notifications';
import { unreadNoticesQuery } from '../../lib/received-notices';
import './unread-notices.css';

/** 未读通知 (issue 27): notices the park office sent to this user that they have not opened, newest first, before the menus. */
export function UnreadNotices() {
  const { data } = useQuery({ ...unreadNoticesQuery, staleTime: 0, refetchOnMount: 'always', refetchOnWindowFocus: 'always' });
  if (!data || data.unread === 0) return null;
  return (
    <section className="un" aria-label="未读通知" data-testid="unread-notices">
      <h3 className="section-title un-title">
        未读通知
        <Link to={NOTICE_READER_ROUTE} className="un-all">
          共 {data.unread} 条未读 <RightOutline />
        </Link>
      </h3>
      <div className="card un-card">
        {data.list.map((n) => (
          <Link key={n.notice_id} to={recordLink(NOTICE_READER_ROUTE, n.notice_id)} className="un-row" aria-label={`${noticeTypeWord(n.type)}：${n.title}`}>
            <span className="un-icon" aria-hidden>
              <SoundOutline />
            </span>
            <span className="un-main">
              <span className="un-head">
                <span className={`un-type un-type--${n.type}`}>{noticeTypeWord(n.type)}</span>
                <span className="un-subject">{n.title}</span>
              </span>
              <span className="un-meta">{(n.publish_time ?? n.delivered_time).slice(0, 16)}</span>
            </span>
            <RightOutline className="un-arrow" />
          </Link>
        ))}
      </div>
    </section>
  );
}
