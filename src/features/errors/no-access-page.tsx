import { Button } from 'antd-mobile';
import { useNavigate } from 'react-router-dom';
import { StatusView } from './status-view';
import { RETURN_HOME_SECONDS, useCountdown } from './use-countdown';

/** A built screen that the person's menu does not grant; shown inside the layout, like the 403 page. */
export default function NoAccessPage() {
  const navigate = useNavigate();
  const goHome = () => navigate('/', { replace: true });
  const left = useCountdown(RETURN_HOME_SECONDS, true, goHome);
  return (
    <StatusView inline code="403" title="没有访问权限" lines={['当前账号没有访问该页面的权限，如需使用请联系管理员。']}>
      <Button color="primary" onClick={goHome}>
        返回首页
      </Button>
      <p className="status-hint">{left} 秒后自动返回首页</p>
    </StatusView>
  );
}
