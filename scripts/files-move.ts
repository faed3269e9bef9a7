/**
 * Moves the uploaded files of a park from one file store to the other
 * (server/ops/files-move.ts): from DATA_DIR/files (and the person imports'
 * zips in DATA_DIR/imports) into the PostgreSQL tables of FILE_STORE=postgres,
 * or back. Reads DATA_DIR and DATABASE_URL like the server (server/config.ts).
 * Stop the servers first, run it, set FILE_STORE to the new store, and start
 * them again. Each file leaves its source only once the target holds it whole;
 * a rerun after an interruption finishes the job.
 *
 *   npm run files:move -- --to postgres
 *   npm run files:move -- --to disk
 *
 * Exits 0 when every file was moved, 1 when some were left where they were
 * (run it again), 2 when refused (nothing changed).
 */
import { loadConfig, type Config, type FileStoreKind } from '../server/config';
import { openDatabase } from '../server/db/index';
import { databaseLevel } from '../server/db/migrate';
import { describeMove, moveFileStore } from '../server/ops/files-move';

const USAGE = '用法：npm run files:move -- --to postgres（磁盘 → 数据库）或 --to disk（数据库 → 磁盘）';
/** The migration that made the database store's tables. */
const FILE_STORE_LEVEL = '033-file-store';

function target(argv: string[]): FileStoreKind | string {
  const i = argv.indexOf('--to');
  const value = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--to='))?.slice('--to='.length);
  const rest = argv.filter((a, j) => !(i >= 0 && (j === i || j === i + 1)) && !a.startsWith('--to='));
  if (rest.length) return `不认识的参数：${rest.join(' ')}\n${USAGE}`;
  if (value === 'postgres' || value === 'disk') return value;
  return value ? `--to 只能是 postgres 或 disk，收到 '${value}'\n${USAGE}` : USAGE;
}

async function main(argv: string[]): Promise<number> {
  const to = target(argv);
  if (to !== 'postgres' && to !== 'disk') {
    console.error(to);
    return 2;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
  if (!config.databaseUrl) {
    console.error('files:move 需要 DATABASE_URL：数据库文件存储（FILE_STORE=postgres）只能放在 PostgreSQL 中，请设置 DATABASE_URL 后重试');
    return 2;
  }
  const database = openDatabase(config);
  try {
    const level = await databaseLevel(database);
    if ((level ?? '') < FILE_STORE_LEVEL) {
      console.error(`数据库的迁移级别为 ${level ?? '（空库）'}，还没有文件存储表（${FILE_STORE_LEVEL}）：请先用本版本的程序启动一次服务器，再运行 files:move`);
      return 2;
    }
    console.log(to === 'postgres' ? `把 ${config.dataDir} 中的上传文件移入 PostgreSQL 数据库 …` : `把 PostgreSQL 数据库中的上传文件移到 ${config.dataDir} …`);
    const started = performance.now();
    const result = await moveFileStore({ dataDir: config.dataDir, db: database.db, to, log: (line) => console.log(line) });
    for (const line of describeMove(result)) console.log(line);
    console.log(`用时 ${((performance.now() - started) / 1000).toFixed(1)} 秒`);
    if (result.failures.length) {
      console.error(`以下 ${result.failures.length} 个文件未能移动，仍在原处；请排除原因后重新运行本命令：`);
      for (const f of result.failures.slice(0, 50)) console.error(`  - ${f}`);
      if (result.failures.length > 50) console.error(`  …… 另有 ${result.failures.length - 50} 个`);
      return 1;
    }
    console.log(config.fileStore === to ? `完成。FILE_STORE 已是 ${to}，可以启动服务器` : `完成。请将 FILE_STORE 设为 ${to}（当前为 ${config.fileStore}）后再启动服务器`);
    return 0;
  } catch (err) {
    console.error(`移动失败：${(err as Error).message}。已移动的文件在目标中完好，其余仍在原处；排除原因后重新运行即可继续`);
    return 1;
  } finally {
    await database.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
