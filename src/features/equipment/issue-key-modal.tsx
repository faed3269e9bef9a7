import { SpinLoading } from 'antd-mobile';
import { useEffect, useRef, useState, type ComponentType } from 'react';
import type { EquipmentApi, EquipmentRow } from '../../../domain/schemas/equipment';
import { CopyField } from '../../components/copy-field';
// The action modals' subject and notice boxes.
import '../../components/reason-modal.css';
import { call } from '../../lib/http';
import { ScreenModal, failureText, type ScreenModalProps } from '../../list-screen';
import './issue-key-modal.css';
import { showToast } from '../../lib/feedback';

/** The confirm before issuing: a new key ends the old one at once (DESIGN.md §8). */
export const issueKeyConfirm = (r: EquipmentRow) =>
  r.key_issued_time
    ? `「${r.name}」已于 ${r.key_issued_time} 签发过接入密钥。再次签发后旧密钥立即作废，仍用旧密钥的设备将无法接入，须换用新密钥。确定重新签发？`
    : `为「${r.name}」签发接入密钥？密钥只显示一次；以后再次签发会使旧密钥立即作废。`;

/**
 * 接入密钥 (DESIGN.md §8) of one kind's devices: issued once the action is
 * confirmed, then shown this one time with the header line the device sends.
 * Closing reloads the list, whose 密钥签发时间 then shows the new time; the
 * mask does not close it while the key is on its way.
 */
export function issueKeyModal(issueKey: EquipmentApi['issueKey']): ComponentType<ScreenModalProps<EquipmentRow>> {
  return function IssueKeyModal({ open, row, onClose, onDone }: ScreenModalProps<EquipmentRow>) {
    const [issued, setIssued] = useState<{ key: string; hmac_key: string }>();
    const key = issued?.key;
    // One issue per opening: a second call (StrictMode's repeated effect) would void the key shown.
    const started = useRef(false);
    useEffect(() => {
      if (!open || !row || started.current) return;
      started.current = true;
      call(issueKey, { id: row.id }).then(
        (d) => setIssued(d),
        (e: unknown) => {
          showToast({ icon: 'fail', content: failureText('签发失败：', e instanceof Error ? e.message : String(e)), duration: 3000 });
          onClose();
        },
      );
    }, [open, row, onClose]);

    return (
      <ScreenModal open={open} title="接入密钥" onClose={onDone} okLoading={!key} width={620}>
        {row && (
          <div className="am-subject">
            <div className="am-subject__main">
              <b>{row.name}</b>
              <span className="am-subject__no">{row.number}</span>
            </div>
          </div>
        )}
        {key && row ? (
          <>
            <div className="am-notice">密钥只显示这一次，关闭后无法再次查看，请立即复制并配置到设备。遗失后只能重新签发，旧密钥随之作废。</div>
            <CopyField label="接入密钥" value={key} />
            <CopyField label="设备请求头" value={`Authorization: Device ${row.number}:${key}`} />
            {/* The key of the offline allow-list's subject hashes (docs/offline-gates.md): replaced with the access key. */}
            <CopyField label="名单密钥（离线放行）" value={issued!.hmac_key} />
          </>
        ) : (
          <div className="ik-wait">
            <SpinLoading /> 正在签发…
          </div>
        )}
      </ScreenModal>
    );
  };
}
