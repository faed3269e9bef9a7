import { Button, Empty, Tag } from 'antd-mobile';
import { CheckCircleOutline, ClockCircleOutline, ExclamationCircleOutline, UploadOutline } from 'antd-mobile-icons';
import { useState } from 'react';
import { formatInZone } from '../../../domain/time';
import { useOnline } from '../../lib/use-online';
import { discard, kindLabels, retry, sendNow, stateLabels, useOutbox, type OutboxItem, type OutboxState } from '../../lib/outbox';
import { useIsDesktop } from '../../lib/use-media';
import './outbox.css';
import { confirmDialog, showToast } from '../../lib/feedback';

const stateColors: Record<OutboxState, 'default' | 'primary' | 'success' | 'warning' | 'danger'> = {
  pending: 'warning',
  sending: 'primary',
  done: 'success',
  conflict: 'danger',
  failed: 'danger',
};

const time = (ms: number) => formatInZone(ms);

function photoLine(item: OutboxItem): string | null {
  const total = Object.values(item.photos ?? {}).reduce((n, b) => n + b.length, 0);
  if (!total) return null;
  const sent = Object.values(item.uploaded ?? {}).reduce((n, names) => n + names.filter(Boolean).length, 0);
  return sent ? `含 ${total} 张照片（已上传 ${sent} 张）` : `含 ${total} 张照片`;
}

/** The sentence under an item: what happened to it, in words. */
function explain(item: OutboxItem): { text: string; tone: 'info' | 'warn' | 'error' } | null {
  if (item.state === 'conflict') return { text: `未执行：${item.error ?? '已被他人处理'}`, tone: 'error' };
  if (item.state === 'failed') return { text: `发送失败：${item.error ?? '未知错误'}`, tone: 'error' };
  if (item.state === 'sending') return { text: '正在发送…', tone: 'info' };
  if (item.attempts > 0 && item.nextAttemptAt > Date.now()) {
    return { text: `${item.error ?? '发送未成功'}（已尝试 ${item.attempts} 次，${time(item.nextAttemptAt).slice(11)} 再次发送）`, tone: 'warn' };
  }
  if (item.error) return { text: item.error, tone: 'warn' };
  return null;
}

async function confirmDiscard(item: OutboxItem) {
  const ok = await confirmDialog({
    title: '放弃此操作',
    content: `“${item.title}”将不会发送${item.state === 'pending' ? '，服务器上不会有这次操作' : ''}。确定放弃吗？`,
    confirmText: '放弃',
    danger: true,
    cancelText: '取消',
  });
  if (!ok) return;
  if (await discard(item.id)) showToast({ content: '已放弃' });
  else showToast({ content: '正在发送中，暂时不能放弃' });
}

function ItemActions({ item }: { item: OutboxItem }) {
  const canRetry = item.state === 'failed' || item.state === 'conflict';
  return (
    <span className="ob-actions">
      {canRetry && (
        <Button size="mini" color="primary" fill="outline" onClick={() => void retry(item.id)}>
          重试
        </Button>
      )}
      {item.state !== 'sending' && (
        <Button size="mini" color="danger" fill="outline" onClick={() => void confirmDiscard(item)}>
          放弃
        </Button>
      )}
    </span>
  );
}

function StateTag({ state }: { state: OutboxState }) {
  return (
    <Tag color={stateColors[state]} fill="outline" className="ob-tag">
      {stateLabels[state]}
    </Tag>
  );
}

function Explanation({ item }: { item: OutboxItem }) {
  const e = explain(item);
  const photos = photoLine(item);
  return (
    <>
      {e && <div className={`ob-note ob-note--${e.tone}`}>{e.text}</div>}
      {photos && <div className="ob-sub">{photos}</div>}
    </>
  );
}

function ItemCards({ items }: { items: OutboxItem[] }) {
  return (
    <ul className="ob-list" aria-label="待发送操作">
      {items.map((item) => (
        <li key={item.id} className={`ob-card ob-card--${item.state}`} data-state={item.state}>
          <div className="ob-card__head">
            <span className="ob-title">{item.title}</span>
            <StateTag state={item.state} />
          </div>
          <div className="ob-sub">
            {kindLabels[item.kind]} · {time(item.createdAt)}
          </div>
          <Explanation item={item} />
          <div className="ob-card__foot">
            <ItemActions item={item} />
          </div>
        </li>
      ))}
    </ul>
  );
}

function ItemTable({ items }: { items: OutboxItem[] }) {
  return (
    <div className="ob-table-wrap">
      <table className="ob-table" aria-label="待发送操作">
        <thead>
          <tr>
            <th scope="col">操作内容</th>
            <th scope="col">类型</th>
            <th scope="col">状态</th>
            <th scope="col">创建时间</th>
            <th scope="col">说明</th>
            <th scope="col">操作</th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={item.id} data-state={item.state}>
              <td className="ob-title">{item.title}</td>
              <td>{kindLabels[item.kind]}</td>
              <td>
                <StateTag state={item.state} />
              </td>
              <td className="ob-time">{time(item.createdAt)}</td>
              <td className="ob-explain">
                <Explanation item={item} />
              </td>
              <td className="ob-action-cell">
                <ItemActions item={item} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * 待发送 (DESIGN.md §5): what this person did that the server has not
 * accepted yet, why, and what they can do about it.
 */
export default function OutboxPage() {
  const desktop = useIsDesktop();
  const online = useOnline();
  const box = useOutbox();
  const [sending, setSending] = useState(false);
  const { counts } = box;
  const trouble = counts.failed + counts.conflict;

  const sendAll = async () => {
    if (!online) return void showToast({ content: '当前无网络，恢复网络后将自动发送' });
    setSending(true);
    try {
      const report = await sendNow();
      if (report.stoppedBy === 'offline') showToast({ content: '网络不可用，恢复后将自动发送' });
    } finally {
      setSending(false);
    }
  };

  return (
    <div className="page ob">
      <section className="card ob-summary" aria-label="发送状态">
        <div className="ob-summary__main">
          <UploadOutline className="ob-summary__icon" aria-hidden />
          <div>
            <div className="ob-summary__count">
              待发送 <b data-testid="outbox-waiting">{counts.waiting}</b> 项
            </div>
            <div className="ob-summary__sub">
              {!online ? (
                <span className="ob-offline">
                  <ExclamationCircleOutline /> 当前离线，恢复网络后自动发送
                </span>
              ) : box.draining || counts.sending > 0 ? (
                <span>
                  <ClockCircleOutline /> 正在发送…
                </span>
              ) : counts.waiting > 0 ? (
                <span>网络已连接{trouble ? `，其中 ${trouble} 项需要您处理` : '，将自动发送'}</span>
              ) : (
                <span>
                  <CheckCircleOutline /> 全部操作均已发送
                </span>
              )}
            </div>
          </div>
        </div>
        <Button color="primary" size={desktop ? 'middle' : 'small'} disabled={counts.waiting === 0} loading={sending} onClick={() => void sendAll()}>
          立即发送
        </Button>
      </section>

      {!box.ready ? null : box.waiting.length === 0 ? (
        <div className="card ob-empty">
          <Empty description="没有待发送的操作" />
          <p className="ob-empty__hint">离线时的审核、车辆标记、告警处理等操作会保存在这里，恢复网络后自动发送。</p>
        </div>
      ) : desktop ? (
        <section className="card ob-panel">
          <ItemTable items={box.waiting} />
        </section>
      ) : (
        <ItemCards items={box.waiting} />
      )}

      {box.recent.length > 0 && (
        <section className="ob-recent" aria-label="最近已发送">
          <h3 className="section-title">最近已发送</h3>
          <ul className="card ob-recent__list">
            {box.recent.slice(0, 10).map((item) => (
              <li key={item.id}>
                <span className="ob-recent__title">{item.title}</span>
                <span className="ob-recent__time">{item.doneAt ? time(item.doneAt) : ''}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
