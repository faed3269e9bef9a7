import { TextArea } from 'antd-mobile';
import { useState, type ComponentType } from 'react';
import { enumLabel, enums } from '../../../domain/enums';
import { alarmDealBody, handledRemarkFor, strandedApi, type AlarmList, type StrandedAlarmRow } from '../../../domain/schemas/stranded';
import { ChoiceRadio } from '../../components/choice-radio';
import { ModalForm } from '../../components/reason-modal';
import { FormItem, ScreenModal, failureText, type ScreenModalProps } from '../../list-screen';
import { fieldErrorMap } from '../../list-screen/conventions';
import { alarmKinds } from './alarm-kinds';
import { showToast } from '../../lib/feedback';

/** How long an online handling waits for its send before the modal lets go and leaves it to the outbox. */
const SEND_WAIT_MS = 20_000;
const OK_TEXT = '处理告警成功！';
const FAIL_PREFIX = '处理告警错误：';
const WAITING_OFFLINE = '当前无网络，处理结果已保存，联网后自动发送';
const WAITING_SLOW = '网络不稳定，处理结果已保存，将自动重新发送';

const fail = (content: string) => showToast({ icon: 'fail', content, duration: 3000 });

/** The outbox line of a handling: '处理告警 粤L12345（判断准确）'. */
const dealTitle = (subject: string, falseAlarm: number) => `处理告警 ${subject}（${falseAlarm === 1 ? '误判' : '判断准确'}）`;

interface DealProps {
  /** The alarm's list: its handling call, and the outbox item's name for it. */
  list: AlarmList;
  open: boolean;
  row: StrandedAlarmRow;
  onClose: () => void;
  onDone: () => void;
  /** Left to the outbox (offline, or slow): the person is done here either way; onClose by default. */
  onQueued?: () => void;
}

/**
 * 处理告警 (spec 001 §2, §4; DESIGN.md §8): 是否误判 and 处理说明. Choosing
 * yes fills '出现误判！', no '判断准确！' (handledRemarkFor); the note stays
 * editable. The security lead handles alarms in the field, so the handling
 * goes through the outbox (DESIGN.md §5): sent at once with its
 * Idempotency-Key, or kept and sent when the signal returns. An alarm another
 * lead handled first is refused (409) and said so in words.
 */
export function AlarmDeal({ list, open, row, onClose, onDone, onQueued = onClose }: DealProps) {
  const k = alarmKinds[list];
  const [falseAlarm, setFalseAlarm] = useState<number | undefined>(undefined);
  const [remark, setRemark] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  const choose = (v: unknown) => {
    const value = Number(v);
    setFalseAlarm(value);
    setRemark(handledRemarkFor(value));
    setErrors({});
  };

  const submit = async () => {
    if (busy) return;
    const parsed = alarmDealBody.safeParse({ id: row.id, false_alarm: falseAlarm, handled_remark: remark });
    if (!parsed.success) return setErrors(fieldErrorMap(parsed.error.issues));
    setBusy(true);
    const url = strandedApi[list].alarmDeal.path;
    const refused = (message: string | undefined, status: number | undefined) => {
      fail(failureText(FAIL_PREFIX, message?.replace(FAIL_PREFIX, '')));
      // Handled by someone else meanwhile (or gone): the list shows it; anything else stays open to be corrected.
      if (status === 409 || status === 404) onDone();
    };
    try {
      // Sent directly without a usable IndexedDB (some private windows), as the review modal does: a handling has no photos.
      const { sendAction } = await import('../../lib/outbox/action');
      await sendAction(
        { kind: 'alarmDeal', url, body: parsed.data, title: dealTitle(k.subject(row), parsed.data.false_alarm), meta: { alarmKind: list, alarmId: row.id } },
        {
          waitMs: SEND_WAIT_MS,
          okText: OK_TEXT,
          waitingText: { offline: WAITING_OFFLINE, slow: WAITING_SLOW },
          onDone,
          onQueued,
          onRefused: ({ message, status }) => refused(message, status),
          direct: true,
        },
      );
    } catch (e) {
      fail(failureText(FAIL_PREFIX, e instanceof Error ? e.message : String(e)));
    } finally {
      setBusy(false);
    }
  };

  const clear = (key: string) => setErrors((e) => (key in e ? Object.fromEntries(Object.entries(e).filter(([x]) => x !== key)) : e));
  const where = [row.visit_area ? enumLabel('visitArea', row.visit_area) : '', enumLabel('strandedLevel', row.level_type)].filter(Boolean).join(' · ');

  return (
    <ScreenModal open={open} title="处理告警" onClose={onClose} onOk={() => void submit()} okText="确定" okLoading={busy} width={560}>
      <div className="am-subject">
        <div className="am-subject__main">
          <b>{k.subject(row)}</b>
          <span className="am-subject__no">{where}</span>
        </div>
        <div className="am-subject__meta">{k.deviation ? `首次偏离 ${row.alarm_time} · 共偏离 ${row.crossings.length} 次` : `入园 ${row.entry_time} · 告警 ${row.alarm_time}`}</div>
      </div>
      <ModalForm>
        <FormItem label="是否误判" required error={errors.false_alarm}>
          <div role="radiogroup" aria-label="是否误判">
            <ChoiceRadio value={falseAlarm} onChange={choose} options={enums.yesNo.slice().reverse()} disabled={busy} />
          </div>
        </FormItem>
        <FormItem label="处理说明" required error={errors.handled_remark} htmlFor="sd-remark">
          <TextArea
            id="sd-remark"
            value={remark}
            onChange={(v) => {
              setRemark(v);
              clear('handled_remark');
            }}
            placeholder="请输入处理说明"
            autoSize={{ minRows: 3, maxRows: 6 }}
            maxLength={200}
            showCount
            disabled={busy}
          />
        </FormItem>
      </ModalForm>
    </ScreenModal>
  );
}

const modals = new Map<AlarmList, ComponentType<ScreenModalProps<StrandedAlarmRow>>>();

/** The 处理告警 row action's modal of one list (one component per list, so it keeps its identity). */
export function alarmDealModalFor(list: AlarmList): ComponentType<ScreenModalProps<StrandedAlarmRow>> {
  let C = modals.get(list);
  if (!C) {
    C = function AlarmDealModal({ open, row, onClose, onDone }: ScreenModalProps<StrandedAlarmRow>) {
      return row ? <AlarmDeal list={list} open={open} row={row} onClose={onClose} onDone={onDone} /> : null;
    };
    modals.set(list, C);
  }
  return C;
}
