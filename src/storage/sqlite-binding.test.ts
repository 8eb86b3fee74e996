// The SQLite binding follows the running Node's Node-API version, and the one loaded here works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSqlite, sqliteBindingPackage, NODE_API_OF_NAPI_BUILD } from './sqlite-binding.ts';

test('Node-API 10 and later load better-sqlite3 13 (better-sqlite3-napi), earlier ones 12', () => {
  assert.equal(sqliteBindingPackage(9), 'better-sqlite3');
  assert.equal(sqliteBindingPackage(NODE_API_OF_NAPI_BUILD), 'better-sqlite3-napi');
  assert.equal(sqliteBindingPackage(11), 'better-sqlite3-napi');
});

test('the binding chosen for this Node opens a database, prepares, writes and reads', () => {
  const db = openSqlite(':memory:');
  try {
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)');
    db.prepare('INSERT INTO t VALUES (?, ?)').run('a', 1);
    assert.deepEqual(db.prepare('SELECT k, v FROM t').all(), [{ k: 'a', v: 1 }]);
  } finally {
    db.close();
  }
});
