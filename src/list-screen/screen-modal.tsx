import { Button, CenterPopup, Popup } from 'antd-mobile';
import { CloseOutline, LeftOutline } from 'antd-mobile-icons';
import { useEffect, type ReactNode } from 'react';
import { useIsDesktop } from '../lib/use-media';
import './list-screen.css';

export interface ScreenModalProps {
  open: boolean;
  title: ReactNode;
  onClose: () => void;
  children: ReactNode;
  /** Desktop width in px: 560 by default, 700 for approval forms. */
  width?: number;
  /** Primary button; omitted for read-only content (then a single 关闭 shows). */
  onOk?: () => void;
  okText?: string;
  okLoading?: boolean;
  /** What the spinning primary button says instead of okText (e.g. 照片处理中). */
  okLoadingText?: string;
  okDanger?: boolean;
  cancelText?: string;
  /** Replaces the default buttons. */
  footer?: ReactNode;
}

/**
 * The one modal of every list screen: a centred dialog from 768 px, a
 * full-screen sheet below (a form on a phone needs the whole height and the
 * keyboard's room). Custom modals of screens use it too, so they look alike.
 */
export function ScreenModal({ open, title, onClose, children, width = 560, onOk, okText = '确定', okLoading, okLoadingText, okDanger, cancelText = '取消', footer }: ScreenModalProps) {
  const desktop = useIsDesktop();

  useEffect(() => {
    if (!open || !desktop) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open, desktop, onClose]);

  const buttons =
    footer ??
    (onOk ? (
      <>
        <Button className="sm-btn" onClick={onClose} disabled={okLoading}>
          {cancelText}
        </Button>
        <Button className="sm-btn" color={okDanger ? 'danger' : 'primary'} loading={okLoading} loadingText={okLoadingText} onClick={onOk}>
          {okText}
        </Button>
      </>
    ) : (
      <Button className="sm-btn" onClick={onClose}>
        关闭
      </Button>
    ));

  if (desktop) {
    return (
      <CenterPopup
        visible={open}
        onMaskClick={okLoading ? undefined : onClose}
        destroyOnClose
        style={{ '--min-width': `min(${width}px, 94vw)`, '--max-width': `min(${width}px, 94vw)`, '--border-radius': '10px' } as React.CSSProperties}
      >
        <div className="sm sm--desktop" role="dialog" aria-modal="true" aria-label={typeof title === 'string' ? title : undefined}>
          <header className="sm-head">
            <h2 className="sm-title">{title}</h2>
            <button type="button" className="sm-close" aria-label="关闭" onClick={onClose}>
              <CloseOutline />
            </button>
          </header>
          <div className="sm-body" tabIndex={0}>
            {children}
          </div>
          <footer className="sm-foot">{buttons}</footer>
        </div>
      </CenterPopup>
    );
  }

  return (
    <Popup visible={open} destroyOnClose position="bottom" bodyStyle={{ height: '100%' }} onClose={onClose}>
      <div className="sm sm--phone" role="dialog" aria-modal="true" aria-label={typeof title === 'string' ? title : undefined}>
        <header className="sm-head">
          <button type="button" className="sm-back" aria-label="返回" onClick={onClose}>
            <LeftOutline />
          </button>
          <h2 className="sm-title">{title}</h2>
          <span className="sm-back" aria-hidden />
        </header>
        <div className="sm-body" tabIndex={0}>
          {children}
        </div>
        <footer className="sm-foot">{buttons}</footer>
      </div>
    </Popup>
  );
}
