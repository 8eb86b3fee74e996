import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSqlite } from './sqlite-binding.ts';
import { withStatementCache } from './db.ts';

test('withStatementCache reuses a statement per SQL text, but never a busy one', () => {
  const raw = openSqlite(':memory:');
  const db = withStatementCache(raw);
  db.prepare('CREATE TABLE t (x INTEGER)').run([]);
  db.prepare('INSERT INTO t VALUES (?), (?)').run([1, 2]);
  const a = db.prepare('SELECT x FROM t ORDER BY x');
  assert.equal(db.prepare('SELECT x FROM t ORDER BY x'), a);
  const it = a.iterate([]);
  assert.deepEqual(it.next().value, { x: 1 });
  const b = db.prepare('SELECT x FROM t ORDER BY x'); // `a` is mid-iteration: a fresh statement
  assert.notEqual(b, a);
  assert.deepEqual(b.all([]), [{ x: 1 }, { x: 2 }]);
  it.return?.();
  // A schema change after caching: SQLite re-prepares the cached statement itself.
  assert.deepEqual(db.prepare('SELECT * FROM t ORDER BY x').all([]), [{ x: 1 }, { x: 2 }]);
  db.prepare('ALTER TABLE t ADD COLUMN y INTEGER').run([]);
  assert.deepEqual(db.prepare('SELECT * FROM t ORDER BY x').all([]), [{ x: 1, y: null }, { x: 2, y: null }]);
  db.close();
});
