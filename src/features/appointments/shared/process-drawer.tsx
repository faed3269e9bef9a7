import { Popup } from 'antd-mobile';
import { CloseOutline } from 'antd-mobile-icons';
import { useEffect, type ComponentType } from 'react';
import type { AppointmentKind } from '../../../../domain/appointments';
import type { Row, ScreenModalProps } from '../../../list-screen';
import { useIsDesktop } from '../../../lib/use-media';
import { ProcessTimeline } from './process-timeline';
import './process.css';

/**
 * The application id of a row: an application row carries it under its own
 * key, an approval-queue task row as ref_id.
 */
export function applicationIdOf(kind: AppointmentKind, row: Row | undefined): number | undefined {
  if (!row) return undefined;
  const r = row as Record<string, unknown>;
  const v = r[kind === 'car' ? 'car_application_id' : 'person_application_id'] ?? r.ref_id;
  return typeof v === 'number' ? v : typeof v === 'string' && v !== '' ? Number(v) : undefined;
}

function subtitleOf(kind: AppointmentKind, row: Row | undefined): string {
  if (!row) return '';
  const r = row as Record<string, unknown>;
  const app = (kind === 'car' ? r.carApplication : r.personApplication) as Record<string, unknown> | undefined;
  const src = app ?? r;
  const who = kind === 'car' ? src.license_plate : src.visitor_name;
  return [src.application_number, who].filter((v) => typeof v === 'string' && v).join(' · ');
}

export type ProcessDrawerProps<R extends Row = Row> = ScreenModalProps<R> & { kind: AppointmentKind; id?: number };

/**
 * 审批流程: a drawer from the right on desktop (the list stays visible beside
 * it), a bottom sheet on phones.
 */
export function ProcessDrawer<R extends Row>({ open, row, onClose, kind, id }: ProcessDrawerProps<R>) {
  const desktop = useIsDesktop();
  const appId = id ?? applicationIdOf(kind, row);
  const subtitle = subtitleOf(kind, row);

  useEffect(() => {
    if (!open || !desktop) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open, desktop, onClose]);

  return (
    <Popup
      visible={open}
      position={desktop ? 'right' : 'bottom'}
      onMaskClick={onClose}
      onClose={onClose}
      destroyOnClose
      bodyClassName={desktop ? 'pd pd--desktop' : 'pd pd--phone'}
    >
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
        <div className="pd-body">{appId !== undefined ? <ProcessTimeline kind={kind} id={appId} /> : <div className="pt-empty">暂无审批记录</div>}</div>
      </div>
    </Popup>
  );
}

const drawers = new Map<AppointmentKind, ComponentType<ScreenModalProps<Row>>>();

/** ProcessDrawer as a row-action modal of a screen; one stable component per kind. */
export function processDrawerFor<R extends Row = Row>(kind: AppointmentKind): ComponentType<ScreenModalProps<R>> {
  let c = drawers.get(kind);
  if (!c) {
    const Drawer = (props: ScreenModalProps<Row>) => <ProcessDrawer {...props} kind={kind} />;
    Drawer.displayName = `ProcessDrawer(${kind})`;
    drawers.set(kind, Drawer);
    c = Drawer;
  }
  return c as ComponentType<ScreenModalProps<R>>;
}
