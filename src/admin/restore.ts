// Restores a backup made by backup.ts into an empty data directory (docs/deployment.md, "Backup and
// restore"). The restored directory is what a crash at the snapshot would have left: the service's
// start-up recovery finishes interrupted deletes and removes index rows of documents the control plane
// never committed. Leases held by the backed-up service's nodes are released here, so the restored
// service does not wait for them to expire: jobs it had in hand are claimed again at once.
import fs from 'node:fs';
import path from 'node:path';
import { openSqlite } from '../storage/sqlite-binding.ts';
import { copyTree } from './lance-snapshot.ts';
import { isEmptyDir, type BackupReport } from './backup.ts';

export interface RestoreReport {
  tables: number;
  documents: number;
  /** Jobs the backed-up service was running: they run again on the restored one. */
  jobs_requeued: number;
  elapsed_ms: number;
}

/**
 * Restore the backup in `fromDir` into `dataDir` (created; must be empty).
 * @throws Error when dataDir is not empty or fromDir holds no complete backup (no backup.json)
 */
export async function restoreDataDir(fromDir: string, dataDir: string): Promise<RestoreReport> {
  const t0 = Date.now();
  if (!isEmptyDir(dataDir)) throw new Error(`restore: the data directory ${dataDir} is not empty; restore only into a new or empty directory`);
  const reportFile = path.join(fromDir, 'backup.json');
  if (fs.existsSync(path.join(fromDir, 'control.dump'))) {
    throw new Error(`restore: ${fromDir} is a backup of PostgreSQL + object storage; restore it with DOCSEARCH_DATABASE_URL (and the blob and index locations) set`);
  }
  if (!fs.existsSync(reportFile) || !fs.existsSync(path.join(fromDir, 'control.sqlite'))) {
    throw new Error(`restore: ${fromDir} holds no complete backup (no backup.json: it is written last, when a backup has finished)`);
  }
  const backup = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as BackupReport;
  if (backup.format !== 1) throw new Error(`restore: unknown backup format ${String(backup.format)}`);
  fs.mkdirSync(dataDir, { recursive: true });
  const restoredControl = path.join(dataDir, 'control.sqlite');
  fs.copyFileSync(path.join(fromDir, 'control.sqlite'), restoredControl);
  for (const dir of ['lance', 'blobs']) await copyTree(path.join(fromDir, dir), path.join(dataDir, dir));
  if (fs.existsSync(path.join(fromDir, 'models'))) {
    await fs.promises.cp(path.join(fromDir, 'models'), path.join(dataDir, 'models'), { recursive: true, verbatimSymlinks: true });
  }

  const db = openSqlite(restoredControl, { fileMustExist: true });
  let jobs = 0;
  let documents = 0;
  try {
    db.transaction(() => {
      db.prepare(`update namespace_leases set holder = null, expires_at = 0, wanted_by = null, wanted_at = null`).run();
      jobs = db.prepare(`update jobs set lease_owner = null, lease_expires_at = '1970-01-01T00:00:00.000Z' where status = 'processing'`).run().changes;
    })();
    documents = (db.prepare(`select count(*) as n from documents`).get() as { n: number }).n;
  } finally {
    db.close();
  }
  return { tables: Object.keys(backup.tables).length, documents, jobs_requeued: jobs, elapsed_ms: Date.now() - t0 };
}
