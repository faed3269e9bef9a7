import { Button, Input } from 'antd-mobile';
import { EyeInvisibleOutline, EyeOutline } from 'antd-mobile-icons';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router-dom';
import { LOGIN_LOADING_MAX_MS } from '../../../domain/auth-rules';
import { formatCountdown } from '../../../domain/time';
import { BootSplash } from '../../app/boot-splash';
import { session } from '../../lib/session';
import { preloadToast, toast } from '../../lib/toast';
import './login.css';

const PRODUCT_NAME = '园区出入管理系统';
/** Read by name in scripts/performance.ts. */
const LOGIN_SCREEN_MARK = 'login-screen';

/** Encryption (jose), the HTTP client and Toast load after first paint: the form shows sooner. */
const loadApi = () => import('./login-api');

const messageOf = (err: unknown) => (err instanceof Error && err.message ? err.message : '请稍后重试');

/** Only same-origin paths: a crafted ?redirect= must not send a fresh session elsewhere. */
function safeRedirect(value: string | null): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/login')) return '/';
  return value;
}

function useCooldown() {
  const [until, setUntil] = useState(0);
  const [now, setNow] = useState(() => Date.now());
  const left = Math.max(0, Math.ceil((until - now) / 1000));
  useEffect(() => {
    if (left <= 0) return;
    // Wake at the next whole-second boundary so the display never skips or repeats a second.
    const rem = (until - Date.now()) % 1000;
    const id = setTimeout(() => setNow(Date.now()), rem > 0 ? rem : 1000);
    return () => clearTimeout(id);
  }, [left, until, now]);
  const start = (seconds: number) => {
    const t = Date.now();
    setNow(t);
    setUntil(t + seconds * 1000);
  };
  return { left, start };
}

export default function LoginPage() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const target = safeRedirect(params.get('redirect'));
  const [account, setAccount] = useState('');
  const [password, setPassword] = useState('');
  const [captcha, setCaptcha] = useState('');
  const [showPassword, setShowPassword] = useState(false);
  const [sending, setSending] = useState(false);
  const [loading, setLoading] = useState(false);
  const [captchaError, setCaptchaError] = useState('');
  const cooldown = useCooldown();
  const loadingTimer = useRef<ReturnType<typeof setTimeout>>(undefined);

  useEffect(() => {
    document.title = `登录 - ${PRODUCT_NAME}`;
    // The screen is on the page: scripts/performance.ts counts a first visit's scripts requested before this mark
    // against the login budget; what loads below (and later) is warm-up for the first tap.
    performance.mark(LOGIN_SCREEN_MARK);
    // Encryption, the HTTP client and Toast (~56 KB gzip) are fetched when the person first touches the form,
    // not at once: evaluated straight after the first paint they kept a slow phone's main thread busy for
    // half a second. Typing an account takes longer than they take to load.
    const events = ['pointerdown', 'focusin', 'keydown'] as const;
    const warmUp = () => {
      for (const e of events) document.removeEventListener(e, warmUp, true);
      void loadApi().catch(() => undefined);
      void preloadToast().catch(() => undefined);
    };
    for (const e of events) document.addEventListener(e, warmUp, { capture: true, passive: true });
    return () => {
      for (const e of events) document.removeEventListener(e, warmUp, true);
      clearTimeout(loadingTimer.current);
    };
  }, []);

  // Signed in, the shell is on its way: the splash covers the wait, as on a signed-in start. This screen rendered nothing
  // here while the router's transition waited for the shell, and a slow phone showed an empty page for a second or two.
  if (session.token())
    return (
      <>
        <Navigate to={target} replace />
        <BootSplash />
      </>
    );

  const trimmed = account.trim();

  const sendCaptcha = async () => {
    if (!trimmed || cooldown.left > 0 || sending) return;
    setSending(true);
    try {
      const { requestCaptcha } = await loadApi();
      const { expireOfSeconds } = await requestCaptcha(trimmed);
      cooldown.start(expireOfSeconds);
      toast('验证码发送成功', 'success');
    } catch (err) {
      // A request inside the server's cooldown says how long is left: count that down instead of guessing.
      const wait = (err as { data?: { expireOfSeconds?: unknown } }).data?.expireOfSeconds;
      if (typeof wait === 'number' && wait > 0) cooldown.start(wait);
      toast(`验证码发送失败：${messageOf(err)}`, 'fail');
    } finally {
      setSending(false);
    }
  };

  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (!trimmed || !password || loading) return;
    if (!captcha.trim()) {
      setCaptchaError('请输入验证码');
      return;
    }
    setLoading(true);
    // Spec 002 §4: the button never spins longer than 10 s, even if the call hangs.
    clearTimeout(loadingTimer.current);
    loadingTimer.current = setTimeout(() => setLoading(false), LOGIN_LOADING_MAX_MS);
    try {
      const { signIn } = await loadApi();
      const { token } = await signIn(trimmed, password, captcha.trim());
      session.start(token);
      navigate(target, { replace: true });
    } catch (err) {
      toast(`登录失败：${messageOf(err)}`, 'fail');
    } finally {
      clearTimeout(loadingTimer.current);
      setLoading(false);
    }
  };

  return (
    <div className="login-page">
      <div className="login-backdrop" aria-hidden="true" />
      <main className="login-panel">
        <header className="login-brand">
          <img className="login-logo" src="/favicon.svg" alt="" width={56} height={56} />
          <p className="login-welcome">欢迎登录</p>
          <h1 className="login-title">{PRODUCT_NAME}</h1>
          <p className="login-tagline">人员与车辆预约 · 审批 · 通行管理</p>
        </header>
        <form className="login-card" onSubmit={(e) => void submit(e)} noValidate>
          <label className="login-field">
            <span className="login-label">用户名</span>
            <Input className="login-input" placeholder="请输入用户名" value={account} onChange={setAccount} clearable autoComplete="username" name="username" maxLength={50} />
          </label>
          <label className="login-field">
            <span className="login-label">密码</span>
            <div className="login-input-row">
              <Input
                className="login-input"
                placeholder="请输入密码"
                type={showPassword ? 'text' : 'password'}
                value={password}
                onChange={setPassword}
                autoComplete="current-password"
                name="password"
                maxLength={64}
              />
              <button type="button" className="login-eye" onClick={() => setShowPassword((s) => !s)} aria-label={showPassword ? '隐藏密码' : '显示密码'}>
                {showPassword ? <EyeOutline /> : <EyeInvisibleOutline />}
              </button>
            </div>
          </label>
          <div className="login-field">
            <label className="login-label" htmlFor="login-captcha">
              验证码
            </label>
            <div className="login-captcha-row">
              <Input
                id="login-captcha"
                className="login-input"
                placeholder="请输入短信验证码"
                value={captcha}
                onChange={(v) => {
                  setCaptcha(v.replace(/\D/g, ''));
                  setCaptchaError('');
                }}
                autoComplete="one-time-code"
                inputMode="numeric"
                name="captcha"
                maxLength={6}
              />
              <Button className="login-captcha-button" color="primary" fill="outline" size="small" disabled={!trimmed || cooldown.left > 0} loading={sending} onClick={() => void sendCaptcha()}>
                {cooldown.left > 0 ? `重新获取 ${formatCountdown(cooldown.left)}` : '获取验证码'}
              </Button>
            </div>
            {captchaError && <div className="login-error">{captchaError}</div>}
          </div>
          <Button className="login-submit" type="submit" color="primary" block size="large" loading={loading} disabled={!trimmed || !password}>
            登录
          </Button>
          <p className="login-hint">验证码将发送至账号绑定的手机</p>
        </form>
        <footer className="login-footer">
          {PRODUCT_NAME} · v{__APP_VERSION__}
        </footer>
      </main>
    </div>
  );
}
