import { Input } from 'antd-mobile';
import type { ReactNode } from 'react';
import { AutoAction, autoActionLabels, DeadlineUnit, deadlineUnitLabels, REMIND_INTERVAL_HOURS_MAX, REMIND_TIMES_MAX } from '../../../../domain/approval-deadline';
import { ChoiceRadio } from '../../../components/choice-radio';
import type { FieldInputProps } from '../../../list-screen/types';
import { RoleSelect, usePublish, watch } from './node-inputs';

/**
 * The node form's deadline (审批时限, domain/approval-deadline.ts): the limit
 * and its unit, reminders, escalation and the automatic decision. The
 * follow-up fields are asked only once a limit is set, the interval only with
 * reminders: an input that is not asked renders `Off`, whose form row
 * process-config.css hides.
 */

const deadline = watch();
const unit = watch();
const reminders = watch();

const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
/** A limit is set unless the field is empty or 0 (不限时); anything else, even a typo, is for the schema to judge. */
export const deadlineSet = (v: unknown) => !blank(v) && Number(v) !== 0;
const positive = (v: unknown) => !blank(v) && Number(v) > 0;
const text = (v: unknown) => (blank(v) ? '' : String(v));
const unitOf = (v: unknown): DeadlineUnit => (Number(v) === DeadlineUnit.WORKING_DAYS ? DeadlineUnit.WORKING_DAYS : DeadlineUnit.HOURS);

/** A field that is not asked: its row is hidden (process-config.css); the note is for a browser that cannot hide it. */
function Off({ children }: { children: ReactNode }) {
  return <div className="pc-off pc-departs__note">{children}</div>;
}

function NumberInput({ label, value, onChange, placeholder, disabled, suffix }: FieldInputProps & { label: string; suffix: string }) {
  return (
    <span className="ls-input-wrap pc-number">
      <Input aria-label={label} inputMode="numeric" value={text(value)} onChange={(v) => onChange?.(v)} placeholder={placeholder} disabled={disabled} />
      <span className="ls-unit">{suffix}</span>
    </span>
  );
}

/** 审批时限: empty or 0 for none; its unit follows 时限单位. A stored 0 shows as empty, the placeholder saying what that means. */
export function DeadlineValueInput({ value, onChange, disabled }: FieldInputProps) {
  usePublish(deadline, value);
  const u = unitOf(unit.useValue());
  return <NumberInput label="审批时限" value={value === 0 ? '' : value} onChange={onChange} disabled={disabled} placeholder="不限时" suffix={deadlineUnitLabels[u]} />;
}

const unitOptions = [DeadlineUnit.HOURS, DeadlineUnit.WORKING_DAYS].map((v) => ({ value: v, label: deadlineUnitLabels[v] }));

export function DeadlineUnitInput({ value, onChange, disabled }: FieldInputProps) {
  usePublish(unit, value);
  if (!deadlineSet(deadline.useValue())) return <Off>不限时</Off>;
  return <ChoiceRadio value={value} onChange={onChange} options={unitOptions} disabled={disabled} />;
}

export function RemindTimesInput({ value, onChange, disabled }: FieldInputProps) {
  usePublish(reminders, value);
  if (!deadlineSet(deadline.useValue())) return <Off>不限时</Off>;
  return <NumberInput label="到期提醒次数" value={value} onChange={onChange} disabled={disabled} placeholder={`0-${REMIND_TIMES_MAX}`} suffix="次" />;
}

export function RemindIntervalInput({ value, onChange, disabled }: FieldInputProps) {
  const limit = deadline.useValue();
  const times = reminders.useValue();
  if (!deadlineSet(limit) || !positive(times)) return <Off>不提醒</Off>;
  return <NumberInput label="提醒间隔" value={value} onChange={onChange} disabled={disabled} placeholder={`1-${REMIND_INTERVAL_HOURS_MAX}`} suffix="小时" />;
}

/** 到期升级角色: optional; 不升级 clears it. */
export function EscalateRoleInput(props: FieldInputProps) {
  if (!deadlineSet(deadline.useValue())) return <Off>不限时</Off>;
  return <RoleSelect {...props} label="到期升级角色" none="不升级" />;
}

const actionOptions = [AutoAction.NONE, AutoAction.APPROVE, AutoAction.REJECT].map((v) => ({ value: v, label: autoActionLabels[v] }));

export function AutoActionInput({ value, onChange, disabled }: FieldInputProps) {
  if (!deadlineSet(deadline.useValue())) return <Off>不限时</Off>;
  return <ChoiceRadio value={value ?? AutoAction.NONE} onChange={onChange} options={actionOptions} disabled={disabled} />;
}
