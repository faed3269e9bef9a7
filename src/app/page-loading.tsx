import { DotLoading } from 'antd-mobile';

export function PageLoading() {
  return (
    <div className="page-loading" aria-busy="true">
      <DotLoading color="primary" />
      <span>加载中</span>
    </div>
  );
}
