// Restores a backup made by pg-backup.ts into an empty PostgreSQL database and empty blob and index
// locations (docs/deployment.md, "Backup and restore"): pg_restore of the dump, the leases of the
// backed-up nodes released (their jobs are claimed again at once), the objects put in place, and each
// table moved back to the backup's tag (a new version with the tagged content), the tag then removed.
// Like the embedded restore, the result is what a crash at the snapshot would have left.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import * as lancedb from '@lancedb/lancedb';
import pg from 'pg';
import type { StorageConfig } from '../internal/storage-config.ts';
import { readTableAt } from './lance-snapshot.ts';
import { copyPrefix, localPrefix } from './object-prefix.ts';
import type { PgBackupReport } from './pg-backup.ts';
import { blobPrefix, connectIndex, findPgTool, indexPrefix, pgConnection } from './service-stores.ts';

const run = promisify(execFile);

export interface PgRestoreReport {
  tables: number;
  documents: number;
  /** Jobs the backed-up service was running: they run again on the restored one. */
  jobs_requeued: number;
  elapsed_ms: { control_plane: number; index: number; blobs: number; total: number };
}

/**
 * Open table `name` of the local index `dir` at `tag`, check it is `version`, and read one column of
 * every row and each index's statistics.
 * @returns the row count
 * @throws Error when the tag, its version or one of its files is missing
 */
export async function verifyTag(dir: string, name: string, tag: string, version: number): Promise<number> {
  const db = await lancedb.connect(dir);
  const t = await db.openTable(name);
  try {
    await t.checkout(tag);
    return await readTableAt(t, version, `table ${name}: tag ${tag} is version`);
  } finally {
    t.close();
    db.close();
  }
}

/** Tables (other than PostgreSQL's own) in the database at `url`. */
async function userTables(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: string }>(`select count(*) as n from pg_tables where schemaname not in ('pg_catalog', 'information_schema')`);
  return Number(rows[0].n);
}

/**
 * Restore the backup in `fromDir` into the empty database at `databaseUrl` and the empty locations of `storage`.
 * @throws Error, before anything is written, when the database has tables, a location holds objects, or
 *   fromDir holds no complete PostgreSQL backup; later when pg_restore fails or a table has no tag
 */
export async function restorePostgres(fromDir: string, databaseUrl: string, storage: StorageConfig, env: NodeJS.ProcessEnv = process.env): Promise<PgRestoreReport> {
  const t0 = Date.now();
  const reportFile = path.join(fromDir, 'backup.json');
  if (!fs.existsSync(reportFile)) throw new Error(`restore: ${fromDir} holds no complete backup (no backup.json: it is written last, when a backup has finished)`);
  const backup = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as PgBackupReport;
  if (backup.format !== 1 || backup.kind !== 'postgres') {
    throw new Error(`restore: ${fromDir} is not a backup of a PostgreSQL deployment (restore it without DOCSEARCH_DATABASE_URL, into --data-dir)`);
  }
  const pgRestore = findPgTool('pg_restore', env);
  const index = indexPrefix(storage);
  const blobs = blobPrefix(storage);
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    const tables = await userTables(client);
    if (tables > 0) throw new Error(`restore: the database (DOCSEARCH_DATABASE_URL) is not empty (${tables} tables); restore only into a new, empty database`);
    for (const [what, loc] of [['DOCSEARCH_BLOB_URI', blobs], ['DOCSEARCH_INDEX_URI', index]] as const) {
      if (!(await loc.isEmpty())) throw new Error(`restore: the ${what} location ${loc.where} is not empty; restore only into a new, empty bucket prefix or directory`);
    }

    try {
      const conn = pgConnection(databaseUrl, env);
      await run(pgRestore, ['--exit-on-error', '--no-owner', '--no-acl', conn.dbArg, path.join(fromDir, backup.control_plane.file)], { env: conn.env });
    } catch (err) {
      throw new Error(`restore: pg_restore failed: ${(err as { stderr?: string }).stderr?.trim() || (err as Error).message}`, { cause: err });
    }
    await client.query('begin');
    await client.query(`update namespace_leases set holder = null, expires_at = 0, wanted_by = null, wanted_at = null`);
    const jobs = (await client.query(`update jobs set lease_owner = null, lease_expires_at = '1970-01-01T00:00:00.000Z' where status = 'processing'`)).rowCount ?? 0;
    await client.query('commit');
    const documents = Number((await client.query<{ n: string }>(`select count(*) as n from documents`)).rows[0].n);
    const t1 = Date.now();

    await copyPrefix(localPrefix(path.join(fromDir, 'index')), index);
    const db = await connectIndex(storage);
    try {
      for (const name of Object.keys(backup.tables)) {
        const t = await db.openTable(name);
        try {
          await t.checkout(backup.tag);
          await t.restore();
          await (await t.tags()).delete(backup.tag);
        } finally {
          t.close();
        }
      }
    } finally {
      db.close();
    }
    const t2 = Date.now();
    await copyPrefix(localPrefix(path.join(fromDir, 'blobs')), blobs);
    const t3 = Date.now();
    return {
      tables: Object.keys(backup.tables).length,
      documents,
      jobs_requeued: jobs,
      elapsed_ms: { control_plane: t1 - t0, index: t2 - t1, blobs: t3 - t2, total: t3 - t0 },
    };
  } finally {
    await client.end().catch(() => undefined);
    index.close();
    blobs.close();
  }
}
