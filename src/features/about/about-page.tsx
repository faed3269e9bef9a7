import { useQuery } from '@tanstack/react-query';
import { Button, List, Skeleton } from 'antd-mobile';
import { formatInZone } from '../../../domain/time';
import { commonApi } from '../../../domain/schemas/common-api';
import { call } from '../../lib/http';
import './about.css';

const versionQuery = { queryKey: ['system', 'version'], queryFn: () => call(commonApi.version), staleTime: 60_000 };

/** Spec 002 version card: what runs on this device and on the server, and since when. */
export default function AboutPage() {
  const server = useQuery(versionQuery);
  const deployed = new Date(__DEPLOY_TIME__);
  return (
    <div className="page about">
      <section className="card about-head">
        <img src="/favicon.svg" alt="" width={64} height={64} />
        <div>
          <h2 className="about-name">园区出入管理系统</h2>
          <div className="about-version">版本 v{__APP_VERSION__}</div>
        </div>
      </section>

      <List header="客户端" className="card card-list about-list">
        <List.Item extra={`v${__APP_VERSION__}`}>版本</List.Item>
        <List.Item extra={Number.isNaN(deployed.getTime()) ? '—' : formatInZone(deployed)}>部署时间</List.Item>
        <List.Item extra={navigator.onLine ? '在线' : '离线'}>网络状态</List.Item>
      </List>

      <List header="服务端" className="card card-list about-list">
        {server.isPending ? (
          <div className="about-skeleton">
            <Skeleton.Paragraph lineCount={4} animated />
          </div>
        ) : server.error ? (
          <List.Item
            description={server.error.message}
            extra={
              <Button size="mini" onClick={() => void server.refetch()}>
                重试
              </Button>
            }
          >
            无法获取服务端信息
          </List.Item>
        ) : (
          <>
            <List.Item extra={`v${server.data.version}`}>服务端版本</List.Item>
            <List.Item extra={server.data.startedAt}>启动时间</List.Item>
            <List.Item extra={server.data.database}>数据库</List.Item>
            <List.Item extra={server.data.node}>运行环境</List.Item>
          </>
        )}
      </List>
      <p className="about-foot">时间均为园区时间（北京时间）</p>
    </div>
  );
}
