import { TextArea } from 'antd-mobile';
import { useEffect, useRef, useState } from 'react';
import { enumLabel } from '../../../domain/enums';
import { MAX_LABEL_PHOTOS } from '../../../domain/schemas/car-application';
import { CANCEL_PHOTO_REQUIRED, vehicleMarkApi, vehicleMarkCancel, type VehicleMarkRow } from '../../../domain/schemas/vehicle-mark';
import { ImageUpload } from '../../components/image-upload';
import { ModalForm } from '../../components/reason-modal';
import { PHOTOS_PROCESSING, forgetLocalPhotos, photoLimitMessage, photosBusy, splitFileNames } from '../../lib/files';
import { outboxPhotos, sendAction } from '../../lib/outbox/action';
import { FormItem, ScreenModal, failureText, type ScreenModalProps } from '../../list-screen';
import { fieldErrorMap } from '../../list-screen/conventions';
import { showToast } from '../../lib/feedback';

/** How long an online cancel waits for its send before the modal lets go and leaves it to the outbox. */
const SEND_WAIT_MS = 20_000;
const WAITING_OFFLINE = '当前无网络，取消已保存，联网后自动发送';
const WAITING_SLOW = '网络不稳定，取消已保存，将自动重新发送';

const fail = (content: string) => showToast({ icon: 'fail', content, duration: 3000 });

/**
 * 取消标记 (spec 001 §2, §5, §8): a reason and 1 to 9 rectification photos.
 * It goes through the outbox (DESIGN.md §5) like a flag: photos taken
 * without a signal travel as Blobs and are uploaded first, and the cancel is
 * sent once with its Idempotency-Key when the signal returns.
 */
export function CancelMarkModal({ open, row, onClose, onDone }: ScreenModalProps<VehicleMarkRow>) {
  const [reason, setReason] = useState('');
  const [photos, setPhotos] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [photoWait, setPhotoWait] = useState(false);
  const photoRef = useRef(photos);
  photoRef.current = photos;
  // Photos still on the device belong to this modal: once it closes (handed to the outbox or abandoned) they go.
  useEffect(() => () => forgetLocalPhotos(splitFileNames(photoRef.current)), []);

  const clear = (key: string) => setErrors((e) => (key in e ? Object.fromEntries(Object.entries(e).filter(([k]) => k !== key)) : e));

  const submit = async () => {
    if (busy || !row) return;
    setBusy(true);
    try {
      // Photos being compressed or sent are waited for (issue 24 item 2): sent ones go as stored names, not twice.
      setPhotoWait(photosBusy(photos));
      const local = await outboxPhotos(photos);
      setPhotoWait(false);
      if ('error' in local) return setErrors({ cancel_photo: local.error });
      const parsed = vehicleMarkCancel.safeParse({ id: row.id, cancel_reason: reason, cancel_photo: local.names });
      // Photos still on the device count as given: the outbox uploads them before the cancel.
      const issues = parsed.success ? [] : parsed.error.issues.filter((i) => !(local.blobs.length > 0 && i.path[0] === 'cancel_photo' && i.message === CANCEL_PHOTO_REQUIRED));
      const errs = fieldErrorMap(issues);
      if (!errs.cancel_photo && splitFileNames(local.names).length + local.blobs.length > MAX_LABEL_PHOTOS) errs.cancel_photo = photoLimitMessage(MAX_LABEL_PHOTOS);
      if (Object.keys(errs).length) return setErrors(errs);

      await sendAction(
        {
          kind: 'markCancel',
          url: vehicleMarkApi.cancel.path,
          body: { id: row.id, cancel_reason: reason.trim(), cancel_photo: local.names },
          title: `取消标记 ${row.license_plate}`,
          ...(local.blobs.length ? { photos: { cancel_photo: local.blobs } } : {}),
          meta: { markId: row.id },
        },
        {
          waitMs: SEND_WAIT_MS,
          okText: '取消成功！',
          waitingText: { offline: WAITING_OFFLINE, slow: WAITING_SLOW },
          onDone,
          // Refused while the person is still here: they read why in the modal.
          onRefused: ({ message }) => fail(failureText('取消失败：', message)),
          onQueued: onClose,
        },
      );
    } catch {
      fail('操作失败，请重试');
    } finally {
      setBusy(false);
    }
  };

  return (
    <ScreenModal
      open={open}
      title="取消标记"
      onClose={onClose}
      onOk={() => void submit()}
      cancelText="返回"
      okText="确认取消标记"
      okLoading={busy}
      okLoadingText={photoWait ? PHOTOS_PROCESSING : undefined}
      width={620}
    >
      {row && (
        <div className="am-subject">
          <div className="am-subject__main">
            <b>{row.license_plate}</b>
            <span className="am-subject__no">{[enumLabel('markColor', row.color_id), enumLabel('markLabelType', row.label_type_id)].join(' · ')}</span>
          </div>
          <div className="am-subject__meta">{row.remark}</div>
        </div>
      )}
      <ModalForm>
        <FormItem label="取消理由" required error={errors.cancel_reason} htmlFor="mk-cancel-reason">
          <TextArea
            id="mk-cancel-reason"
            value={reason}
            onChange={(v) => {
              setReason(v);
              clear('cancel_reason');
            }}
            placeholder="请输入取消理由"
            autoSize={{ minRows: 3, maxRows: 8 }}
            maxLength={200}
            showCount
          />
        </FormItem>
        <FormItem label="整改照片" required error={errors.cancel_photo} help={`最多${MAX_LABEL_PHOTOS}张，无网络时先保存在本机`}>
          <ImageUpload
            value={photos}
            onChange={(v) => {
              setPhotos(v);
              clear('cancel_photo');
            }}
            max={MAX_LABEL_PHOTOS}
          />
        </FormItem>
      </ModalForm>
    </ScreenModal>
  );
}
