import { Button } from 'antd-mobile';
import { Link, useNavigate } from 'react-router-dom';
import { StatusView } from './status-view';
import { RETURN_HOME_SECONDS, useCountdown } from './use-countdown';

/** Spec 002 §2 404 page: exact texts, 5-second countdown home, and a link to /index. */
export default function NotFoundPage() {
  const navigate = useNavigate();
  const goHome = () => navigate('/', { replace: true });
  const left = useCountdown(RETURN_HOME_SECONDS, true, goHome);
  return (
    <StatusView code="404" title="抱歉！" lines={['当前页面不存在……', '请检查您输入的网址是否正确，或点击下面的按钮返回首页。']}>
      <Button color="primary" onClick={goHome}>
        返回首页
      </Button>
      <p className="status-hint">
        {left} 秒后自动返回首页 · <Link to="/index">/index</Link>
      </p>
    </StatusView>
  );
}
