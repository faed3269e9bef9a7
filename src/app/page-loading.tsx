import { DotLoading } from 'antd-mobile';
import { BootSplash, booting } from './boot-splash';

export function PageLoading() {
  if (booting()) return <BootSplash />;
  return (
    <div className="page-loading" aria-busy="true">
      <DotLoading color="primary" />
      <span>加载中</span>
    </div>
  );
}
