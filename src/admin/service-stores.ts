// What the backup and restore of a PostgreSQL + object storage deployment reach besides the database:
// the blob store and the index location as object prefixes (object-prefix.ts), a LanceDB connection to
// the index with the service's own storage options, and the PostgreSQL client programs (pg_dump,
// pg_restore), found where Debian installs them or on PATH.
import fs from 'node:fs';
import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { lanceS3StorageOptions, type StorageConfig } from '../internal/storage-config.ts';
import { localPrefix, s3Prefix, type ObjectPrefix } from './object-prefix.ts';

/** The blob store of `storage` (DOCSEARCH_BLOB_URI) as an object prefix. */
export function blobPrefix(storage: StorageConfig): ObjectPrefix {
  const b = storage.blob;
  return b.kind === 'local' ? localPrefix(b.dir) : s3Prefix(storage.s3!, b.bucket, b.prefix);
}

/**
 * The index location of `storage` (DOCSEARCH_INDEX_URI) as an object prefix.
 * @throws Error for gs:// and db:// indexes, which these commands do not copy
 */
export function indexPrefix(storage: StorageConfig): ObjectPrefix {
  const i = storage.index;
  if (i.kind === 'local') return localPrefix(i.uri);
  if (i.kind === 's3') return s3Prefix(storage.s3!, i.bucket, i.prefix);
  throw new Error(`the index at ${i.uri} (DOCSEARCH_INDEX_URI) is not a local directory or s3:// location; backup and restore copy only those`);
}

/** A LanceDB connection to the index location, with the storage options the service uses. */
export async function connectIndex(storage: StorageConfig): Promise<lancedb.Connection> {
  const i = storage.index;
  if (i.kind === 's3') return lancedb.connect(i.uri, { storageOptions: lanceS3StorageOptions(storage.s3!) });
  return lancedb.connect(i.uri);
}

/**
 * Every table name under the index location: the `<name>.lance/` folders, taken from a full listing
 * (LanceDB's own tableNames() and delimiter listings are not answered alike by every S3-compatible server).
 */
export async function listIndexTables(index: ObjectPrefix): Promise<string[]> {
  const names = new Set<string>();
  for (const { key } of await index.list()) {
    const first = key.split('/')[0];
    if (first.endsWith('.lance') && key.includes('/_versions/')) names.add(first.slice(0, -'.lance'.length));
  }
  return [...names].sort();
}

/** Version number of a Lance `_versions/` file name (V2 scheme: u64::MAX - version; legacy: `N.manifest`), or undefined. */
export function manifestVersion(name: string): number | undefined {
  const m = /^(\d+)\.manifest$/.exec(name);
  if (!m) return undefined;
  const n = BigInt(m[1]);
  return Number(n >= 2n ** 63n ? 2n ** 64n - 1n - n : n);
}

const isExe = (f: string) => {
  try {
    fs.accessSync(f, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * Path of a PostgreSQL client program (`pg_dump`, `pg_restore`): in $PG_BIN_DIR, else the newest
 * /usr/lib/postgresql/<v>/bin (a newer pg_dump reads older servers, not the reverse), else on PATH.
 * @throws Error naming the places searched when it is not installed
 */
export function findPgTool(name: string, env: NodeJS.ProcessEnv): string {
  const dirs: string[] = [];
  if (env.PG_BIN_DIR) dirs.push(env.PG_BIN_DIR);
  try {
    const versions = fs.readdirSync('/usr/lib/postgresql').filter((v) => /^\d+(\.\d+)?$/.test(v)).sort((a, b) => Number(b) - Number(a));
    dirs.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  } catch {
    /* not a Debian-style installation */
  }
  dirs.push(...(env.PATH ?? '').split(path.delimiter).filter(Boolean));
  for (const dir of dirs) if (isExe(path.join(dir, name))) return path.join(dir, name);
  throw new Error(`${name} not found (looked in ${dirs.join(', ')}); install the PostgreSQL client programs (Debian: postgresql-client) or set PG_BIN_DIR`);
}

/**
 * Arguments and environment for running a PostgreSQL client program on `databaseUrl`: the password moves
 * from the URL into PGPASSWORD, so it does not show in the process list.
 * @returns `--dbname=<url without password>` and the environment to run with
 */
export function pgConnection(databaseUrl: string, env: NodeJS.ProcessEnv): { dbArg: string; env: NodeJS.ProcessEnv } {
  const u = new URL(databaseUrl);
  if (!u.password) return { dbArg: `--dbname=${databaseUrl}`, env };
  const password = decodeURIComponent(u.password);
  u.password = '';
  return { dbArg: `--dbname=${u.toString()}`, env: { ...env, PGPASSWORD: password } };
}
