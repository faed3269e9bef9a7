import { useQuery } from '@tanstack/react-query';
import { Button, ErrorBlock, Skeleton, Steps, Tag } from 'antd-mobile';
import { CheckCircleFill, ClockCircleFill, CloseCircleFill, MinusCircleOutline, SendOutline } from 'antd-mobile-icons';
import { TaskState, isRejectResult } from '../../../domain/appointments';
import { enums, type EnumOption } from '../../../domain/enums';
import { post } from '../../lib/http';
import './process.css';

/** One entry of processTaskList (spec 000 §3 "approval task wrapper", spec 002 §3). */
export interface ProcessTask {
  process_task_id: number;
  state: number;
  result: number | null;
  remark: string | null;
  approve_time: string | null;
  submit_time?: string | null;
  processDefinitionNode?: { name?: string | null } | null;
  user?: { user_name?: string | null } | null;
  depart?: { name?: string | null } | null;
}

export interface ProcessInfo {
  processInstance: { create_time?: string | null } | null;
  processTaskList: ProcessTask[];
}

/** The approval process of one record, by the process-info call of its kind (spec: /v2/<kind>/check/process/info) and the record's id. */
export function useProcessInfo(path: string, id: number | undefined, enabled = true) {
  return useQuery({
    queryKey: ['process-info', path, id],
    queryFn: () => post<ProcessInfo>(path, { id }),
    enabled: enabled && id !== undefined && id !== null,
    retry: false,
  });
}

const option = (table: EnumOption[], value: number | null | undefined) => table.find((o) => o.value === value);

function EnumTag({ table, value }: { table: EnumOption[]; value: number | null | undefined }) {
  const o = option(table, value);
  if (!o) return value === null || value === undefined ? null : <Tag fill="outline">{String(value)}</Tag>;
  return (
    <Tag color={o.color ?? 'default'} fill="outline" className="pt-tag">
      {o.label}
    </Tag>
  );
}

type StepStatus = 'wait' | 'process' | 'finish' | 'error';

function statusOf(t: ProcessTask): StepStatus {
  if (t.state === TaskState.PENDING) return 'process';
  if (t.state === TaskState.CLOSED && t.result === null) return 'wait';
  return isRejectResult(t.result) ? 'error' : 'finish';
}

function iconOf(status: StepStatus) {
  switch (status) {
    case 'process':
      return <ClockCircleFill />;
    case 'error':
      return <CloseCircleFill />;
    case 'finish':
      return <CheckCircleFill />;
    default:
      return <MinusCircleOutline />;
  }
}

function TaskBody({ task }: { task: ProcessTask }) {
  const who = [task.user?.user_name, task.depart?.name].filter(Boolean).join(' · ');
  const decided = task.state !== TaskState.PENDING;
  return (
    <div className="pt-body">
      <div className="pt-line">
        <span className="pt-k">审批人</span>
        <span className="pt-v">{who || '-'}</span>
      </div>
      {decided && task.result !== null && task.result !== undefined && (
        <div className="pt-line">
          <span className="pt-k">审批结果</span>
          <span className={`pt-v pt-result ${isRejectResult(task.result) ? 'pt-result--reject' : 'pt-result--approve'}`}>{option(enums.approvalResult, task.result)?.label ?? String(task.result)}</span>
        </div>
      )}
      {task.remark ? (
        <div className="pt-line">
          <span className="pt-k">审批意见</span>
          <span className="pt-v pt-remark">{task.remark}</span>
        </div>
      ) : null}
      <div className="pt-line">
        <span className="pt-k">审批时间</span>
        <span className="pt-v pt-time">{task.approve_time || (decided ? '-' : '等待审批')}</span>
      </div>
    </div>
  );
}

/**
 * The approval process as a vertical timeline: the submit time, then each
 * node with approver, department, state, result (once decided), opinion and
 * time (spec 000 §2 "approval-process drawer", §4 colours).
 */
export function ProcessTimeline({ path, id }: { path: string; id: number }) {
  const q = useProcessInfo(path, id);
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
  const tasks = info?.processTaskList ?? [];
  return (
    <div className="pt" aria-label="审批流程">
      <Steps direction="vertical" className="pt-steps">
        <Steps.Step
          status="finish"
          icon={<SendOutline />}
          title={<span className="pt-title">提交审批</span>}
          description={
            <div className="pt-body">
              <div className="pt-line">
                <span className="pt-k">提交时间</span>
                <span className="pt-v pt-time">{info?.processInstance?.create_time || '-'}</span>
              </div>
            </div>
          }
        />
        {tasks.map((t) => {
          const status = statusOf(t);
          return (
            <Steps.Step
              key={t.process_task_id}
              status={status}
              icon={iconOf(status)}
              title={
                <span className="pt-head">
                  <span className="pt-title">{t.processDefinitionNode?.name || '审批节点'}</span>
                  <EnumTag table={enums.processTaskState} value={t.state} />
                </span>
              }
              description={<TaskBody task={t} />}
            />
          );
        })}
      </Steps>
      {tasks.length === 0 && <div className="pt-empty">暂无审批记录</div>}
    </div>
  );
}
