// Which better-sqlite3 build the running Node.js loads. better-sqlite3 up to 12 wraps statements in
// `node::ObjectWrap`, whose destructor on Node 24 can abort the process (`RemoveEnvironmentCleanupHook`
// with no current environment) when V8 collects a statement; 13 is built on Node-API 10, which fixes
// that but exists only from Node 22.14 (on Node-API 9, Node 20, `new Database()` crashes). Both are
// dependencies (13 under the alias `better-sqlite3-napi`, shipped with prebuilt binaries and no install
// script) and the binding is chosen by the running Node's Node-API version. docs/deployment.md has the
// measurements.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/** The Node-API version better-sqlite3 13 is built for (its `binding.gyp` target, NAPI_VERSION 10). */
export const NODE_API_OF_NAPI_BUILD = 10;

/**
 * The package name to load for a Node-API version: `better-sqlite3-napi` (13) from Node-API 10 on, else
 * `better-sqlite3` (12). `napi` defaults to the running Node's `process.versions.napi`.
 */
export function sqliteBindingPackage(napi: number = Number(process.versions.napi ?? 0)): 'better-sqlite3' | 'better-sqlite3-napi' {
  return napi >= NODE_API_OF_NAPI_BUILD ? 'better-sqlite3-napi' : 'better-sqlite3';
}

const require = createRequire(import.meta.url);

/**
 * The better-sqlite3 `Database` class for this Node (both builds have the same API; the types are 12's).
 * Loaded on first use, so importing this module touches no native code.
 */
let loaded: typeof BetterSqlite3 | undefined;
export function sqliteDatabaseClass(): typeof BetterSqlite3 {
  loaded ??= require(sqliteBindingPackage()) as typeof BetterSqlite3;
  return loaded;
}

/** Open a SQLite database file with the binding for this Node (`options` as better-sqlite3's constructor). */
export function openSqlite(file: string, options?: BetterSqlite3.Options): BetterSqlite3.Database {
  const Database = sqliteDatabaseClass();
  return new Database(file, options);
}

export type SqliteDatabaseHandle = BetterSqlite3.Database;
export type SqliteStatement = BetterSqlite3.Statement;
