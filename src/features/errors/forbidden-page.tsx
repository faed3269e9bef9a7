import { Button } from 'antd-mobile';
import { useNavigate } from 'react-router-dom';
import { StatusView } from './status-view';
import { RETURN_HOME_SECONDS, useCountdown } from './use-countdown';

/**
 * Spec 002 §2 403 page. For a person without any role the home page is this
 * page again, so the shell passes `noRole`: no countdown, a logout instead.
 */
export default function ForbiddenPage({ noRole, onLogout }: { noRole?: boolean; onLogout?: () => void }) {
  const navigate = useNavigate();
  const goHome = () => navigate('/', { replace: true });
  const left = useCountdown(RETURN_HOME_SECONDS, !noRole, goHome);
  return (
    <StatusView code="403" title="抱歉！您没有操作角色……" lines={['当前账号没有操作角色，请联系管理员。']}>
      {noRole ? (
        <Button color="primary" onClick={onLogout}>
          退出登录
        </Button>
      ) : (
        <>
          <Button color="primary" onClick={goHome}>
            返回首页
          </Button>
          <p className="status-hint">{left} 秒后自动返回首页</p>
        </>
      )}
    </StatusView>
  );
}
