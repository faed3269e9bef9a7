import { Button, Tag } from 'antd-mobile';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { appointmentKinds, kindCalls } from '../../../../domain/appointment-kinds';
import type { AppointmentKind } from '../../../../domain/appointments';
import { validityAt, type IssuedPass } from '../../../../domain/pass';
import { ApiError, call } from '../../../lib/http';
import { useMe } from '../../../lib/me';
import { dropSavedPass, savePass, savedPass } from '../../../lib/pass-key';
import { parkNow, visitRange } from './visit-time';
import './pass-card.css';

/** Renders the pass text as a PNG data URL; qrcode is loaded only when a pass is shown. */
async function qrDataUrl(text: string): Promise<string> {
  const mod = await import('qrcode');
  const QR = (mod as unknown as { default?: typeof mod }).default ?? mod;
  // Level M survives a scratched or glaring phone screen; 4 modules of quiet zone is what scanners expect.
  return QR.toDataURL(text, { errorCorrectionLevel: 'M', margin: 4, width: 480, color: { dark: '#000000', light: '#ffffff' } });
}

type ShownPass = IssuedPass & { offline: boolean };

/** The pass from the server; with no network, the copy kept on this device while it is still valid. */
async function fetchPass(userId: number, kind: AppointmentKind, id: number): Promise<ShownPass> {
  try {
    const pass = await call(kindCalls[kind].pass, { id });
    savePass(userId, kind, id, pass);
    return { ...pass, offline: false };
  } catch (e) {
    if (e instanceof ApiError && e.status === 0) {
      const saved = savedPass(userId, kind, id);
      if (saved && saved.payload.end >= parkNow()) return { ...saved, offline: true };
    } else if (e instanceof ApiError) {
      // Refused (revoked, expired, no longer readable): the kept copy must not outlive it.
      dropSavedPass(userId, kind, id);
    }
    throw e;
  }
}

const validityTag = { valid: ['有效期内', 'success'], 'not-yet': ['未到有效期', 'primary'], expired: ['已过期', 'warning'] } as const;

/**
 * The signed pass of an approved application (domain/pass.ts): a QR the
 * visitor shows at the gate, verified by the patrol's phone even offline.
 * Only the applicant and history readers get one; for anybody else the
 * server answers 404 and the card stays away.
 */
export function PassCard({ kind, id }: { kind: AppointmentKind; id: number }) {
  const userId = useMe().data?.user.user_id;
  const query = useQuery({
    queryKey: ['pass', kind, id, userId],
    queryFn: () => fetchPass(userId!, kind, id),
    enabled: userId !== undefined,
    // Fails fast offline (then the kept copy shows) instead of pausing until the network returns.
    networkMode: 'always',
    retry: false,
    staleTime: 10 * 60_000,
  });
  const [image, setImage] = useState<string>();
  const pass = query.data?.pass;
  useEffect(() => {
    let live = true;
    setImage(undefined);
    if (pass) void qrDataUrl(pass).then((url) => live && setImage(url));
    return () => {
      live = false;
    };
  }, [pass]);

  // Judged now, not when it was issued: a kept copy or a card left open past midnight stays truthful.
  const validity = query.data ? validityAt(query.data.payload.begin, query.data.payload.end, parkNow()) : undefined;
  const error = query.error;
  if (error instanceof ApiError && (error.status === 404 || error.status === 403)) return null;

  return (
    <section className="ad-section pc" aria-label="通行码">
      <h4 className="ad-title">
        <span>通行码</span>
        {validity && (
          <Tag color={validityTag[validity][1]} fill="outline" className="ad-tag">
            {validityTag[validity][0]}
          </Tag>
        )}
      </h4>
      {query.isPending && <div className="pc-note">正在生成通行码…</div>}
      {error && (
        <div className="pc-note" role="alert">
          {error instanceof ApiError && error.status === 0 ? '通行码需要联网获取，请连接网络后重试' : error.message}
          {!(error instanceof ApiError && error.status === 409) && (
            <Button size="mini" fill="none" color="primary" onClick={() => void query.refetch()}>
              重试
            </Button>
          )}
        </div>
      )}
      {query.data && (
        <div className="pc-body">
          <div className="pc-qr">{image ? <img src={image} alt={`通行码 ${query.data.payload.number}`} /> : <span className="pc-qr__wait" aria-hidden />}</div>
          <div className="pc-info">
            {query.data.offline && <div className="pc-offline">当前无网络，显示的是本机保存的通行码</div>}
            <dl className="pc-lines">
              <div>
                <dt>{appointmentKinds[kind].labels.application_number}</dt>
                <dd>{query.data.payload.number}</dd>
              </div>
              {query.data.payload.plate !== undefined ? (
                <div>
                  <dt>车牌号</dt>
                  <dd className="pc-strong">{query.data.payload.plate}</dd>
                </div>
              ) : (
                <>
                  <div>
                    <dt>访客</dt>
                    <dd className="pc-strong">{query.data.payload.name}</dd>
                  </div>
                  <div>
                    <dt>证件号码</dt>
                    <dd>{query.data.payload.idMasked}</dd>
                  </div>
                </>
              )}
              <div>
                <dt>有效期</dt>
                <dd>{visitRange(query.data.payload.begin, query.data.payload.end)}</dd>
              </div>
              <div>
                <dt>签发时间</dt>
                <dd>{query.data.payload.issuedAt}</dd>
              </div>
            </dl>
            <p className="pc-help">入园时向门岗或巡逻人员出示此码；通行码带园区数字签名，无网络时也可核验，改动任何内容即失效。</p>
            {image && (
              <a className="pc-save" href={image} download={`通行码-${query.data.payload.number}.png`}>
                保存二维码图片
              </a>
            )}
          </div>
        </div>
      )}
    </section>
  );
}
