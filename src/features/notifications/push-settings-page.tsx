import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, DotLoading, Input } from 'antd-mobile';
import { CheckCircleFill, CloseCircleFill, ExclamationCircleFill, InformationCircleOutline } from 'antd-mobile-icons';
import { useState, type ReactNode } from 'react';
import { useMe } from '../../lib/me';
import { devicesKey, devicesQuery, unsubscribeDevice } from './push-api';
import { currentSubscription, defaultDeviceLabel, DENIED_MESSAGE, disablePush, enablePush, notificationPermission, pushUnsupportedReason, storedLabel } from './push-device';
import './notifications.css';
import { confirmDialog, showToast } from '../../lib/feedback';

const thisDeviceKey = ['push', 'this-device'] as const;

/** 推送设置: this device's opt-in (开启/关闭本机推送) and every device that receives the person's pushes. */
export default function PushSettingsPage() {
  const client = useQueryClient();
  const { data: me } = useMe();
  const unsupported = pushUnsupportedReason();
  const [label, setLabel] = useState(() => storedLabel() ?? defaultDeviceLabel());
  const [problem, setProblem] = useState<string | null>(null);
  const devices = useQuery(devicesQuery);
  const browserSub = useQuery({ queryKey: thisDeviceKey, queryFn: async () => (await currentSubscription())?.endpoint ?? null, enabled: !unsupported, staleTime: 0 });
  const endpoint = browserSub.data ?? null;
  const list = devices.data?.list ?? [];
  // On only when the server pushes to this browser for this person; a browser channel left from someone else's opt-in is off.
  const on = !!endpoint && list.some((d) => d.endpoint === endpoint);
  const permission = notificationPermission();
  const message = problem ?? (permission === 'denied' ? DENIED_MESSAGE : null);

  const refresh = () => {
    void client.invalidateQueries({ queryKey: devicesKey });
    void client.invalidateQueries({ queryKey: thisDeviceKey });
  };

  const toggle = useMutation({
    mutationFn: async (enable: boolean) => {
      if (enable) await enablePush(me!.user.user_id, label.trim() || defaultDeviceLabel());
      else await disablePush();
      return enable;
    },
    onMutate: () => setProblem(null),
    onSuccess: (enabled) => showToast({ icon: 'success', content: enabled ? '已开启本机推送' : '已关闭本机推送' }),
    onError: (err) => setProblem(err.message),
    onSettled: refresh,
  });

  const remove = useMutation({
    mutationFn: (id: number) => unsubscribeDevice({ push_subscription_id: id }),
    onSuccess: () => showToast({ icon: 'success', content: '已移除该设备' }),
    onError: (err) => showToast({ icon: 'fail', content: `移除失败：${err.message}` }),
    onSettled: refresh,
  });

  const askRemove = async (id: number, name: string) => {
    if (await confirmDialog({ content: `移除“${name}”后，该设备将不再收到推送。确定移除吗？` })) remove.mutate(id);
  };

  let status: { icon: ReactNode; text: string; tone: string };
  if (unsupported) status = { icon: <ExclamationCircleFill />, text: '本机不支持推送', tone: 'warn' };
  else if (permission === 'denied') status = { icon: <CloseCircleFill />, text: '浏览器已禁止通知', tone: 'error' };
  else if (browserSub.isPending || devices.isPending) status = { icon: <DotLoading />, text: '正在检查', tone: 'muted' };
  else if (on) status = { icon: <CheckCircleFill />, text: '本机推送已开启', tone: 'ok' };
  else status = { icon: <InformationCircleOutline />, text: '本机推送未开启', tone: 'muted' };

  return (
    <div className="page npush">
      <section className="card npush-card" aria-label="本机推送">
        <h3 className="npush-title">本机推送</h3>
        <div className={`npush-status is-${status.tone}`} data-testid="push-status">
          {status.icon}
          <span>{status.text}</span>
        </div>
        <p className="npush-hint">开启后，即使没有打开本应用，也会在这台设备上收到新的审批任务、审批结果和滞留告警；点按通知直接打开对应页面。应用打开时，消息中心会实时更新。</p>
        {unsupported ? (
          <p className="npush-problem" role="alert">
            {unsupported}
          </p>
        ) : (
          <>
            {!on && (
              <label className="npush-label">
                <span>设备名称</span>
                <Input value={label} onChange={setLabel} maxLength={60} placeholder="例如：我的手机" clearable aria-label="设备名称" />
              </label>
            )}
            {message && (
              <p className="npush-problem" role="alert" data-testid="push-problem">
                {message}
              </p>
            )}
            <Button
              block={false}
              className="npush-button"
              color={on ? 'default' : 'primary'}
              loading={toggle.isPending}
              disabled={browserSub.isPending || devices.isPending}
              onClick={() => toggle.mutate(!on)}
            >
              {on ? '关闭本机推送' : '开启本机推送'}
            </Button>
          </>
        )}
      </section>

      <section className="card npush-card" aria-label="接收推送的设备">
        <h3 className="npush-title">接收推送的设备</h3>
        {devices.isPending ? (
          <div className="ncenter-state">
            <DotLoading color="primary" /> 加载中
          </div>
        ) : list.length === 0 ? (
          <p className="npush-hint">还没有设备开启推送。</p>
        ) : (
          <ul className="npush-devices">
            {list.map((d) => {
              const mine = d.endpoint === endpoint;
              return (
                <li key={d.push_subscription_id} className="npush-device">
                  <div className="npush-device-main">
                    <div className="npush-device-name">
                      {d.device_label}
                      {mine && <span className="npush-tag">本机</span>}
                    </div>
                    <div className="npush-device-meta">
                      开启于 {d.update_time}
                      {d.last_push_time ? ` · 最近推送 ${d.last_push_time}` : ''}
                    </div>
                    {d.last_push_error && <div className="npush-device-error">最近一次推送失败：{d.last_push_error}</div>}
                  </div>
                  {!mine && (
                    <Button
                      size="mini"
                      fill="outline"
                      color="danger"
                      loading={remove.isPending && remove.variables === d.push_subscription_id}
                      onClick={() => void askRemove(d.push_subscription_id, d.device_label)}
                    >
                      移除
                    </Button>
                  )}
                </li>
              );
            })}
          </ul>
        )}
      </section>
    </div>
  );
}
