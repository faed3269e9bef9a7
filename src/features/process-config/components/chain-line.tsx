import { RightOutline } from 'antd-mobile-icons';
import { Fragment } from 'react';
import './process-config.css';

export interface ChainLineProps {
  /** Node names in approval order. */
  names: readonly string[];
  /** A second line under each node (its reviewers), in the larger view. */
  notes?: ReadonlyArray<string | undefined>;
  /** Small chips for table cells and cards. */
  compact?: boolean;
  /** Shown when the chain is empty. */
  empty?: string;
}

/** The line view of a chain (spec 002 §2): node → node → node, numbered in approval order, wrapping on narrow screens. */
export function ChainLine({ names, notes, compact, empty = '未选择节点' }: ChainLineProps) {
  if (!names.length) return <span className="pc-chain__empty">{empty}</span>;
  return (
    <ol className={`pc-chain${compact ? ' pc-chain--compact' : ''}`} aria-label={`审批节点：${names.join(' → ')}`}>
      {names.map((name, i) => (
        <Fragment key={`${i}-${name}`}>
          {i > 0 && (
            <li className="pc-chain__arrow" aria-hidden>
              <RightOutline />
            </li>
          )}
          <li className="pc-chain__node">
            <span className="pc-chain__no">{i + 1}</span>
            <span className="pc-chain__text">
              <span className="pc-chain__name">{name}</span>
              {!compact && notes?.[i] ? <span className="pc-chain__note">{notes[i]}</span> : null}
            </span>
          </li>
        </Fragment>
      ))}
    </ol>
  );
}
