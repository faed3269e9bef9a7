import { Popup, SafeArea } from 'antd-mobile';
import type { ReactNode } from 'react';
import './action-sheet.css';

export interface SheetAction {
  key: string;
  text: string;
  danger?: boolean;
  onClick: () => void;
}

export interface ActionSheetProps {
  visible: boolean;
  actions: SheetAction[];
  /** What the actions apply to, above them. */
  extra?: ReactNode;
  onClose: () => void;
}

/**
 * A phone's sheet of actions for one row, with 取消. antd-mobile's ActionSheet draws its actions as links without an
 * address and role="option" outside any list box, which a keyboard cannot reach and a screen reader misreads; these
 * are buttons. The class names are antd-mobile's, so the sheet looks and is found as before.
 */
export function ActionSheet({ visible, actions, extra, onClose }: ActionSheetProps) {
  return (
    <Popup visible={visible} onMaskClick={onClose} onClose={onClose} className="adm-action-sheet-popup">
      <div className="adm-action-sheet" role="dialog" aria-modal="true" aria-label="操作">
        {extra && <div className="adm-action-sheet-extra">{extra}</div>}
        <div className="adm-action-sheet-button-list">
          {actions.map((a) => (
            <div key={a.key} className="adm-action-sheet-button-item-wrapper">
              <button
                type="button"
                className={`adm-action-sheet-button-item${a.danger ? ' adm-action-sheet-button-item-danger' : ''}`}
                onClick={() => {
                  a.onClick();
                  onClose();
                }}
              >
                <span className="adm-action-sheet-button-item-name">{a.text}</span>
              </button>
            </div>
          ))}
        </div>
        <div className="adm-action-sheet-cancel">
          <div className="adm-action-sheet-button-item-wrapper">
            <button type="button" className="adm-action-sheet-button-item" onClick={onClose}>
              <span className="adm-action-sheet-button-item-name">取消</span>
            </button>
          </div>
        </div>
        <SafeArea position="bottom" />
      </div>
    </Popup>
  );
}
