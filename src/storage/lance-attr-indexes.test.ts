// Tests of the attribute-column scalar indexes against a real LanceDB table: the kind per storage, the cap
// on indexed columns, and that a second run builds nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { attrIndexKind, ensureAttrIndexes, MAX_ATTR_INDEXES } from './lance-attr-indexes.ts';

test('BTREE for scalar attributes, LABEL_LIST for string and int lists, none for float and bool lists', () => {
  assert.deepEqual(['string', 'int', 'float', 'bool'].map((s) => attrIndexKind(s as never)), ['btree', 'btree', 'btree', 'btree']);
  assert.deepEqual(['string_list', 'int_list'].map((s) => attrIndexKind(s as never)), ['label_list', 'label_list']);
  assert.deepEqual(['float_list', 'bool_list'].map((s) => attrIndexKind(s as never)), [null, null]);
});

test('indexes the attribute columns up to MAX_ATTR_INDEXES, then nothing more; other columns untouched', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lance-attr-idx-'));
  const db = await lancedb.connect(dir);
  try {
    const n = MAX_ATTR_INDEXES + 4;
    const rows = Array.from({ length: 50 }, (_, i) => ({
      id: `r${i}`,
      ...Object.fromEntries(Array.from({ length: n }, (_, k) => [`attr_a${String(k).padStart(2, '0')}`, i % (k + 2)])),
      attr_tags: [`t${i % 3}`, 'all'],
    }));
    const table = await db.createTable('t', rows);
    const first = await ensureAttrIndexes(lancedb, table);
    assert.deepEqual(first.errors, []);
    assert.equal(first.built.length, MAX_ATTR_INDEXES);
    assert.deepEqual((await ensureAttrIndexes(lancedb, table)).built, [], 'the cap counts existing indexes');
    const indexed = (await table.listIndices()).flatMap((i) => i.columns);
    assert.ok(!indexed.includes('id'));
    const hits = await table.query().where('attr_a03 = 2').toArray();
    assert.equal(hits.length, rows.filter((r) => (r as Record<string, unknown>).attr_a03 === 2).length);
    table.close();
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
