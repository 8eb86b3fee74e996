// Consistent backup of a running PostgreSQL + object storage deployment into a local directory
// (docs/deployment.md, "Backup and restore"): the control plane with pg_dump from a snapshot exported by
// this process (so its instant is known to within one query), each index table at the last version
// committed before it, protected by a Lance tag while it is copied, then the blobs. The tags are removed
// when the copy ends: while one exists the service's index cleanup fails. Why: docs/decisions/2026-11-29-backup.md.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type * as lancedb from '@lancedb/lancedb';
import pg from 'pg';
import type { StorageConfig } from '../internal/storage-config.ts';
import { isEmptyDir } from './backup.ts';
import { copyPrefix, localPrefix, type ObjectPrefix } from './object-prefix.ts';
import { blobPrefix, connectIndex, findPgTool, indexPrefix, listIndexTables, manifestVersion, pgConnection } from './service-stores.ts';
import { verifyTag } from './pg-restore.ts';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface PgBackupReport {
  format: 1;
  kind: 'postgres';
  created_at: string;
  /** The control-plane snapshot was taken between these two instants (ms since the epoch). */
  snapshot_window_ms: [number, number];
  attempts: number;
  /** Tag naming each table's version in the backup's copy (removed from the live tables after the copy). */
  tag: string;
  tables: Record<string, { version: number; committed_at: string; rows: number; files: number; bytes: number }>;
  documents: number;
  control_plane: { file: string; bytes: number };
  blobs: { files: number; bytes: number; missing_document_blobs: string[] };
  elapsed_ms: { control_plane: number; index: number; blobs: number; total: number };
}

/**
 * How far commit times of index writers may be from this machine's clock, ms. A commit this close to
 * the snapshot cannot be placed before or after it, so the snapshot is taken again.
 */
export const DEFAULT_CLOCK_MARGIN_MS = 50;
/** Snapshot attempts before giving up. */
const MAX_ATTEMPTS = 20;

interface Chosen {
  client: pg.Client;
  snapshotId: string;
  window: [number, number];
  attempts: number;
  versions: Map<string, { version: number; at: number }>;
  /** The tag put on each chosen version (`backup-<a>`). */
  tag: string;
}

/** Delete `tag` from the tables `names` (best effort: a table dropped meanwhile has none). */
export async function deleteTags(db: lancedb.Connection, names: Iterable<string>, tag: string): Promise<void> {
  for (const name of names) {
    const t = await db.openTable(name).catch(() => undefined);
    await (await t?.tags())?.delete(tag).catch(() => undefined);
    t?.close();
  }
}

/**
 * Export a snapshot of the database (the transaction stays open on the returned client, for pg_dump
 * --snapshot), choose each table's last version committed before it and tag it at once (a version
 * superseded after the snapshot may be cleaned up 60 s after its commit). Redone while a commit falls
 * within `marginMs` of the snapshot's window, or when a chosen version was cleaned up before its tag.
 * @throws Error after MAX_ATTEMPTS tries; no tag is left then
 */
async function chooseSnapshot(databaseUrl: string, db: lancedb.Connection, index: ObjectPrefix, marginMs: number): Promise<Chosen> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (let attempts = 1; attempts <= MAX_ATTEMPTS; attempts++) {
      await client.query('begin isolation level repeatable read read only');
      const a = Date.now();
      const { rows } = await client.query<{ id: string }>('select pg_export_snapshot() as id');
      const b = Date.now();
      // Commits stamped up to b + margin have happened by then, so the listing below sees them.
      await sleep(Math.max(0, b + marginMs - Date.now()));
      const versions = new Map<string, { version: number; at: number }>();
      let clash = false;
      for (const name of await listIndexTables(index)) {
        const t = await db.openTable(name);
        try {
          const all = (await t.listVersions()).map((v) => ({ version: v.version, at: new Date(v.timestamp as unknown as string).getTime() }));
          if (all.some((v) => v.at >= a - marginMs && v.at <= b + marginMs)) { clash = true; break; }
          const before = all.filter((v) => v.at < a - marginMs);
          if (before.length) versions.set(name, before[before.length - 1]);
        } finally {
          t.close();
        }
      }
      const tag = `backup-${new Date(a).toISOString().replace(/:/g, '')}`;
      const tagged: string[] = [];
      for (const [name, v] of clash ? [] : versions) {
        const t = await db.openTable(name);
        const ok = await t.tags().then((tags) => tags.create(tag, v.version)).then(() => true, () => false);
        t.close();
        if (!ok) { clash = true; break; }
        tagged.push(name);
      }
      if (!clash) return { client, snapshotId: rows[0].id, window: [a, b], attempts, versions, tag };
      await deleteTags(db, tagged, tag);
      await client.query('rollback');
    }
  } catch (err) {
    await client.end().catch(() => undefined);
    throw err;
  }
  await client.end().catch(() => undefined);
  throw new Error(`backup: index commits kept landing within ${marginMs} ms of the database snapshot (${MAX_ATTEMPTS} tries); retry when ingest is quieter`);
}

/**
 * Back up the deployment at `databaseUrl` + `storage` into the local directory `toDir` (created; must be
 * empty): `control.dump` (pg_dump custom format), `index/<table>.lance/`, `blobs/`, and `backup.json`, last.
 * @param opts.clockMarginMs see DEFAULT_CLOCK_MARGIN_MS
 * @returns the report written as backup.json
 * @throws Error when toDir is not empty, pg_dump fails or is missing, a location cannot be read, or a
 *   tagged version could not be read back from the copy
 */
export async function backupPostgres(databaseUrl: string, storage: StorageConfig, toDir: string, opts: { clockMarginMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<PgBackupReport> {
  if (!isEmptyDir(toDir)) throw new Error(`backup: the target ${toDir} is not empty; give a new or empty directory`);
  const pgDump = findPgTool('pg_dump', opts.env ?? process.env);
  const index = indexPrefix(storage);
  const blobs = blobPrefix(storage);
  fs.mkdirSync(toDir, { recursive: true });
  const t0 = Date.now();
  const db = await connectIndex(storage);
  let snap: Chosen;
  try {
    snap = await chooseSnapshot(databaseUrl, db, index, opts.clockMarginMs ?? DEFAULT_CLOCK_MARGIN_MS);
  } catch (err) {
    db.close();
    index.close();
    blobs.close();
    throw err;
  }
  const tag = snap.tag;
  try {
    const dumpFile = path.join(toDir, 'control.dump');
    const conn = pgConnection(databaseUrl, opts.env ?? process.env);
    await run(pgDump, ['--format=custom', `--snapshot=${snap.snapshotId}`, `--file=${dumpFile}`, conn.dbArg], { env: conn.env });
    const docs = (await snap.client.query<{ blob_key: string }>(`select blob_key from documents where state = 'visible'`)).rows;
    await snap.client.query('commit');
    const t1 = Date.now();

    // Each tagged version: its manifest and every other file of the table except later manifests and
    // other tags, so the copy's latest version is the tagged one.
    const out = localPrefix(path.join(toDir, 'index'));
    const tables: PgBackupReport['tables'] = {};
    for (const [name, v] of snap.versions) {
      const keep = (key: string) => {
        const rel = key.slice(`${name}.lance/`.length);
        if (rel.startsWith('_refs/')) return rel === `_refs/tags/${tag}.json`;
        if (!rel.startsWith('_versions/')) return true;
        const n = manifestVersion(rel.slice('_versions/'.length));
        return n !== undefined && n <= v.version;
      };
      const { files, bytes } = await copyPrefix(index, out, `${name}.lance/`, keep);
      const rows = await verifyTag(path.join(toDir, 'index'), name, tag, v.version);
      tables[name] = { version: v.version, committed_at: new Date(v.at).toISOString(), rows, files, bytes };
    }
    const t2 = Date.now();

    // Blobs are written before the control plane names them and never rewritten; a document deleted
    // after the snapshot may have lost its original meanwhile, which the report names.
    const copied = await copyPrefix(blobs, localPrefix(path.join(toDir, 'blobs')));
    const missing = docs.map((d) => d.blob_key).filter((k) => k && !fs.existsSync(path.join(toDir, 'blobs', k)));
    const t3 = Date.now();
    const report: PgBackupReport = {
      format: 1,
      kind: 'postgres',
      created_at: new Date(snap.window[0]).toISOString(),
      snapshot_window_ms: snap.window,
      attempts: snap.attempts,
      tag,
      tables,
      documents: docs.length,
      control_plane: { file: 'control.dump', bytes: fs.statSync(dumpFile).size },
      blobs: { files: copied.files, bytes: copied.bytes, missing_document_blobs: missing },
      elapsed_ms: { control_plane: t1 - t0, index: t2 - t1, blobs: t3 - t2, total: t3 - t0 },
    };
    fs.writeFileSync(path.join(toDir, 'backup.json'), JSON.stringify(report, null, 2) + '\n');
    return report;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`backup: ${e.stderr?.trim() || e.message}`, { cause: err });
  } finally {
    await snap.client.end().catch(() => undefined);
    await deleteTags(db, snap.versions.keys(), tag);
    db.close();
    index.close();
    blobs.close();
  }
}
