/**
 * Takes one backup of the configured database and file store, as the nightly
 * job does (server/ops/backup.ts), into BACKUP_DIR (default DATA_DIR/backups),
 * while servers keep running on the same data. Reads DATA_DIR, DATABASE_URL,
 * FILE_STORE, PARK_TZ and BACKUP_DIR like the server (server/config.ts).
 *
 *   npm run backup
 *
 * Prints the archive's path, size, how long it took and whether it was read
 * back and matched its manifest; exits non-zero when the backup failed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../server/config';
import { openDatabase } from '../server/db/index';
import { BackupBusyError, BackupFailedError, humanSize, takeBackup } from '../server/ops/backup';

async function main(): Promise<number> {
  const config = loadConfig();
  // Opening a missing park.db would create an empty one: there is nothing to back up.
  if (!config.databaseUrl && !fs.existsSync(path.join(config.dataDir, 'park.db'))) {
    console.error(`数据库文件不存在：${path.join(config.dataDir, 'park.db')}。请检查 DATA_DIR，或设置 DATABASE_URL 备份 PostgreSQL 数据库`);
    return 1;
  }
  const database = openDatabase(config);
  try {
    const files = config.fileStore === 'postgres' ? '（上传文件在数据库中，FILE_STORE=postgres）' : `与 ${path.join(config.dataDir, 'files')}`;
    console.log(`正在备份${config.databaseUrl ? ' PostgreSQL 数据库' : ` ${path.join(config.dataDir, 'park.db')}`}${files} 到 ${config.backup.dir} …`);
    const done = await takeBackup({ config, database, reason: 'cli' });
    console.log(`备份完成：${done.file}`);
    console.log(`  大小：${humanSize(done.size)}（${done.size} 字节）`);
    console.log(`  耗时：${(done.durationMs / 1000).toFixed(1)} 秒`);
    console.log(`  数据库：${done.manifest.dialect}，迁移级别 ${done.manifest.migrationLevel ?? '（空）'}，${Object.keys(done.manifest.tables).length} 张表`);
    if (done.manifest.fileStore === 'postgres') console.log(`  上传文件：在数据库部分中（stored_file 表 ${done.manifest.tables.stored_file ?? 0} 行）`);
    else console.log(`  上传文件：${done.manifest.files.count} 个，${humanSize(done.manifest.files.bytes)}`);
    console.log(`  校验：${done.verified ? '通过（已读回备份，所有 SHA-256 与清单一致）' : '未校验'}`);
    if (!done.run) console.warn('  注意：数据库尚未升级到含备份记录表的版本，本次备份未写入备份记录（启动一次新版服务器后即可）');
    return 0;
  } catch (err) {
    if (err instanceof BackupBusyError || err instanceof BackupFailedError) console.error(err.message);
    else console.error(`备份失败：${(err as Error).message}`);
    return 1;
  } finally {
    await database.close();
  }
}

process.exitCode = await main();
