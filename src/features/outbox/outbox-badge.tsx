import { UploadOutline } from 'antd-mobile-icons';
import { useNavigate } from 'react-router-dom';
import { useOutbox } from '../../lib/outbox';
import './outbox-badge.css';

/**
 * How many actions wait to be sent (DESIGN.md §5: the UI always says so), in
 * the title bar on phones and the header on desktop; a tap opens 待发送. Red
 * when one needs the person (failed or conflicting), amber while they only wait.
 */
export function OutboxBadge({ variant }: { variant: 'phone' | 'desktop' }) {
  const navigate = useNavigate();
  const { counts } = useOutbox();
  const n = counts.waiting;
  const trouble = counts.failed + counts.conflict > 0;
  const label = n > 0 ? `待发送 ${n} 项${trouble ? `，${counts.failed + counts.conflict} 项需处理` : ''}` : '待发送：无';
  return (
    <button type="button" className={`obb obb--${variant}`} onClick={() => navigate('/outbox')} aria-label={label} title={label} data-testid="outbox-badge">
      <span className="obb-icon">
        <UploadOutline aria-hidden />
        {n > 0 && (
          <span className={`obb-count${trouble ? ' obb-count--trouble' : ''}`} aria-hidden>
            {n > 99 ? '99+' : n}
          </span>
        )}
      </span>
      {variant === 'desktop' && <span className="obb-text">待发送</span>}
    </button>
  );
}
