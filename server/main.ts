import { loadConfig } from './config';
import { buildApp } from './app';
import { startOvertimeJob } from './jobs/overtime';
import { startCleanupJob } from './jobs/cleanup';
import { startDeviceOnlineJob } from './jobs/device-online';
import { startStrandedJob } from './jobs/stranded';

const config = loadConfig();
const app = await buildApp(config);

let closing = false;
let stopOvertimeJob = () => {};
let stopCleanupJob = () => {};
let stopDeviceOnlineJob = () => {};
let stopStrandedJob = () => {};
async function shutdown(signal: string) {
  if (closing) return;
  closing = true;
  app.log.info(`${signal} received, finishing requests in flight`);
  const force = setTimeout(() => process.exit(1), 10_000);
  force.unref();
  stopOvertimeJob();
  stopCleanupJob();
  stopDeviceOnlineJob();
  stopStrandedJob();
  await app.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

await app.listen({ port: config.port, host: config.host });
stopOvertimeJob = startOvertimeJob(app);
stopCleanupJob = startCleanupJob(app);
stopDeviceOnlineJob = startDeviceOnlineJob(app);
stopStrandedJob = startStrandedJob(app);
app.log.info(`园区出入管理系统 listening on http://localhost:${config.port} (${app.ctx.dialect})`);
