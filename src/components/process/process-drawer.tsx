import { Popup } from 'antd-mobile';
import { CloseOutline } from 'antd-mobile-icons';
import { useEffect, type ComponentType } from 'react';
import type { Row, ScreenModalProps } from '../../list-screen';
import { useIsDesktop } from '../../lib/use-media';
import { ProcessTimeline, type ProcessInfoCall } from './process-timeline';
import './process.css';

/** What a process drawer shows the process of: the kind's process-info call, and how a row names its record. */
export interface ProcessSubject {
  call: ProcessInfoCall;
  /** The record's id: a list row carries it under its key, an approval-queue task row as ref_id. */
  idOf: (row: Row | undefined) => number | undefined;
  /** The line under the title, e.g. number and plate. */
  subtitle: (row: Row | undefined) => string;
}

export type ProcessDrawerProps<R extends Row = Row> = ScreenModalProps<R> & { subject: ProcessSubject; id?: number };

/**
 * 审批流程: a drawer from the right on desktop (the list stays visible beside
 * it), a bottom sheet on phones.
 */
export function ProcessDrawer<R extends Row>({ open, row, onClose, subject, id }: ProcessDrawerProps<R>) {
  const desktop = useIsDesktop();
  const recordId = id ?? subject.idOf(row);
  const subtitle = subject.subtitle(row);

  useEffect(() => {
    if (!open || !desktop) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open, desktop, onClose]);

  return (
    <Popup visible={open} position={desktop ? 'right' : 'bottom'} onMaskClick={onClose} onClose={onClose} destroyOnClose bodyClassName={desktop ? 'pd pd--desktop' : 'pd pd--phone'}>
      <div className="pd-frame" role="dialog" aria-modal="true" aria-label="审批流程">
        {!desktop && <div className="pd-grip" aria-hidden />}
        <header className="pd-head">
          <div className="pd-titles">
            <h2 className="pd-title">审批流程</h2>
            {subtitle && <div className="pd-sub">{subtitle}</div>}
          </div>
          <button type="button" className="pd-close" aria-label="关闭" onClick={onClose}>
            <CloseOutline />
          </button>
        </header>
        <div className="pd-body">{recordId !== undefined ? <ProcessTimeline process={subject.call} id={recordId} /> : <div className="pt-empty">暂无审批记录</div>}</div>
      </div>
    </Popup>
  );
}

const drawers = new WeakMap<ProcessSubject, ComponentType<ScreenModalProps<Row>>>();

/** ProcessDrawer as a row-action modal of a screen; one stable component per subject. */
export function processDrawerFor<R extends Row = Row>(subject: ProcessSubject): ComponentType<ScreenModalProps<R>> {
  let c = drawers.get(subject);
  if (!c) {
    const Drawer = (props: ScreenModalProps<Row>) => <ProcessDrawer {...props} subject={subject} />;
    Drawer.displayName = `ProcessDrawer(${subject.call.path})`;
    drawers.set(subject, Drawer);
    c = Drawer;
  }
  return c as ComponentType<ScreenModalProps<R>>;
}
