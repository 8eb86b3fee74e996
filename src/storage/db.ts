// Opens the control-plane database: SQLite (better-sqlite3, WAL) in the data directory by default, or
// PostgreSQL when a database URL is configured. Both sit behind the same Kysely<Database> so domain code
// never knows which one it talks to; `dialect` is exposed only for the few queries that differ (row
// locking when claiming jobs).
import fs from 'node:fs';
import path from 'node:path';
import { openSqlite, type SqliteDatabaseHandle, type SqliteStatement } from './sqlite-binding.ts';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, type SqliteDatabase } from 'kysely';
import type { Database } from './schema.ts';
import { migrateToLatest } from './migrations.ts';

export type DialectName = 'sqlite' | 'postgres';

export interface ControlPlane {
  db: Kysely<Database>;
  dialect: DialectName;
  close(): Promise<void>;
}

// PostgreSQL returns bigint (int8) as string by default; our counts fit in a JS number.
pg.types.setTypeParser(20, (v) => Number(v));

/**
 * Open (and migrate) the control plane.
 * @param opts.databaseUrl postgres://… or undefined for SQLite
 * @param opts.dataDir     directory holding `control.sqlite` when SQLite is used
 * @param opts.onIdleError called when an idle PostgreSQL connection fails (logged; never fatal)
 */
export async function openControlPlane(opts: { databaseUrl?: string; dataDir: string; onIdleError?: (err: Error) => void }): Promise<ControlPlane> {
  let db: Kysely<Database>;
  let dialect: DialectName;
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    // An idle pooled connection that the server closes (restart, failover, admin termination) emits
    // 'error' on the pool; without a listener that is an uncaught exception that kills the process.
    // pg drops the broken client and the next query opens a new connection.
    pool.on('error', (err) => opts.onIdleError?.(err));
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    dialect = 'postgres';
  } else {
    fs.mkdirSync(opts.dataDir, { recursive: true });
    const file = path.join(opts.dataDir, 'control.sqlite');
    const sqlite = openSqlite(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
    dialect = 'sqlite';
  }
  await migrateToLatest(db);
  return { db, dialect, close: () => db.destroy() };
}

/** Distinct SQL texts whose prepared statements are kept (the service issues a few hundred). */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * The better-sqlite3 database as Kysely's SqliteDialect sees it, with prepared statements kept warm:
 * Kysely prepares every query anew, which led the control-plane part of a search profile.
 * A statement is reused for the same SQL text unless it is busy (an unfinished iterate()); SQLite
 * re-prepares a cached statement by itself after a schema change. The cache is cleared when full.
 */
export function withStatementCache(sqlite: SqliteDatabaseHandle): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  const prepare = (source: string) => {
    const hit = cache.get(source);
    if (hit && !hit.busy) return hit;
    const stmt = sqlite.prepare(source);
    if (!hit) {
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear();
      cache.set(source, stmt);
    }
    return stmt;
  };
  return { prepare, close: () => sqlite.close() };
}

/** Current time as an RFC 3339 string with milliseconds (all stored timestamps use this form). */
export function nowIso(): string {
  return new Date().toISOString();
}
