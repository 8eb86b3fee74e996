// Copies one LanceDB table of a running service at one committed version (docs/deployment.md, backup).
// Lance files are immutable once written: a version is its manifest plus the data, deletion and index
// files that manifest lists, so copying those while writers go on gives a readable table at that version.
// The version is chosen by commit time against the control-plane snapshot (see backup.ts and
// docs/decisions/2026-11-29-backup.md for why); the copy is then opened and read back, which fails when
// an old version's files were cleaned up while being copied, and the caller retries.
import fs from 'node:fs';
import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';

/** Lance's `_versions` file names: the V2 scheme (u64::MAX - version, 20 digits) or the legacy `N.manifest`. */
function manifestNames(version: number): string[] {
  const v2 = (2n ** 64n - 1n - BigInt(version)).toString().padStart(20, '0');
  return [`${v2}.manifest`, `${version}.manifest`];
}

/** Immutable file folders of a Lance table; `_transactions` is left out (only conflict checks of later commits read it). */
const FILE_DIRS = ['data', '_deletions', '_indices'];

/** One table's committed versions as (version, commit time in ms since the epoch). */
export async function listTableVersions(lanceUri: string, table: string): Promise<{ version: number; at: number }[]> {
  const db = await lancedb.connect(lanceUri);
  const t = await db.openTable(table);
  try {
    return (await t.listVersions()).map((v) => ({ version: v.version, at: new Date(v.timestamp as unknown as string | number | Date).getTime() }));
  } finally {
    t.close();
  }
}

/** Names of the tables under a local Lance root (`<name>.lance` folders). */
export function listLocalTables(lanceUri: string): string[] {
  if (!fs.existsSync(lanceUri)) return [];
  return fs.readdirSync(lanceUri).filter((n) => n.endsWith('.lance')).map((n) => n.slice(0, -'.lance'.length)).sort();
}

/** Copy every file under `from` to `to`, skipping files that disappear meanwhile; returns bytes copied. */
export async function copyTree(from: string, to: string): Promise<number> {
  let bytes = 0;
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(from, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  await fs.promises.mkdir(to, { recursive: true });
  for (const e of entries) {
    const src = path.join(from, e.name);
    const dst = path.join(to, e.name);
    if (e.isDirectory()) bytes += await copyTree(src, dst);
    else if (e.isFile()) {
      try {
        await fs.promises.copyFile(src, dst);
        bytes += (await fs.promises.stat(dst)).size;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
  }
  return bytes;
}

/**
 * Copy table `table` of the local Lance root `lanceUri` at `version` into `destUri` and read it back.
 * The copy holds that version's manifest only, so it opens at that version; files of later versions that
 * happen to be copied too are unreferenced and removed by the restored service's next cleanup.
 * @returns bytes copied and the copy's row count
 * @throws Error when the version's manifest is gone (cleaned up) or the copy cannot be read whole
 */
export async function copyTableVersion(lanceUri: string, table: string, version: number, destUri: string): Promise<{ bytes: number; rows: number }> {
  const src = path.join(lanceUri, `${table}.lance`);
  const dst = path.join(destUri, `${table}.lance`);
  await fs.promises.rm(dst, { recursive: true, force: true });
  // The manifest first, so that a version already cleaned up fails before anything else is copied.
  await fs.promises.mkdir(path.join(dst, '_versions'), { recursive: true });
  let manifest: string | undefined;
  for (const name of manifestNames(version)) {
    try {
      await fs.promises.copyFile(path.join(src, '_versions', name), path.join(dst, '_versions', name));
      manifest = name;
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  if (!manifest) throw new Error(`table ${table}: the manifest of version ${version} is gone (cleaned up meanwhile)`);
  let bytes = (await fs.promises.stat(path.join(dst, '_versions', manifest))).size;
  for (const dir of FILE_DIRS) bytes += await copyTree(path.join(src, dir), path.join(dst, dir));
  const rows = await readBack(destUri, table, version);
  return { bytes, rows };
}

/** Open the copy, check its version and read one column of every row and each index's statistics. */
async function readBack(destUri: string, table: string, version: number): Promise<number> {
  const db = await lancedb.connect(destUri);
  const t = await db.openTable(table);
  try {
    return await readTableAt(t, version, `table ${table}: the copy opened at version`);
  } finally {
    t.close();
  }
}

/**
 * Check that the open table `t` is at `version` and read it through: one column of every row and each
 * index's statistics, so a missing data, deletion or index file fails here, not in a later search.
 * @param what the start of the error message, before "<version found>, not <version>"
 * @returns the row count
 * @throws Error when the version differs or a file of it cannot be read
 */
export async function readTableAt(t: lancedb.Table, version: number, what: string): Promise<number> {
  const at = await t.version();
  if (at !== version) throw new Error(`${what} ${at}, not ${version}`);
  const first = (await t.schema()).fields[0]?.name;
  const rows = first ? (await t.query().select([first]).toArrow()).numRows : await t.countRows();
  for (const ix of await t.listIndices()) await t.indexStats(ix.name);
  return rows;
}
