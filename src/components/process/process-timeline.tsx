import { useQuery } from '@tanstack/react-query';
import { Button, ErrorBlock, Skeleton, Steps, Tag } from 'antd-mobile';
import { CheckCircleFill, ClockCircleFill, CloseCircleFill, MinusCircleOutline, SendOutline, UndoOutline } from 'antd-mobile-icons';
import { processEventLabels, ProcessEventKind } from '../../../domain/approval-events';
import { InstanceState, TaskState, isRejectResult } from '../../../domain/appointments';
import { enums, type EnumOption } from '../../../domain/enums';
import type { ReactElement, ReactNode } from 'react';
import type { z } from 'zod';
import type { Call } from '../../../domain/contract';
import type { processInfoAnswer } from '../../../domain/schemas/process-info';
import { call } from '../../lib/http';
import { nodeSteps, reviewersOf, type NodeStatus, type NodeStep, type ProcessEvent, type ProcessInfo, type ProcessTask } from './node-steps';
import './process.css';

/** A kind's process-info call (domain: processInfo of a register, process of an appointment kind). */
export type ProcessInfoCall = Call<z.ZodType, typeof processInfoAnswer>;

/** The approval process of one record, by the process-info call of its kind (spec: /v2/<kind>/check/process/info) and the record's id. */
export function useProcessInfo(process: ProcessInfoCall, id: number | undefined, enabled = true) {
  return useQuery({
    queryKey: ['process-info', process.path, id],
    queryFn: (): Promise<ProcessInfo> => call(process, { id } as never),
    enabled: enabled && id !== undefined && id !== null,
    retry: false,
  });
}

const option = (table: EnumOption[], value: number | null | undefined) => table.find((o) => o.value === value);

/** Nodes not reached, and their tags, are grey like their titles. */
const GREY = '#8c8c8c';

/** A node's place in the chain: its step colour, icon and tag. */
const STATUS: Record<NodeStatus, { step: 'wait' | 'process' | 'finish' | 'error'; icon: ReactElement; label: string; color: string }> = {
  done: { step: 'finish', icon: <CheckCircleFill />, label: '已通过', color: 'success' },
  rejected: { step: 'error', icon: <CloseCircleFill />, label: '已驳回', color: 'danger' },
  current: { step: 'process', icon: <ClockCircleFill />, label: '审批中', color: 'primary' },
  closed: { step: 'wait', icon: <MinusCircleOutline />, label: '已关闭', color: GREY },
  todo: { step: 'wait', icon: <MinusCircleOutline />, label: '待审批', color: GREY },
  unreached: { step: 'wait', icon: <MinusCircleOutline />, label: '未审批', color: GREY },
};

const whoOf = (t: ProcessTask) => [t.user?.user_name, t.depart?.name].filter(Boolean).join(' · ');

function Line({ k, children, className }: { k: string; children: ReactNode; className?: string }) {
  return (
    <div className="pt-line">
      <span className="pt-k">{k}</span>
      <span className={`pt-v${className ? ` ${className}` : ''}`}>{children}</span>
    </div>
  );
}

/** A decision: who, result, opinion, when. */
function DecidedBody({ task }: { task: ProcessTask }) {
  return (
    <div className="pt-body">
      <Line k="审批人">{whoOf(task) || '-'}</Line>
      {task.result !== null && task.result !== undefined && (
        <Line k="审批结果" className={`pt-result ${isRejectResult(task.result) ? 'pt-result--reject' : 'pt-result--approve'}`}>
          {option(enums.approvalResult, task.result)?.label ?? String(task.result)}
        </Line>
      )}
      {task.remark ? (
        <Line k="审批意见" className="pt-remark">
          {task.remark}
        </Line>
      ) : null}
      <Line k="审批时间" className="pt-time">
        {task.approve_time || '-'}
      </Line>
    </div>
  );
}

/** Steps that call for the approvers' attention: the deadline passed, or the applicant urged them. */
const WARNING_KINDS = new Set<string>([ProcessEventKind.REMIND, ProcessEventKind.ESCALATE, ProcessEventKind.URGE]);
/** Steps that follow a decision made at the same second (its copies); the others lead to it. */
const AFTER_DECISION_KINDS = new Set<string>([ProcessEventKind.COPY]);

/** A step besides decisions: what it was, who took it (系统 for the system) and when, then what it did. */
function EventBody({ event }: { event: ProcessEvent }) {
  const label = processEventLabels[event.kind as ProcessEventKind] ?? '流程记录';
  return (
    <div className={`pt-body pt-body--event${WARNING_KINDS.has(event.kind) ? ' pt-body--warn' : ''}`}>
      <Line k={label} className="pt-event-who">
        {event.user_name || '-'}
        <span className="pt-time">{event.create_time || '-'}</span>
      </Line>
      {event.text ? (
        <Line k="" className="pt-remark">
          {event.text}
        </Line>
      ) : null}
    </div>
  );
}

/** A node's decisions and other steps in the order they happened (times read 'YYYY-MM-DD HH:mm:ss', so they compare as text). */
function history(step: NodeStep, decided: ProcessTask[]) {
  const entries = [
    ...decided.map((t, i) => ({ time: t.approve_time ?? '', rank: 1, i, el: <DecidedBody key={`t${t.process_task_id}`} task={t} /> })),
    ...step.events.map((e, i) => ({ time: e.create_time ?? '', rank: AFTER_DECISION_KINDS.has(e.kind) ? 2 : 0, i, el: <EventBody key={`e${e.event_id}`} event={e} /> })),
  ];
  return entries.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : a.rank - b.rank || a.i - b.i)).map((x) => x.el);
}

/** What a node shows under its title: its decisions and other steps, who is reviewing now, or, not reached yet, who will. */
function NodeBody({ step }: { step: NodeStep }) {
  const decided = step.tasks.filter((t) => t.state === TaskState.DONE);
  const pending = step.tasks.filter((t) => t.state === TaskState.PENDING);
  // Approvers who added a signer before themself: their task returns once the signer approves.
  const waiting = step.tasks.filter((t) => t.state === TaskState.WAITING);
  const closed = step.tasks.filter((t) => t.state === TaskState.CLOSED);
  const rule = reviewersOf(step.node);
  const countersign = step.node?.countersign === 1;
  // Closed tasks are told apart by why they closed (another reviewer decided, the application was revoked …).
  const closedWhy = [...new Set(closed.map((t) => t.remark || '已关闭'))];
  return (
    <>
      {history(step, decided)}
      {pending.length > 0 && (
        <div className="pt-body">
          <Line k="审批人">{pending.map(whoOf).join('、') || rule || '-'}</Line>
          {pending.length > 1 && <Line k="审批方式">{countersign ? '会签，须全部审核通过' : '任一人审核即可'}</Line>}
          <Line k="审批时间" className="pt-time">
            等待审批
          </Line>
        </div>
      )}
      {waiting.length > 0 && (
        <div className="pt-body">
          <Line k="审批人">{waiting.map(whoOf).join('、')}</Line>
          <Line k="审批时间" className="pt-time">
            等待加签人审核后再审批
          </Line>
        </div>
      )}
      {closedWhy.map((why) => (
        <div key={why} className="pt-body pt-body--muted">
          <Line k="未审核">
            {closed
              .filter((t) => (t.remark || '已关闭') === why)
              .map(whoOf)
              .join('、') || '-'}
            （{why}）
          </Line>
        </div>
      ))}
      {step.tasks.length === 0 && (
        <div className="pt-body pt-body--muted">
          <Line k="审批人">{rule || '-'}</Line>
          {countersign && <Line k="审批方式">会签，须全部审核通过</Line>}
        </div>
      )}
    </>
  );
}

/**
 * The approval process as a vertical timeline: the submit time, then every
 * node of the instance's own chain in order (spec 000 §2 "approval-process
 * drawer", §4 colours): done nodes with approver, department, result,
 * opinion and time, the current one 审批中 with its approvers, and the nodes
 * still to come greyed with who will review them.
 */
export function ProcessTimeline({ process, id }: { process: ProcessInfoCall; id: number }) {
  const q = useProcessInfo(process, id);
  if (q.isLoading) return <Skeleton.Paragraph lineCount={6} animated className="pt-skeleton" />;
  if (q.isError)
    return (
      <ErrorBlock status="default" title="审批流程加载失败" description={q.error instanceof Error ? q.error.message : undefined} className="pt-error">
        <Button size="small" color="primary" fill="outline" onClick={() => void q.refetch()}>
          重试
        </Button>
      </ErrorBlock>
    );
  const info = q.data;
  const steps = nodeSteps(info);
  const revoked = info?.processInstance?.state === InstanceState.REVOKED;
  return (
    <div className="pt" role="group" aria-label="审批流程">
      <Steps direction="vertical" className="pt-steps">
        <Steps.Step
          status="finish"
          icon={<SendOutline />}
          title={<span className="pt-title">提交审批</span>}
          description={
            <div className="pt-body">
              <Line k="提交时间" className="pt-time">
                {info?.processInstance?.create_time || '-'}
              </Line>
            </div>
          }
        />
        {steps.map((s) => {
          const st = STATUS[s.status];
          return (
            <Steps.Step
              key={s.sort}
              status={st.step}
              icon={st.icon}
              className={`pt-node pt-node--${s.status}`}
              title={
                <span className="pt-head">
                  <span className="pt-title">{s.name}</span>
                  <Tag color={st.color} fill="outline" className="pt-tag">
                    {st.label}
                  </Tag>
                </span>
              }
              description={<NodeBody step={s} />}
            />
          );
        })}
        {revoked && (
          <Steps.Step
            status="wait"
            icon={<UndoOutline />}
            title={<span className="pt-title">申请已撤销</span>}
            description={
              <div className="pt-body pt-body--muted">
                <Line k="撤销时间" className="pt-time">
                  {info?.processInstance?.update_time || '-'}
                </Line>
              </div>
            }
          />
        )}
      </Steps>
      {steps.length === 0 && <div className="pt-empty">暂无审批记录</div>}
    </div>
  );
}
