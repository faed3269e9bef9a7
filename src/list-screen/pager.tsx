import { LeftOutline, RightOutline } from 'antd-mobile-icons';
import { useState } from 'react';
import { pageCount, pageItems, PAGE_SIZE_OPTIONS, parseJump } from './conventions';
// The list screen's styles: a report screen (src/features/reports) draws this part without the rest.
import './list-screen.css';

export interface PagerProps {
  pn: number;
  size: number;
  total: number;
  onPage: (pn: number) => void;
  onSize: (size: number) => void;
}

function SizeSelect({ size, onSize, compact }: { size: number; onSize: (s: number) => void; compact?: boolean }) {
  return (
    <select className={`pg-size${compact ? ' pg-size--compact' : ''}`} aria-label="每页条数" value={size} onChange={(e) => onSize(Number(e.target.value))}>
      {PAGE_SIZE_OPTIONS.map((s) => (
        <option key={s} value={s}>
          {s} 条/页
        </option>
      ))}
    </select>
  );
}

/** Desktop: '共 N 条', page buttons, size changer and quick jumper, as spec 000 §1 asks. */
export function Pager({ pn, size, total, onPage, onSize }: PagerProps) {
  const pages = pageCount(total, size);
  const [jump, setJump] = useState('');
  const go = () => {
    const n = parseJump(jump, pages);
    if (n) onPage(n);
    setJump('');
  };
  return (
    <nav className="pg" aria-label="分页">
      <span className="pg-total">共 {total} 条</span>
      <button type="button" className="pg-btn" disabled={pn <= 1} aria-label="上一页" onClick={() => onPage(pn - 1)}>
        <LeftOutline />
      </button>
      {pageItems(pn, pages).map((it, i) =>
        it === 'gap' ? (
          <span key={`gap${i}`} className="pg-gap" aria-hidden>
            •••
          </span>
        ) : (
          <button type="button" key={it} className={`pg-btn${it === pn ? ' pg-btn--on' : ''}`} aria-current={it === pn ? 'page' : undefined} onClick={() => onPage(it)}>
            {it}
          </button>
        ),
      )}
      <button type="button" className="pg-btn" disabled={pn >= pages} aria-label="下一页" onClick={() => onPage(pn + 1)}>
        <RightOutline />
      </button>
      <SizeSelect size={size} onSize={onSize} />
      <label className="pg-jump">
        跳至
        <input
          inputMode="numeric"
          value={jump}
          onChange={(e) => setJump(e.target.value.replace(/\D/g, ''))}
          onKeyDown={(e) => {
            if (e.key === 'Enter') go();
          }}
          onBlur={() => jump && go()}
          aria-label="跳至页码"
        />
        页
      </label>
    </nav>
  );
}

/** Phone: previous/next with the position, '共 N 条' and the size picker. */
export function SimplePager({ pn, size, total, onPage, onSize }: PagerProps) {
  const pages = pageCount(total, size);
  return (
    <nav className="spg" aria-label="分页">
      <span className="pg-total">共 {total} 条</span>
      <span className="spg-nav">
        <button type="button" className="spg-btn" disabled={pn <= 1} onClick={() => onPage(pn - 1)}>
          <LeftOutline /> 上一页
        </button>
        <span className="spg-pos">
          {pn}/{pages}
        </span>
        <button type="button" className="spg-btn" disabled={pn >= pages} onClick={() => onPage(pn + 1)}>
          下一页 <RightOutline />
        </button>
      </span>
      <SizeSelect size={size} onSize={onSize} compact />
    </nav>
  );
}
