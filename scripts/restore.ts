/**
 * Restores a backup archive (npm run backup, the nightly job) into an empty
 * DATA_DIR (SQLite: park.db and files/) or an empty PostgreSQL database
 * (DATABASE_URL) and DATA_DIR/files, after checking every SHA-256 and that
 * this build can run the archive's migration level (server/ops/restore.ts).
 * Reads DATA_DIR, DATABASE_URL and FILE_STORE like the server (server/config.ts);
 * an archive of a FILE_STORE=postgres server restores its files with the
 * database and needs FILE_STORE=postgres here too. Stop the servers on the
 * target first.
 *
 *   npm run restore -- <archive> [--force]
 *
 * --force replaces a target that holds data: SQLite's park.db with its -wal
 * and -shm, PostgreSQL's public schema (dropped and made again), and files/.
 * Exits 0 when restored, 2 when refused (nothing changed), 1 on a failure.
 */
import { loadConfig } from '../server/config';
import { restoreBackup, RestoreRefusedError } from '../server/ops/restore';

const USAGE = '用法：npm run restore -- <备份文件.tar> [--force]';

async function main(argv: string[]): Promise<number> {
  const force = argv.includes('--force');
  const unknown = argv.filter((a) => a.startsWith('-') && a !== '--force');
  const files = argv.filter((a) => !a.startsWith('-'));
  if (unknown.length || files.length !== 1) {
    console.error(unknown.length ? `不认识的参数：${unknown.join(' ')}\n${USAGE}` : USAGE);
    return 2;
  }
  const config = loadConfig();
  const target = config.databaseUrl
    ? `PostgreSQL 数据库（DATABASE_URL）${config.fileStore === 'postgres' ? '（上传文件在数据库中，FILE_STORE=postgres）' : `与 ${config.dataDir}/files`}`
    : config.dataDir;
  console.log(`恢复 ${files[0]} 到 ${target}${force ? '（--force：覆盖现有数据）' : ''}`);
  try {
    const done = await restoreBackup({ archive: files[0]!, dataDir: config.dataDir, databaseUrl: config.databaseUrl, fileStore: config.fileStore, force, log: (line) => console.log(line) });
    const m = done.manifest;
    console.log(`恢复完成，用时 ${(done.durationMs / 1000).toFixed(1)} 秒`);
    console.log(`  备份时间：${m.createdAt}（${m.tz}），程序版本 ${m.version}，迁移级别 ${m.migrationLevel ?? '（空）'}`);
    console.log(`  数据表：${Object.keys(m.tables).length} 张，共 ${Object.values(m.tables).reduce((a, b) => a + b, 0)} 行；上传文件：${done.files} 个`);
    if (done.replaced.length) console.log(`  已覆盖：${done.replaced.join('；')}`);
    console.log('启动服务器即可使用恢复的数据（如迁移级别低于本程序，启动时会自动升级）');
    return 0;
  } catch (err) {
    if (err instanceof RestoreRefusedError) {
      console.error(`拒绝恢复：${err.message}`);
      return 2;
    }
    console.error(`恢复失败：${(err as Error).message}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
