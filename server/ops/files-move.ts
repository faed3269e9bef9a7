import path from 'node:path';
import type { Kysely } from 'kysely';
import type { FileStoreKind } from '../config';
import { databaseFileStore, localFileStore, type MovableFileStore } from '../core/storage';
import type { DB } from '../db/schema';

/**
 * Moves every uploaded file from one store to the other (FILE_STORE, core/storage.ts), for `npm run files:move`:
 * the served files (DATA_DIR/files ⇄ stored_file) and the zips of person imports (DATA_DIR/imports ⇄ stored_file,
 * named by person_import_task.file_path). Each file keeps its name, is streamed across, and leaves its source only
 * once the target holds it whole (its size matches); a file the target holds already is not copied again. So a
 * rerun after an interruption finishes the job, and an interruption at any point loses nothing.
 */

export interface MoveCounts {
  /** Copied to the target and removed from the source. */
  moved: number;
  /** The target held it whole already (an earlier, interrupted run): only removed from the source. */
  present: number;
  /** Left where they were: the copy failed or did not match (see failures). */
  failed: number;
  /** Bytes copied. */
  bytes: number;
}

export interface MoveResult {
  files: MoveCounts;
  zips: MoveCounts;
  /** One Chinese line per file left behind. */
  failures: string[];
}

export interface MoveOptions {
  dataDir: string;
  db: Kysely<DB>;
  to: FileStoreKind;
  /** Progress lines for the operator. */
  log?: (line: string) => void;
}

const counts = (): MoveCounts => ({ moved: 0, present: 0, failed: 0, bytes: 0 });

/** Why a copy failed, for the operator: the error's message, or what it is. */
const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Moves one file, the target's copy checked before the source's goes. */
async function moveOne(name: string, from: MovableFileStore, to: MovableFileStore, tally: MoveCounts, failures: string[]): Promise<void> {
  try {
    const size = await from.size(name);
    // Removed since it was listed (the housekeeping's unreferenced device images): nothing to move.
    if (size === null) return;
    if ((await to.size(name)) === size) {
      await from.remove(name);
      tally.present++;
      return;
    }
    const opened = await from.open(name);
    if (!opened) return;
    await to.putAs(name, opened.stream);
    const landed = await to.size(name);
    if (landed !== size) {
      await to.remove(name).catch(() => undefined);
      throw new Error(`目标中的大小为 ${landed ?? '（不存在）'} 字节，源文件为 ${size} 字节`);
    }
    await from.remove(name);
    tally.moved++;
    tally.bytes += size;
  } catch (err) {
    tally.failed++;
    failures.push(`${name}：${reason(err)}（源文件保留未动）`);
  }
}

/** Moves every file of the configured kind to the other store; answers the counts. Servers should be stopped meanwhile. */
export async function moveFileStore(opts: MoveOptions): Promise<MoveResult> {
  const log = opts.log ?? (() => undefined);
  const disk = localFileStore(path.join(opts.dataDir, 'files'));
  const diskZips = localFileStore(path.join(opts.dataDir, 'imports'), { flat: true });
  const database = databaseFileStore(opts.db);
  // A task's zip is kept beside the database on disk, never among the served files.
  const zipNames = new Set((await opts.db.selectFrom('person_import_task').select('file_path').execute()).map((r) => r.file_path));
  const result: MoveResult = { files: counts(), zips: counts(), failures: [] };
  let seen = 0;
  const progress = () => {
    if (++seen % 500 === 0) log(`已处理 ${seen} 个文件 …`);
  };

  if (opts.to === 'postgres') {
    log(`正在把 ${disk.where} 中的上传文件移入 ${database.where} …`);
    for await (const name of disk.names()) {
      await moveOne(name, disk, database, result.files, result.failures);
      progress();
    }
    log(`正在把 ${diskZips.where} 中人员批量导入的压缩包移入数据库 …`);
    // Only the zips a task names: anything else there is no task's and stays.
    for await (const name of diskZips.names()) {
      if (!zipNames.has(name)) continue;
      await moveOne(name, diskZips, database, result.zips, result.failures);
      progress();
    }
  } else {
    log(`正在把 ${database.where} 中的文件移到 ${disk.where}（人员批量导入的压缩包移到 ${diskZips.where}）…`);
    for await (const name of database.names()) {
      const zip = zipNames.has(name);
      await moveOne(name, database, zip ? diskZips : disk, zip ? result.zips : result.files, result.failures);
      progress();
    }
  }
  return result;
}

/** The result in Chinese, a line each for the files and the zips. */
export function describeMove(r: MoveResult): string[] {
  const line = (what: string, c: MoveCounts) => `${what}：移动 ${c.moved} 个（${(c.bytes / (1 << 20)).toFixed(1)} MiB），目标中已有而跳过复制 ${c.present} 个，失败 ${c.failed} 个`;
  return [line('上传文件', r.files), line('人员批量导入压缩包', r.zips)];
}
