// Consistent backup of a running service's embedded data directory (docs/deployment.md, "Backup and
// restore"): the SQLite control plane through SQLite's online backup, then each namespace's Lance table at
// the last version committed before that snapshot, then the blobs and the model cache. Why this order and
// this choice of version: docs/decisions/2026-11-29-backup.md.
import fs from 'node:fs';
import path from 'node:path';
import { openSqlite } from '../storage/sqlite-binding.ts';
import { copyTableVersion, copyTree, listLocalTables, listTableVersions } from './lance-snapshot.ts';

/** Where the embedded default keeps its state (DOCSEARCH_DATA_DIR and the local storage locations). */
export interface EmbeddedLayout {
  dataDir: string;
  /** Local blob store root (default dataDir/blobs). */
  blobDir: string;
  /** Local Lance root (default dataDir/lance). */
  lanceDir: string;
}

export interface BackupReport {
  format: 1;
  created_at: string;
  /** Time the control-plane snapshot was taken, between these two instants (ms since the epoch). */
  snapshot_window_ms: [number, number];
  attempts: number;
  tables: Record<string, { version: number; committed_at: string; rows: number; bytes: number }>;
  documents: number;
  blobs: { files: number; bytes: number; missing_document_blobs: string[] };
  elapsed_ms: { control_plane: number; index: number; blobs: number; total: number };
}

/** Margin around the snapshot window for commit times, ms (both sides read the same machine clock). */
const CLOCK_MARGIN_MS = 5;
/** Snapshot attempts before giving up: a commit inside the short window forces another. */
const MAX_ATTEMPTS = 20;

/** A directory that does not exist or is empty. */
export function isEmptyDir(dir: string): boolean {
  return !fs.existsSync(dir) || fs.readdirSync(dir).length === 0;
}

/**
 * Online SQLite backup of `src` into `dest`, in one step after the first 100 pages, so the copy is one read
 * transaction's view (a write by another connection between steps restarts it).
 */
async function snapshotControlPlane(src: string, dest: string): Promise<void> {
  const db = openSqlite(src, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    await db.backup(dest, { progress: ({ totalPages }) => Math.max(totalPages, 100) * 2 });
  } finally {
    db.close();
  }
}

/**
 * Back up the data directory of a service that may be running into `toDir` (created; must be empty).
 * @returns what was copied, also written as `toDir/backup.json`
 * @throws Error when toDir is not empty, the control plane is missing, or no snapshot window free of
 *   index commits was found in MAX_ATTEMPTS tries
 */
export async function backupDataDir(layout: EmbeddedLayout, toDir: string): Promise<BackupReport> {
  if (!isEmptyDir(toDir)) throw new Error(`backup: the target ${toDir} is not empty; give a new or empty directory`);
  const controlFile = path.join(layout.dataDir, 'control.sqlite');
  if (!fs.existsSync(controlFile)) throw new Error(`backup: no control plane at ${controlFile} (is DOCSEARCH_DATA_DIR right?)`);
  fs.mkdirSync(toDir, { recursive: true });
  const t0 = Date.now();
  const destControl = path.join(toDir, 'control.sqlite');
  const destLance = path.join(toDir, 'lance');
  let taken: Snapshot | undefined;
  let copyError: unknown;
  for (let tries = 0; tries < COPY_TRIES && !taken; tries++) {
    try {
      taken = await takeSnapshot(layout, destControl, destLance);
    } catch (err) {
      if (!(err instanceof CopyFailed)) throw err;
      copyError = err.cause;
    }
  }
  if (!taken) throw new Error(`backup: an index version was cleaned up while being copied, ${COPY_TRIES} times: ${String(copyError)}`);
  const t2 = Date.now();

  // 3. Blobs and models. Blobs are written before the control plane refers to them and never rewritten;
  //    a document deleted after the snapshot may have lost its original meanwhile, which is reported.
  const blobBytes = await copyTree(layout.blobDir, path.join(toDir, 'blobs'));
  const snap = openSqlite(destControl, { readonly: true });
  let docs: { blob_key: string }[];
  try {
    docs = snap.prepare(`select blob_key from documents where state = 'visible'`).all() as { blob_key: string }[];
  } finally {
    snap.close();
  }
  const missing = docs.map((d) => d.blob_key).filter((k) => k && !fs.existsSync(path.join(toDir, 'blobs', k)));
  const modelsDir = path.join(layout.dataDir, 'models');
  if (fs.existsSync(modelsDir)) await fs.promises.cp(modelsDir, path.join(toDir, 'models'), { recursive: true, verbatimSymlinks: true });
  const t3 = Date.now();

  const out: BackupReport = {
    format: 1,
    created_at: new Date(taken.window[0]).toISOString(),
    snapshot_window_ms: taken.window,
    attempts: taken.attempts,
    tables: taken.tables,
    documents: docs.length,
    blobs: { files: countFiles(path.join(toDir, 'blobs')), bytes: blobBytes, missing_document_blobs: missing },
    elapsed_ms: { control_plane: taken.controlMs, index: t2 - t0 - taken.controlMs, blobs: t3 - t2, total: t3 - t0 },
  };
  fs.writeFileSync(path.join(toDir, 'backup.json'), JSON.stringify(out, null, 2) + '\n');
  return out;
}

interface Snapshot {
  window: [number, number];
  attempts: number;
  controlMs: number;
  tables: BackupReport['tables'];
}

/** A table copy that could not be read back (its version was cleaned up meanwhile): the snapshot is redone. */
class CopyFailed extends Error {}

/** Whole snapshots (control plane + index versions) tried when a version is cleaned up while being copied. */
const COPY_TRIES = 3;

/**
 * 1. The control plane, then the versions committed around it: a version committed inside the snapshot
 *    window cannot be placed before or after the snapshot, so the snapshot is taken again. Tables are
 *    listed after the snapshot, so a namespace created just before it is included.
 * 2. Each table at the last version committed before the window.
 */
async function takeSnapshot(layout: EmbeddedLayout, destControl: string, destLance: string): Promise<Snapshot> {
  const controlFile = path.join(layout.dataDir, 'control.sqlite');
  const start = Date.now();
  let window: [number, number] = [0, 0];
  let chosen = new Map<string, { version: number; at: number }>();
  let attempts = 0;
  for (;;) {
    attempts++;
    fs.rmSync(destControl, { force: true });
    const a = Date.now();
    await snapshotControlPlane(controlFile, destControl);
    const b = Date.now();
    window = [a, b];
    chosen = new Map();
    let clash = false;
    for (const table of listLocalTables(layout.lanceDir)) {
      const versions = await listTableVersions(layout.lanceDir, table);
      if (versions.some((v) => v.at >= a - CLOCK_MARGIN_MS && v.at <= b + CLOCK_MARGIN_MS)) { clash = true; break; }
      const before = versions.filter((v) => v.at < a - CLOCK_MARGIN_MS);
      if (before.length) chosen.set(table, before[before.length - 1]);
    }
    if (!clash) break;
    if (attempts >= MAX_ATTEMPTS) throw new Error(`backup: index commits kept landing inside the control-plane snapshot (${attempts} tries); retry when ingest is quieter`);
  }
  const controlMs = Date.now() - start;
  fs.rmSync(destLance, { recursive: true, force: true });
  const tables: BackupReport['tables'] = {};
  for (const [table, v] of chosen) {
    try {
      const { bytes, rows } = await copyTableVersion(layout.lanceDir, table, v.version, destLance);
      tables[table] = { version: v.version, committed_at: new Date(v.at).toISOString(), rows, bytes };
    } catch (err) {
      throw new CopyFailed(`table ${table} at version ${v.version}`, { cause: err });
    }
  }
  return { window, attempts, controlMs, tables };
}

function countFiles(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) n++;
  return n;
}
