import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Input, SearchBar, Switch, TextArea } from 'antd-mobile';
import { useMemo, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { enumLabel } from '../../../domain/enums';
import { isDocumentNumber } from '../../../domain/identity';
import { maskIdNumber } from '../../../domain/personal-data';
import {
  MAX_MARK_PLACE,
  MAX_MUSTER_MESSAGE,
  musterApi,
  musterMethodLabels,
  musterSourceLabels,
  musterStartInput,
  type MusterCurrentAnswer,
  type MusterGroup,
  type MusterMarkInput,
  type MusterMarkMethod,
  type MusterRow,
  type MusterSubject,
  type MusterSubjectsAnswer,
} from '../../../domain/schemas/muster';
import { formatInZone } from '../../../domain/time';
import { PlateInput } from '../../components/plate-keyboard';
import { QrCamera } from '../../components/qr-camera';
import { downloadFile } from '../../lib/download';
import { confirmDialog, showToast } from '../../lib/feedback';
import { ApiError, call } from '../../lib/http';
import { musterCurrentKey } from '../../lib/live-figures';
import { useCan } from '../../lib/me';
import { useOnline } from '../../lib/use-online';
import { MusterReport } from './muster-report';
import './muster.css';

/**
 * 应急清点 (docs/muster.md). While none runs: the start form (muster:start)
 * and past musters. While one runs: the board (accounted and unaccounted per
 * enterprise, refetched on the notification stream's figures event within a
 * second of a mark), and for marshals (muster:mark) the marking panel. The
 * list is kept on the phone (query persistence) so a marshal who loses the
 * network keeps it, and marks go through the outbox with their own time and
 * place.
 */

const currentKey = musterCurrentKey;
/** Not under the figures key: every mark anywhere would refetch every marshal's whole list; it is polled instead. */
const subjectsKey = (id: number) => ['muster', 'subjects', id] as const;
/** Refetched this often while one runs, besides the stream's events: a phone that missed one still catches up. */
const RUNNING_POLL_MS = 10_000;
const PLACE_KEY = 'muster-place';
const SEND_WAIT_MS = 8_000;

const parkNow = () => formatInZone(new Date());
const areaOptions = [1, 2, 3] as const;

export default function MusterPage() {
  const [params, setParams] = useSearchParams();
  const report = Number(params.get('report')) || 0;
  const can = useCan();
  const current = useQuery({
    queryKey: currentKey,
    queryFn: () => call(musterApi.current),
    refetchInterval: (q) => (q.state.data?.muster ? RUNNING_POLL_MS : false),
  });
  if (report) return <MusterReport id={report} onBack={() => setParams({})} />;
  const board = current.data;
  if (current.error && !board) {
    return (
      <div className="page mu">
        <section className="card mu-card" role="alert">
          应急清点加载失败：{current.error.message}
          <Button size="small" onClick={() => void current.refetch()}>
            重试
          </Button>
        </section>
      </div>
    );
  }
  if (!board) return <div className="page mu" aria-busy="true" />;
  return (
    <div className="page mu" data-testid="muster-page">
      {board.muster ? (
        <Running board={board as MusterCurrentAnswer & { muster: MusterRow }} canMark={can('muster:mark')} canEnd={can('muster:start')} onReport={(id) => setParams({ report: String(id) })} />
      ) : (
        <>
          {can('muster:start') && <StartForm />}
          <History onReport={(id) => setParams({ report: String(id) })} />
        </>
      )}
    </div>
  );
}

function StartForm() {
  const client = useQueryClient();
  const [area, setArea] = useState<number | undefined>(undefined);
  const [drill, setDrill] = useState(false);
  const [message, setMessage] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const start = useMutation({
    mutationFn: (body: { visit_area: number; drill: number; message: string }) => call(musterApi.start, body),
    onSuccess: (answer) => {
      client.setQueryData(currentKey, answer);
      showToast({ icon: 'success', content: `应急清点已发起，已通知 ${answer.sms_count} 人` });
    },
    onError: (err) => {
      if (err instanceof ApiError) setErrors(Object.fromEntries(err.fieldErrors.map((f) => [f.field, f.message])));
      showToast({ icon: 'fail', content: `发起失败：${err.message}`, duration: 4000 });
    },
  });
  const submit = async () => {
    const parsed = musterStartInput.safeParse({ visit_area: area, drill: drill ? 1 : 0, message });
    if (!parsed.success) return setErrors(Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message])));
    setErrors({});
    const ok = await confirmDialog({
      title: drill ? '发起应急演练' : '发起应急清点',
      content: `将向${enumLabel('visitArea', parsed.data.visit_area)}内所有有手机号的人员发送短信，并通知全部用户。确定发起吗？`,
      confirmText: '发起',
      danger: !drill,
    });
    if (ok) start.mutate(parsed.data);
  };
  return (
    <section className="card mu-card" aria-labelledby="mu-start-title">
      <h2 id="mu-start-title" className="mu-title">
        发起应急清点
      </h2>
      <p className="mu-note">发起后列出范围内当前在园的全部人员和车辆（最后一次过闸为入场），向其中有手机号的人员发送短信。</p>
      <fieldset className="mu-field">
        <legend>清点范围</legend>
        <div className="mu-choices" role="radiogroup" aria-label="清点范围">
          {areaOptions.map((a) => (
            <button key={a} type="button" role="radio" aria-checked={area === a} className={`mu-choice${area === a ? ' is-on' : ''}`} onClick={() => setArea(a)}>
              {enumLabel('visitArea', a)}
            </button>
          ))}
        </div>
        {errors.visit_area && <p className="mu-error">{errors.visit_area}</p>}
      </fieldset>
      <label className="mu-field mu-switch">
        <span>演练</span>
        <Switch checked={drill} onChange={setDrill} aria-label="演练" />
        <span className="mu-note">演练会在报告和记录中标注，不计入告警统计</span>
      </label>
      <label className="mu-field" htmlFor="mu-message">
        <span>通知内容</span>
        <TextArea
          id="mu-message"
          value={message}
          onChange={setMessage}
          placeholder="例如：东区泄漏，请立即前往2号集合点"
          maxLength={MAX_MUSTER_MESSAGE}
          showCount
          autoSize={{ minRows: 2, maxRows: 5 }}
        />
        {errors.message && <p className="mu-error">{errors.message}</p>}
      </label>
      <Button color="danger" block loading={start.isPending} onClick={() => void submit()}>
        {drill ? '发起演练' : '发起清点'}
      </Button>
    </section>
  );
}

const countsOf = (m: MusterRow) => ({ total: m.total, accounted: m.accounted, open: m.total - m.accounted });

function Running({ board, canMark, canEnd, onReport }: { board: MusterCurrentAnswer & { muster: MusterRow }; canMark: boolean; canEnd: boolean; onReport: (id: number) => void }) {
  const client = useQueryClient();
  const m = board.muster;
  const c = countsOf(m);
  const end = useMutation({
    mutationFn: () => call(musterApi.end, { muster_id: m.id }),
    onSuccess: () => {
      showToast({ icon: 'success', content: '应急清点已结束' });
      void client.invalidateQueries({ queryKey: currentKey });
      onReport(m.id);
    },
    onError: (err) => showToast({ icon: 'fail', content: `结束失败：${err.message}`, duration: 4000 }),
  });
  const onEnd = async () => {
    const ok = await confirmDialog({
      title: '结束清点',
      content: c.open ? `还有 ${c.open} 人/辆未清点，结束后仍可在报告中查看。确定结束吗？` : '全部人员和车辆已清点。确定结束吗？',
      confirmText: '结束清点',
      danger: true,
    });
    if (ok) end.mutate();
  };
  return (
    <>
      <section className={`card mu-card mu-live${m.drill ? ' is-drill' : ''}`} aria-labelledby="mu-live-title" data-testid="muster-board">
        <div className="mu-live__head">
          <h2 id="mu-live-title" className="mu-title">
            {m.drill ? '应急演练进行中' : '应急清点进行中'}
          </h2>
          <span className="mu-tag">{enumLabel('visitArea', m.visit_area)}</span>
        </div>
        <p className="mu-message">{m.message}</p>
        <p className="mu-note">
          {m.started_by_name} 发起于 {m.started_at} · 短信通知 {board.sms_count} 人
        </p>
        <dl className="mu-figures">
          <div>
            <dt>在园</dt>
            <dd data-testid="muster-total">{c.total}</dd>
          </div>
          <div className="is-ok">
            <dt>已清点</dt>
            <dd data-testid="muster-accounted">{c.accounted}</dd>
          </div>
          <div className={c.open ? 'is-open' : ''}>
            <dt>未清点</dt>
            <dd data-testid="muster-open">{c.open}</dd>
          </div>
        </dl>
        {canEnd && (
          <div className="mu-actions">
            <Button size="small" onClick={() => void downloadFile({ method: 'get', path: musterApi.reportExport.path, params: { id: m.id }, fallbackName: '应急清点报告.xlsx' })}>
              导出报告
            </Button>
            <Button size="small" color="danger" loading={end.isPending} onClick={() => void onEnd()}>
              结束清点
            </Button>
          </div>
        )}
      </section>
      <Groups groups={board.groups} />
      {canMark && <Marking musterId={m.id} />}
    </>
  );
}

function Groups({ groups }: { groups: MusterGroup[] }) {
  return (
    <section className="card mu-card" aria-labelledby="mu-groups-title">
      <h2 id="mu-groups-title" className="mu-title">
        各企业清点情况
      </h2>
      {groups.length === 0 && <p className="mu-note">清点开始时范围内没有在园人员或车辆</p>}
      <ul className="mu-groups">
        {groups.map((g) => {
          const total = g.persons + g.vehicles;
          const done = g.persons_accounted + g.vehicles_accounted;
          return (
            <li key={g.enterprise} className={`mu-group${done < total ? ' is-open' : ''}`} data-enterprise={g.enterprise}>
              <div className="mu-group__name">{g.enterprise}</div>
              <div className="mu-group__counts">
                人员 {g.persons_accounted}/{g.persons} · 车辆 {g.vehicles_accounted}/{g.vehicles}
                {done < total && <b className="mu-group__open">未清点 {total - done}</b>}
              </div>
              <div className="mu-bar" role="progressbar" aria-label={`${g.enterprise}已清点`} aria-valuemin={0} aria-valuemax={total} aria-valuenow={done}>
                <span style={{ width: `${total ? Math.round((done / total) * 100) : 100}%` }} />
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

type Mode = 'list' | 'idcard' | 'plate' | 'pass';
const modes: Mode[] = ['list', 'idcard', 'plate', 'pass'];

/** The row a mark names, found in the kept list, so the marshal sees it marked even before the server answers. */
function rowOf(list: MusterSubject[], body: MusterMarkInput): MusterSubject | undefined {
  if (body.method === 'list') return list.find((s) => s.id === body.subject_id);
  if (body.method === 'plate') return list.find((s) => s.kind === 'car' && s.subject === String(body.license_plate).toUpperCase());
  if (body.method === 'idcard') return list.find((s) => s.kind === 'person' && s.subject === maskIdNumber(String(body.idcard).toUpperCase()));
  return undefined;
}

function Marking({ musterId }: { musterId: number }) {
  const client = useQueryClient();
  const online = useOnline();
  const [mode, setMode] = useState<Mode>('list');
  const [place, setPlace] = useState(() => localStorage.getItem(PLACE_KEY) ?? '');
  const [placeError, setPlaceError] = useState('');
  const [keyword, setKeyword] = useState('');
  const [onlyOpen, setOnlyOpen] = useState(true);
  const [idcard, setIdcard] = useState('');
  const [plate, setPlate] = useState('');
  const [scanning, setScanning] = useState(false);
  const subjects = useQuery({ queryKey: subjectsKey(musterId), queryFn: () => call(musterApi.subjects, { muster_id: musterId }), refetchInterval: RUNNING_POLL_MS });
  const list = useMemo(() => subjects.data?.subjects ?? [], [subjects.data]);

  const shown = useMemo(() => {
    const k = keyword.trim().toUpperCase();
    return list.filter(
      (s) => (!onlyOpen || !s.marked_at) && (!k || s.name.toUpperCase().includes(k) || s.subject.toUpperCase().includes(k) || s.enterprise.toUpperCase().includes(k) || s.phone.includes(k)),
    );
  }, [list, keyword, onlyOpen]);

  /** Marks the row in the kept list at once: offline, the marshal's own list is what they work from. */
  const markLocally = (body: MusterMarkInput) => {
    client.setQueryData<MusterSubjectsAnswer>(subjectsKey(musterId), (old) => {
      if (!old) return old;
      const row = rowOf(old.subjects, body);
      if (!row || row.marked_at) return old;
      return {
        ...old,
        subjects: old.subjects.map((s) =>
          s.id === row.id ? { ...s, marked_at: String(body.marked_at), mark_place: body.place, mark_method: body.method as MusterMarkMethod, marked_by_name: '我' } : s,
        ),
      };
    });
  };

  const mark = async (input: Omit<MusterMarkInput, 'muster_id' | 'place' | 'marked_at'>, title: string) => {
    const where = place.trim();
    if (!where) {
      setPlaceError('请输入集合点');
      return false;
    }
    if (where.length > MAX_MARK_PLACE) {
      setPlaceError(`集合点不能超过${MAX_MARK_PLACE}个字符`);
      return false;
    }
    setPlaceError('');
    localStorage.setItem(PLACE_KEY, where);
    const body = { ...input, muster_id: musterId, place: where, marked_at: parkNow() } as MusterMarkInput;
    let accepted = true;
    const { sendAction } = await import('../../lib/outbox/action');
    await sendAction(
      { kind: 'musterMark', url: musterApi.mark.path, body: body as Record<string, unknown>, title },
      {
        waitMs: SEND_WAIT_MS,
        okText: '已标记到达',
        waitingText: { offline: '当前无网络，标记已保存，联网后自动发送', slow: '网络不稳定，标记已保存，将自动重新发送' },
        onDone: () => void client.invalidateQueries({ queryKey: currentKey }),
        onQueued: () => undefined,
        onRefused: ({ message }) => {
          accepted = false;
          showToast({ icon: 'fail', content: `标记失败：${message}`, duration: 4000 });
        },
        direct: true,
      },
    ).catch((e: unknown) => {
      accepted = false;
      showToast({ icon: 'fail', content: `标记失败：${e instanceof Error ? e.message : String(e)}`, duration: 4000 });
    });
    if (accepted) markLocally(body);
    return accepted;
  };

  return (
    <section className="card mu-card" aria-labelledby="mu-mark-title" data-testid="muster-marking">
      <h2 id="mu-mark-title" className="mu-title">
        标记到达
      </h2>
      {!online && <p className="mu-offline">当前无网络：名单为最近一次同步的内容，标记将在联网后自动发送</p>}
      <label className="mu-field" htmlFor="mu-place">
        <span>集合点</span>
        <Input id="mu-place" value={place} onChange={setPlace} placeholder="例如：2号集合点" maxLength={MAX_MARK_PLACE} clearable />
        {placeError && <p className="mu-error">{placeError}</p>}
      </label>
      <div className="mu-modes" role="tablist" aria-label="标记方式">
        {modes.map((m) => (
          <button key={m} type="button" role="tab" aria-selected={mode === m} className={`mu-mode${mode === m ? ' is-on' : ''}`} onClick={() => setMode(m)}>
            {m === 'list' ? '名单' : musterMethodLabels[m]}
          </button>
        ))}
      </div>
      {mode === 'list' && (
        <div role="tabpanel" aria-label="名单">
          <div className="mu-search">
            <SearchBar value={keyword} onChange={setKeyword} placeholder="姓名、车牌、企业或手机号" aria-label="搜索名单" />
            <label className="mu-open-only">
              <Switch checked={onlyOpen} onChange={setOnlyOpen} aria-label="只看未清点" />
              只看未清点
            </label>
          </div>
          <ul className="mu-list" data-testid="muster-list">
            {shown.slice(0, 200).map((s) => (
              <li key={s.id} className={`mu-row${s.marked_at ? ' is-marked' : ''}`} data-subject-id={s.id}>
                <div className="mu-row__main">
                  <b>{s.kind === 'car' ? s.subject : s.name || s.subject}</b>
                  <span className="mu-row__kind">{s.kind === 'car' ? '车辆' : '人员'}</span>
                  <span className="mu-row__meta">
                    {s.enterprise} · {musterSourceLabels[s.source]}
                    {s.kind === 'person' && s.name ? ` · ${s.subject}` : ''}
                  </span>
                  {s.phone && (
                    <a className="mu-row__phone" href={`tel:${s.phone}`}>
                      {s.phone}
                    </a>
                  )}
                  {s.marked_at && (
                    <span className="mu-row__done">
                      {s.marked_at.slice(11)} {s.mark_place} 已到达
                    </span>
                  )}
                </div>
                {!s.marked_at && (
                  <Button size="small" color="primary" onClick={() => void mark({ method: 'list', subject_id: s.id }, `清点标记 ${s.kind === 'car' ? s.subject : s.name || s.subject}`)}>
                    标记到达
                  </Button>
                )}
              </li>
            ))}
          </ul>
          {shown.length > 200 && <p className="mu-note">仅显示前 200 条，请输入关键字缩小范围</p>}
          {shown.length === 0 && <p className="mu-note">{list.length ? '没有符合条件的人员或车辆' : '名单为空'}</p>}
        </div>
      )}
      {mode === 'idcard' && (
        <div role="tabpanel" aria-label="证件号码" className="mu-entry">
          <Input value={idcard} onChange={(v) => setIdcard(v.toUpperCase())} placeholder="输入证件号码" maxLength={30} aria-label="证件号码" clearable />
          <Button
            color="primary"
            onClick={() => {
              if (!isDocumentNumber(idcard.trim())) return void showToast({ icon: 'fail', content: '证件号码格式不正确' });
              void mark({ method: 'idcard', idcard: idcard.trim() }, `清点标记 ${maskIdNumber(idcard.trim())}`).then((ok) => ok && setIdcard(''));
            }}
          >
            标记到达
          </Button>
        </div>
      )}
      {mode === 'plate' && (
        <div role="tabpanel" aria-label="车牌" className="mu-entry">
          <PlateInput value={plate} onChange={setPlate} />
          <Button color="primary" disabled={!plate} onClick={() => void mark({ method: 'plate', license_plate: plate }, `清点标记 ${plate}`).then((ok) => ok && setPlate(''))}>
            标记到达
          </Button>
        </div>
      )}
      {mode === 'pass' && (
        <div role="tabpanel" aria-label="扫通行码" className="mu-entry mu-entry--scan">
          {scanning ? (
            <QrCamera
              id="muster-camera"
              active
              fallback="请改用证件号码或名单标记。"
              onText={(text) => {
                setScanning(false);
                void mark({ method: 'pass', pass: text }, '清点标记 扫通行码');
              }}
            />
          ) : (
            <Button color="primary" block onClick={() => setScanning(true)}>
              扫描访客通行码
            </Button>
          )}
        </div>
      )}
    </section>
  );
}

function History({ onReport }: { onReport: (id: number) => void }) {
  const page = useQuery({ queryKey: ['muster', 'page'], queryFn: () => call(musterApi.page, { pn: 1, size: 20 }) });
  const rows = page.data?.list ?? [];
  return (
    <section className="card mu-card" aria-labelledby="mu-history-title">
      <h2 id="mu-history-title" className="mu-title">
        清点记录
      </h2>
      {page.data && rows.length === 0 && <p className="mu-note">还没有应急清点记录</p>}
      <ul className="mu-history">
        {rows.map((r) => (
          <li key={r.id}>
            <button type="button" className="mu-history__row" onClick={() => onReport(r.id)}>
              <span className="mu-history__when">{r.started_at}</span>
              <span>
                {r.drill ? <span className="mu-tag is-drill">演练</span> : <span className="mu-tag">实战</span>} {enumLabel('visitArea', r.visit_area)}
              </span>
              <span className="mu-history__counts">
                已清点 {r.accounted}/{r.total}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
